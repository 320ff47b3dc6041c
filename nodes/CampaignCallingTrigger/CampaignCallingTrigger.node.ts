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
import { NodeConnectionTypes } from 'n8n-workflow';

import { deliveryLimitProperties } from '../shared/moduleSettings';
import { CREDENTIAL_TYPE } from '../shared/transport';
import { EVENT_TYPES, capitalized } from '../shared/vocabulary';
import { modulesExist, registerModules, reportModulesKept } from './activation';
import { HANDOVER_FIELD, parseDelivery, withoutSecret } from './delivery';
import { HUNG_UP, claimEvents } from './inFlight';
import { deliveryParameters } from './parameters';
import { acceptedModule, keepRecordsInExecution } from './registrations';
import { REMEMBERED_KEYS, findRepeats, keyedEvents } from './repeats';
import type { KeyedEvent } from './repeats';

interface Handover {
	/** Events in the delivery's body. */
	received: number;
	/** Events webhook() already knew as repeats (and so passed on no item); absent when it looked for none (Ignore Repeats off, a test delivery). */
	repeats?: number;
	/** The event's repeat key, when Ignore Repeats is on and the event has one. */
	key?: string;
	/** On the first item: the module records the delivery was judged by, for the execution's copy of static data (checked there). */
	modules?: unknown;
}

function readHandover(json: IDataObject): Handover | undefined {
	const { received, repeats, key, modules } = (json[HANDOVER_FIELD] ?? {}) as IDataObject;
	if (typeof received !== 'number') return undefined;
	return {
		received,
		repeats: typeof repeats === 'number' ? repeats : undefined,
		key: typeof key === 'string' ? key : undefined,
		modules,
	};
}

function refuse(response: ReturnType<IWebhookFunctions['getResponseObject']>, statusCode: number, message: string): IWebhookResponseData {
	response.status(statusCode).json({ status: 'error', message });
	return { noWebhookResponse: true };
}

function acknowledgement(received: number, accepted: number, repeats: number | undefined): IDataObject {
	return { status: 'ok', received, accepted, ...(repeats !== undefined ? { repeats } : {}) };
}

/** The items webhook() hands to n8n, each carrying what execute() needs to answer the delivery. */
function handoverItems(events: KeyedEvent[], headers: IDataObject | undefined, delivery: Handover): INodeExecutionData[] {
	return events.map(({ entry, eventType, key }, index) => {
		const json: IDataObject = { ...entry, event_type: eventType };
		// The event's own fields come first: an event with a field of that name keeps it, without the headers.
		if (headers && !Object.prototype.hasOwnProperty.call(entry, 'headers')) json.headers = headers;
		const { modules, ...perItem } = delivery;
		json[HANDOVER_FIELD] = { ...perItem, ...(key !== undefined ? { key } : {}), ...(index === 0 ? { modules } : {}) } as IDataObject;
		return { json };
	});
}

