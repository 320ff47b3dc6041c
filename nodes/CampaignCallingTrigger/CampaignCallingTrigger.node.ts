import type {
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { deliveryLimitProperties, readDeliveryLimits } from '../shared/moduleSettings';
import { createWebhookModule } from '../shared/service';
import { EVENT_TYPES, EVENT_TYPE_VALUES } from '../shared/vocabulary';
import {
	EVENT_HEADER,
	SECRET_HEADER,
	constantTimeEquals,
	newSecret,
	parseDelivery,
	readRegistrations,
	withoutSecret,
} from './delivery';
import { REMEMBERED_KEYS, checkAndRecordKeys, readRepeatKeyPath, repeatKeyHash } from './repeats';

const GROUP_LABELS: Record<string, string> = {
	call: 'Call',
	conversation: 'Conversation',
	campaign: 'Campaign',
};

export class CampaignCallingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Campaign Calling Trigger',
		name: 'campaignCallingTrigger',
		icon: { light: 'file:campaignCallingTrigger.svg', dark: 'file:campaignCallingTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1. It exists because n8n evaluates an expression in its sandbox for every
		// delivery to a version-1 webhook node (the old Webhook node's binaryData option), which
		// made each delivery cost more than one to n8n's own Webhook node.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description: 'Starts the workflow when a call ends, a campaign completes or another calling event happens',
		defaults: { name: 'Campaign Calling Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'campaignCallingApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so n8n answers with webhook()'s acknowledgement: left out, n8n falls back to
				// 'firstEntryJson' and sends that word as the body.
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Activating this workflow registers one webhook module per selected event at the service, and so does "Listen for test event" (for the test URL). The service offers no way to remove them: they stay registered after deactivation and after test listening ends. Activation reuses the modules it registered; test listening may register new ones each time, and those keep sending to the test URL.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['call.ended'],
				description: 'The events that start this workflow',
				options: EVENT_TYPES.map(({ group, name, value, description }) => ({
					name: `${GROUP_LABELS[group]}: ${name.replace(new RegExp(`^${GROUP_LABELS[group]} `), '')}`,
					value,
					description,
				})),
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description:
							'Whether each item also carries the delivery\'s HTTP headers (under "headers"), without this node\'s secret',
					},
					{
						displayName: 'Ignore Repeats',
						name: 'ignoreRepeats',
						type: 'boolean',
						default: false,
						description: `Whether a delivery of an event this trigger already received (the service retries deliveries) is acknowledged without starting the workflow. The last ${REMEMBERED_KEYS.toLocaleString('en-US')} events are remembered.`,
					},
					{
						displayName: 'Repeat Key',
						name: 'repeatKey',
						type: 'string',
						default: '',
						placeholder: 'e.g. data.call_id',
						description:
							'Used with Ignore Repeats: the dot path of the field that identifies an event, such as data.call_id or event_id. Empty compares whole events. An event without this field is never treated as a repeat.',
					},
					...deliveryLimitProperties,
				],
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const events = selectedEvents.call(this);
				// Checked here so a bad Repeat Key fails activation instead of every delivery.
				repeatKeyPath.call(this, this.getNodeParameter('options', {}) as IDataObject);
				const state = readRegistrations(this.getWorkflowStaticData('node'));
				const modules = state.registrations[webhookUrl] ?? {};
				return state.secret !== undefined && events.every((event) => modules[event] !== undefined);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const events = selectedEvents.call(this);
				const limits = deliveryLimits.call(this);
				const staticData = this.getWorkflowStaticData('node');
				const state = readRegistrations(staticData);

				// One secret per node, kept for good: modules registered earlier still send it.
				const secret = state.secret ?? newSecret();
				staticData.secret = secret;
				const modules = { ...(state.registrations[webhookUrl] ?? {}) };

				for (const event of events) {
					if (modules[event] !== undefined) continue;
					const record = await createWebhookModule.call(this, event, {
						method: 'POST',
						url: webhookUrl,
						headers: { [SECRET_HEADER]: secret, [EVENT_HEADER]: event },
						...limits,
					});
					modules[event] = typeof record.id === 'string' ? record.id : 'unknown';
					// Saved after each module, so a failure part-way does not register the others twice.
					staticData.registrations = { ...state.registrations, [webhookUrl]: { ...modules } };
				}
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const state = readRegistrations(this.getWorkflowStaticData('node'));
				const kept = Object.keys(state.registrations[webhookUrl] ?? {}).length;
				// The service shows no endpoint to list or delete modules: they stay registered and the
				// record of them stays here, so the next activation reuses them instead of adding more.
				this.logger.info(
					`Campaign Calling Trigger: ${kept} webhook module(s) remain registered at the service for this node; they will be reused on the next activation.`,
				);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const response = this.getResponseObject();
		const state = readRegistrations(this.getWorkflowStaticData('node'));

		const presented = request.headers[SECRET_HEADER];
		if (state.secret === undefined || typeof presented !== 'string' || !constantTimeEquals(presented, state.secret)) {
			response.status(401).json({ status: 'error', message: 'Unauthorized' });
			return { noWebhookResponse: true };
		}

		const options = this.getNodeParameter('options', {}) as IDataObject;
		const delivery = parseDelivery(request);
		if (!delivery.ok) {
			response.status(delivery.statusCode).json({ status: 'error', message: delivery.message });
			return { noWebhookResponse: true };
		}

		const registeredEvent = request.headers[EVENT_HEADER];
		const fallbackEvent =
			typeof registeredEvent === 'string' && EVENT_TYPE_VALUES.has(registeredEvent) ? registeredEvent : undefined;
		const events = new Set(selectedEvents.call(this));
		const headers = options.includeHeaders === true ? withoutSecret(request.headers) : undefined;

		const selected: Array<{ entry: IDataObject; eventType: string }> = [];
		for (const entry of delivery.entries) {
			const eventType = typeof entry.event_type === 'string' ? entry.event_type : fallbackEvent;
			// Modules of events no longer selected still deliver here; they are acknowledged and dropped.
			if (eventType === undefined || !events.has(eventType)) continue;
			selected.push({ entry, eventType });
		}

		// Test deliveries (the editor's "Listen for test event") take one event and are not remembered.
		const checkRepeats = options.ignoreRepeats === true && this.getMode() !== 'manual';
		let fresh = selected;
		if (checkRepeats && selected.length > 0) {
			const path = repeatKeyPath.call(this, options);
			const trigger = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
			const keys = selected.map(({ entry, eventType }) => repeatKeyHash(entry, path, eventType));
			const repeats = checkAndRecordKeys(this.getWorkflowStaticData('node'), trigger, keys, Date.now());
			fresh = selected.filter((_, index) => !repeats[index]);
		}

		const items: INodeExecutionData[] = fresh.map(({ entry, eventType }) => {
			const json: IDataObject = { ...entry };
			if (typeof json.event_type !== 'string') json.event_type = eventType;
			if (headers) json.headers = headers;
			return { json };
		});

		const acknowledgement: IDataObject = { status: 'ok', received: delivery.entries.length, accepted: items.length };
		if (checkRepeats) {
			acknowledgement.repeats = selected.length - fresh.length;
			// Answered here, not by n8n: n8n saves the static data (the new keys) when the answer is
			// given, and n8n 2.x, answering for the node, does so only after it has set up the
			// execution, which clears the mark that the static data changed, so the keys were lost.
			response.status(200).json(acknowledgement);
			return items.length === 0 ? { noWebhookResponse: true } : { noWebhookResponse: true, workflowData: [items] };
		}
		if (items.length === 0) return { webhookResponse: acknowledgement };
		return { webhookResponse: acknowledgement, workflowData: [items] };
	}
}

function deliveryLimits(this: IHookFunctions): { timeout: number; retryLimit: number } {
	const options = this.getNodeParameter('options', {}) as IDataObject;
	try {
		return readDeliveryLimits(options);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as Error).message, {
			description: (error as { hint?: string }).hint,
		});
	}
}

/** Repeat Key as path segments when Ignore Repeats is on, from the Options the caller has read. */
function repeatKeyPath(this: IHookFunctions | IWebhookFunctions, options: IDataObject): string[] {
	if (options.ignoreRepeats !== true) return [];
	try {
		return readRepeatKeyPath(options.repeatKey);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as Error).message, {
			description: (error as { hint?: string }).hint,
		});
	}
}

function selectedEvents(this: IHookFunctions | IWebhookFunctions): string[] {
	const events = this.getNodeParameter('events', []) as string[];
	const unknown = events.filter((event) => !EVENT_TYPE_VALUES.has(event));
	if (events.length === 0 || unknown.length > 0) {
		throw new NodeOperationError(
			this.getNode(),
			events.length === 0 ? 'Select at least one event' : `Unknown event type: ${unknown.join(', ')}`,
			{ description: `Choose from: ${[...EVENT_TYPE_VALUES].join(', ')}.` },
		);
	}
	return events;
}
