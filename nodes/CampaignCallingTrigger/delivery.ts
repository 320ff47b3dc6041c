import type { IDataObject } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { isPlainObject } from '../shared/transport';

/** Header carrying the secret of the module that sent a delivery (registrations.ts keeps only its verifier). */
export const SECRET_HEADER = 'x-campaign-calling-secret';
/** Header naming the event type a module was registered for, for bodies without `event_type`. */
export const EVENT_HEADER = 'x-campaign-calling-event';

/** Deliveries larger than this are refused; call transcripts are far smaller. */
const MAX_BODY_BYTES = 1024 * 1024;

export function withoutSecret(headers: Record<string, unknown>): IDataObject {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== SECRET_HEADER)) as IDataObject;
}

export interface DeliveryRequest {
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
		return { ok: false, statusCode: 415, message: `The delivery came with ${sent}, whose body n8n does not read as JSON: send the event as a JSON object with Content-Type: application/json` };
	}
	const declaredLength = Number(request.headers['content-length'] ?? 0);
	const size = request.rawBody?.length ?? declaredLength;
	if (size > MAX_BODY_BYTES || declaredLength > MAX_BODY_BYTES) {
		return { ok: false, statusCode: 413, message: `The event is larger than ${MAX_BODY_BYTES} bytes` };
	}

	let body: unknown = request.body;
	// n8n leaves an empty body when it could not parse one; the raw bytes tell a malformed body apart.
	const parsedByN8n = Array.isArray(body) || (typeof body === 'object' && body !== null && Object.keys(body).length > 0);
	if (!parsedByN8n && request.rawBody && request.rawBody.length > 0) {
		// Malformed JSON becomes null, which is refused below as the JSON text null is.
		body = jsonParse<unknown>(request.rawBody.toString('utf8'), { fallbackValue: null });
	}
	const entries = Array.isArray(body) ? body : [body];
	if (!entries.every(isPlainObject)) {
		return { ok: false, statusCode: 400, message: 'The body must be a JSON object or an array of objects' };
	}
	return { ok: true, entries: entries as IDataObject[] };
}

/** What webhook() leaves on each item for execute() to answer the delivery; execute() removes it. */
export const HANDOVER_FIELD = '__campaignCallingDelivery';