/** This trigger among all in the process's state and in static data: its workflow's id (a copy's differs) and its node's. */
function thisTriggerKey(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions): string {
	return `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
}

const EVENT_NAMES = Object.fromEntries(EVENT_TYPES.map(({ name, value }) => [value, name]));

export class CampaignCallingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Campaign Calling Trigger',
		name: 'campaignCallingTrigger',
		icon: { light: 'file:campaignCallingTrigger.svg', dark: 'file:campaignCallingTrigger.dark.svg' },
		group: ['trigger'],
		// 2, not 1: n8n evaluates an expression per delivery to a webhook node of version 1 (ARCHITECTURE.md).
		version: 2,
		// The chosen events by name ("Call Ended"), in Title Case as n8n's UX guidelines ask of subtitles.
		subtitle: `={{ $parameter["events"].map((event) => (${JSON.stringify(EVENT_NAMES)})[event] || event).join(", ") }}`,
		description: 'Starts the workflow when a call ends, a campaign completes or another calling event happens',
		defaults: { name: 'Campaign Calling Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// execute() answers: the sender gets its 200 only once the execution exists and recorded the event.
				responseMode: 'responseNode',
				path: 'webhook',
			},
		],
		properties: [
			{
				// The service cannot remove modules; across n8n's restarts a listen keeps only what an activation stored.
				displayName: 'Publishing this workflow (n8n 1.x: activating it) and "Listen for test event" register one webhook module per selected event at the service, which keeps it after you unpublish; only your provider can remove it. To see an item without registering anything, pin <a href="https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling/blob/main/docs/trigger.md#seeing-an-item-without-registering-anything" target="_blank">the sample event</a> with "set mock data" in the output panel.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				// The name n8n's UX guidelines give a trigger's events, and one its node panel lists them by.
				displayName: 'Trigger On',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['call.ended'],
				description: 'The events that start this workflow',
				options: EVENT_TYPES.map(({ group, name, value, description }) => ({
					name: `${capitalized(group)}: ${name.replace(new RegExp(`^${capitalized(group)} `), '')}`,
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
						description: 'Whether each item also carries the delivery\'s HTTP headers (under "headers"), without this node\'s secret. An event that has its own "headers" field keeps it, and its item then carries no delivery headers.',
					},
					{
						displayName: 'Ignore Repeats',
						name: 'ignoreRepeats',
						type: 'boolean',
						// n8n's lint asks for a literal here; IGNORE_REPEATS_DEFAULT is what the code reads when the option is absent.
						default: true,
						description: `Whether an event this trigger already received is acknowledged without starting the workflow again. The service resends an event whose answer is late, as when n8n's executions wait for a free slot. The last ${REMEMBERED_KEYS.toLocaleString('en-US')} events are remembered.`,
					},
					{
						displayName: 'Repeat Key',
						name: 'repeatKey',
						type: 'string',
						default: '',
						placeholder: 'e.g. data.call_id',
						description: 'Used with \'Ignore Repeats\': the dot path of the field that identifies an event, such as data.call_id or event_id. Empty compares whole events; set it before you publish a change, so that an event the service sends through an old and a new module runs once. An event without this field is never treated as a repeat.',
					},
					...deliveryLimitProperties.map((property) => ({
						...property,
						description: `${property.description?.replace(/\.$/, '')}. A change applies when you publish again (n8n 1.x: activate), which registers new modules; the earlier ones stay at the service, and their deliveries run for their retry window, then are refused.`,
					})),
				],
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await modulesExist.call(this, thisTriggerKey.call(this));
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await registerModules.call(this, thisTriggerKey.call(this));
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await reportModulesKept.call(this, thisTriggerKey.call(this));
			},
		},
	};

	/** Answers at once only a delivery that starts nothing; execute() answers the others. */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const [request, response] = [this.getRequestObject(), this.getResponseObject()];
		const triggerKey = thisTriggerKey.call(this);
		const accepted = await acceptedModule.call(this, triggerKey);
		if (accepted === undefined) return refuse(response, 401, 'Unauthorized');
		const delivery = parseDelivery(request);
		if (!delivery.ok) return refuse(response, delivery.statusCode, delivery.message);
		const { events, keyPath, includeHeaders } = deliveryParameters.call(this);
		const selected = keyedEvents(delivery.entries, request, events, keyPath);
		const claim = await claimEvents(triggerKey, selected.map(({ key }) => key), response, accepted.module);
		if (claim === HUNG_UP) return { noWebhookResponse: true };
		const toRun = selected.filter((_, index) => claim[index]);
		const repeats = keyPath ? selected.length - toRun.length : undefined;
		if (toRun.length === 0) return { webhookResponse: acknowledgement(delivery.entries.length, 0, repeats) };
		const headers = includeHeaders ? withoutSecret(request.headers) : undefined;
		return { workflowData: [handoverItems(toRun, headers, { received: delivery.entries.length, repeats, modules: accepted.records })] };
	}

	/** Runs as the execution's first node: records the events, drops the repeats, then answers the delivery. */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const handovers = items.map((item) => readHandover(item.json));
		// Only events webhook() looked for repeats among carry a key.
		const triggerKey = thisTriggerKey.call(this);
		const isRepeat = await findRepeats.call(this, triggerKey, handovers.map((handover) => handover?.key));
		const fresh = items.flatMap((item, index) => {
			if (isRepeat[index]) return [];
			const json = { ...item.json };
			delete json[HANDOVER_FIELD];
			return [{ json, pairedItem: { item: index } }];
		});
		// Pinned data and manual runs carry no handover: no sender waits for an answer.
		const [handover] = handovers;
		if (handover?.modules !== undefined) keepRecordsInExecution.call(this, triggerKey, handover.modules);
		if (handover !== undefined) {
			const repeated = handover.repeats === undefined ? undefined : handover.repeats + isRepeat.filter(Boolean).length;
			this.sendResponse({ body: acknowledgement(handover.received, fresh.length, repeated), headers: {}, statusCode: 200 });
		}
		return [fresh];
	}
}
