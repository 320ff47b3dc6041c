import type { IDataObject, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { isPlainObject } from '../shared/validation';
import { EVENT_TYPE_VALUES } from '../shared/vocabulary';
import { ignoresRepeats, repeatKeyPath, selectedEvents } from './parameters';
import { keySources, repeatKeyHash } from './repeats';

/** Header carrying the secret of the module that sent a delivery (registrations.ts keeps only its verifier). */
export const SECRET_HEADER = 'x-campaign-calling-secret';
/** Header naming the event type a module was registered for, for bodies without `event_type`. */
export const EVENT_HEADER = 'x-campaign-calling-event';

/** Deliveries larger than this are refused; call transcripts are far smaller. */
const MAX_BODY_BYTES = 1024 * 1024;

export function withoutSecret(headers: Record<string, unknown>): IDataObject {
	const copy: IDataObject = {};
	for (const [name, value] of Object.entries(headers)) {
		if (name.toLowerCase() !== SECRET_HEADER) copy[name] = value as IDataObject[string];
	}
	return copy;
}

interface DeliveryRequest {
	headers: Record<string, string | string[] | undefined>;
	body?: unknown;
	rawBody?: { length: number; toString(encoding: 'utf8'): string };
}

export type ParsedDelivery =
	| { ok: true; entries: IDataObject[] }
	| { ok: false; statusCode: number; message: string };

/** The one media type n8n parses as JSON for a webhook node (ARCHITECTURE.md, "n8n underneath the trigger"). */
const JSON_MEDIA_TYPE = 'application/json';

/** Checks a delivery's type, size and JSON; yields one entry per object of the body. */
export function parseDelivery(request: DeliveryRequest): ParsedDelivery {
	const contentType = String(request.headers['content-type'] ?? '');
	// Read as n8n reads it (parseContentType): a space before the `;` makes a type n8n does not parse.
	const mediaType = contentType.split(';')[0].toLowerCase();
	if (mediaType !== JSON_MEDIA_TYPE) {
		const sent = mediaType === '' ? 'no Content-Type' : `Content-Type ${mediaType}`;
		return {
			ok: false,
			statusCode: 415,
			message: `The delivery came with ${sent}, whose body n8n does not read as JSON: send the event as a JSON object with Content-Type: application/json`,
		};
	}
	const declaredLength = Number(request.headers['content-length'] ?? 0);
	const size = request.rawBody?.length ?? declaredLength;
	if (size > MAX_BODY_BYTES || declaredLength > MAX_BODY_BYTES) {
		return { ok: false, statusCode: 413, message: `The event is larger than ${MAX_BODY_BYTES} bytes` };
	}

	let body: unknown = request.body;
	const parsedByN8n = Array.isArray(body) || (isPlainObject(body) && Object.keys(body).length > 0);
	// n8n leaves an empty body when it could not parse one; the raw bytes tell a malformed body apart.
	if (!parsedByN8n && request.rawBody && request.rawBody.length > 0) {
		// Malformed JSON becomes null, which is refused below as the JSON text null is.
		body = jsonParse<unknown>(request.rawBody.toString('utf8'), { fallbackValue: null });
	}
	const entries = Array.isArray(body) ? body : [body];
	// null (also malformed JSON) and undefined are refused here too: neither is a plain object.
	if (!entries.every((entry) => isPlainObject(entry))) {
		return { ok: false, statusCode: 400, message: 'The body must be a JSON object or an array of objects' };
	}
	return { ok: true, entries: entries as IDataObject[] };
}

/** What webhook() leaves on each item for execute() to answer the delivery; execute() removes it. */
export const HANDOVER_FIELD = '__campaignCallingDelivery';

export interface Handover {
	/** Events in the delivery's body. */
	received: number;
	/** Events webhook() already knew as repeats (and so passed on no item). */
	repeats: number;
	/** The event's repeat key, when Ignore Repeats is on and the event has one. */
	key?: string;
}

export function readHandover(json: IDataObject): Handover | undefined {
	const value = json[HANDOVER_FIELD];
	if (!isPlainObject(value)) return undefined;
	const { received, repeats, key } = value;
	if (typeof received !== 'number' || typeof repeats !== 'number') return undefined;
	return { received, repeats, key: typeof key === 'string' ? key : undefined };
}

export function refuse(response: ReturnType<IWebhookFunctions['getResponseObject']>, statusCode: number, message: string): IWebhookResponseData {
	response.status(statusCode).json({ status: 'error', message });
	return { noWebhookResponse: true };
}

export function acknowledgement(received: number, accepted: number, repeats: number | undefined): IDataObject {
	const answer: IDataObject = { status: 'ok', received, accepted };
	if (repeats !== undefined) answer.repeats = repeats;
	return answer;
}

export interface SelectedEvent {
	entry: IDataObject;
	eventType: string;
	key: string | undefined;
}

/** The delivery's events of the selected types, each with its repeat key when Ignore Repeats is on. */
export function selectEvents(this: IWebhookFunctions, entries: IDataObject[], options: IDataObject): SelectedEvent[] {
	const request = this.getRequestObject();
	const registeredEvent = request.headers[EVENT_HEADER];
	const fallbackEvent = typeof registeredEvent === 'string' && EVENT_TYPE_VALUES.has(registeredEvent) ? registeredEvent : undefined;
	const events = new Set(selectedEvents.call(this));
	const checkRepeats = ignoresRepeats.call(this, options);
	const path = checkRepeats ? repeatKeyPath.call(this, options) : [];
	const keySource = checkRepeats ? keySources(entries, request.rawBody?.toString('utf8')) : [];
	return entries.flatMap((entry, index) => {
		const eventType = typeof entry.event_type === 'string' ? entry.event_type : fallbackEvent;
		// Modules of events no longer selected still deliver here; they are acknowledged and dropped.
		if (eventType === undefined || !events.has(eventType)) return [];
		return [{ entry, eventType, key: checkRepeats ? repeatKeyHash(keySource[index], path, eventType) : undefined }];
	});
}

/** The items webhook() hands to n8n, each carrying what execute() needs to answer the delivery. */
export function handoverItems(this: IWebhookFunctions, events: SelectedEvent[], options: IDataObject, delivery: Handover): INodeExecutionData[] {
	const headers = options.includeHeaders === true ? withoutSecret(this.getRequestObject().headers) : undefined;
	return events.map(({ entry, eventType, key }) => {
		const json: IDataObject = { ...entry, event_type: eventType };
		// The event's own fields come first: an event with a field of that name keeps it, without the headers.
		if (headers && !Object.prototype.hasOwnProperty.call(entry, 'headers')) json.headers = headers;
		json[HANDOVER_FIELD] = { ...delivery, ...(key !== undefined ? { key } : {}) };
		return { json };
	});
}
