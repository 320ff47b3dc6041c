import type {
	IDataObject,
	IExecuteFunctions,
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
	HANDOVER_FIELD,
	SECRET_HEADER,
	carriesModuleSecret,
	parseDelivery,
	readHandover,
	withoutSecret,
} from './delivery';
import type { Handover } from './delivery';
import {
	newSecret,
	rememberRegistration,
	restoreModuleRecords,
	secretVerifier,
	triggerKey,
	writeModuleRecords,
} from './registrations';
import { REMEMBERED_KEYS, checkAndRecordKeys, isRecordedRepeat, readRepeatKeyPath, repeatKeyHash } from './repeats';

const GROUP_LABELS: Record<string, string> = {
	call: 'Call',
	conversation: 'Conversation',
	campaign: 'Campaign',
};

const EVENT_NAMES = Object.fromEntries(EVENT_TYPES.map(({ name, value }) => [value, name]));

export class CampaignCallingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Campaign Calling Trigger',
		name: 'campaignCallingTrigger',
		icon: { light: 'file:campaignCallingTrigger.svg', dark: 'file:campaignCallingTrigger.dark.svg' },
		group: ['trigger'],
		// 2, not 1: n8n evaluates an expression in its sandbox for every delivery to a webhook node whose
		// typeVersion is 1 (webhook-helpers parseRequestBody, for the old Webhook node's binaryData option),
		// which makes each delivery cost more than one to n8n's own Webhook node (bench/RESULTS.md, table 2d).
		version: 2,
		// The chosen events by name ("Call Ended"), in Title Case as n8n's UX guidelines ask of subtitles.
		subtitle: `={{ $parameter["events"].map((event) => (${JSON.stringify(EVENT_NAMES)})[event] || event).join(", ") }}`,
		description: 'Starts the workflow when a call ends, a campaign completes or another calling event happens',
		defaults: { name: 'Campaign Calling Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'campaignCallingApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answered by execute(), the execution's first node: the sender gets its 200 only once n8n
				// has created the execution (and, with Ignore Repeats, recorded the event), and a non-2xx
				// answer when n8n could not, so it sends the event again. 'onReceived' answers first on n8n 1.x.
				responseMode: 'responseNode',
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
				// n8n's UX guidelines name a trigger's event parameter "Trigger On"; n8n's node panel lists
				// a trigger's events from a parameter labelled Event, Events or Trigger On.
				displayName: 'Trigger On',
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
							'Used with \'Ignore Repeats\': the dot path of the field that identifies an event, such as data.call_id or event_id. Empty compares whole events. An event without this field is never treated as a repeat.',
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
				const modules = restoreModuleRecords(this.getWorkflowStaticData('node'), thisTrigger.call(this))[webhookUrl] ?? {};
				return events.every((event) => modules[event] !== undefined);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const events = selectedEvents.call(this);
				const limits = deliveryLimits.call(this);
				const staticData = this.getWorkflowStaticData('node');
				const trigger = thisTrigger.call(this);
				const records = restoreModuleRecords(staticData, trigger);

				// A new secret for the modules registered now; only the service knows earlier ones.
				const secret = newSecret();
				const verifier = secretVerifier(secret);
				for (const event of events) {
					if (records[webhookUrl]?.[event] !== undefined) continue;
					const module = await createWebhookModule.call(this, event, {
						method: 'POST',
						url: webhookUrl,
						headers: { [SECRET_HEADER]: secret, [EVENT_HEADER]: event },
						...limits,
					});
					const record = { id: typeof module.id === 'string' ? module.id : 'unknown', verifier };
					// Remembered outside static data too: n8n may drop static data if a later module fails.
					rememberRegistration(trigger, webhookUrl, event, record);
					(records[webhookUrl] ??= {})[event] = record;
					writeModuleRecords(staticData, records);
				}
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				// After a failed create() n8n calls this on a fresh copy of static data and saves it: the
				// modules registered before the failure are put back here, and so kept.
				const records = restoreModuleRecords(this.getWorkflowStaticData('node'), thisTrigger.call(this));
				const kept = Object.keys(records[webhookUrl] ?? {}).length;
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

		if (!carriesModuleSecret(this.getWorkflowStaticData('node'), request.headers)) {
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
		let passed = selected.map((event) => ({ ...event, key: undefined as string | undefined }));
		if (checkRepeats && selected.length > 0) {
			const path = repeatKeyPath.call(this, options);
			const trigger = thisTrigger.call(this);
			passed = selected
				.map((event) => ({ ...event, key: repeatKeyHash(event.entry, path, event.eventType) }))
				.filter(({ key }) => key === undefined || !isRecordedRepeat(trigger, key));
		}
		const knownRepeats = selected.length - passed.length;
		if (passed.length === 0) {
			return { webhookResponse: acknowledgement(delivery.entries.length, 0, checkRepeats ? knownRepeats : undefined) };
		}

		const items: INodeExecutionData[] = passed.map(({ entry, eventType, key }) => {
			const json: IDataObject = { ...entry };
			if (typeof json.event_type !== 'string') json.event_type = eventType;
			if (headers) json.headers = headers;
			const handover: Handover = { received: delivery.entries.length, repeats: knownRepeats };
			if (key !== undefined) handover.key = key;
			json[HANDOVER_FIELD] = handover as unknown as IDataObject;
			return { json };
		});
		return { workflowData: [items] };
	}

	/**
	 * Runs as the execution's first node, so the execution exists by now: with Ignore Repeats, records
	 * the events in n8n's deduplication store (in its database, shared by every n8n process) and drops
	 * the repeats; then answers the delivery and passes on the new events.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const handovers = items.map((item) => readHandover(item.json));
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const checkRepeats = options.ignoreRepeats === true && this.getMode() !== 'manual';

		let repeats = items.map(() => false);
		if (checkRepeats) {
			repeats = await checkAndRecordKeys(
				async (hashes) =>
					await this.helpers.checkProcessedAndRecord(hashes, 'node', { mode: 'entries', maxEntries: REMEMBERED_KEYS }),
				thisTrigger.call(this),
				handovers.map((handover) => handover?.key),
			);
		}

		const fresh: INodeExecutionData[] = [];
		items.forEach((item, index) => {
			if (repeats[index]) return;
			const json = { ...item.json };
			delete json[HANDOVER_FIELD];
			fresh.push({ json, pairedItem: { item: index } });
		});

		// Items that came from a delivery (not pinned data) carry its handover: the sender waits for this answer.
		const [handover] = handovers;
		if (handover !== undefined) {
			const repeated = repeats.filter(Boolean).length;
			const body = acknowledgement(handover.received, fresh.length, checkRepeats ? handover.repeats + repeated : undefined);
			this.sendResponse({ body, headers: {}, statusCode: 200 });
		}
		return [fresh];
	}
}

function acknowledgement(received: number, accepted: number, repeats: number | undefined): IDataObject {
	const answer: IDataObject = { status: 'ok', received, accepted };
	if (repeats !== undefined) answer.repeats = repeats;
	return answer;
}

function thisTrigger(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions): string {
	return triggerKey(this.getWorkflow().id, this.getNode().id);
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
