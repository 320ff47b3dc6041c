import type { IDataObject } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

/** What one attempt got back from n8n's HTTP helper (full response, status errors not thrown). */
export interface HttpAnswer { statusCode: number; headers: Record<string, unknown>; body: unknown }

/**
 * How an endpoint frames its answer (docs/service-interface.md): `envelope` resolves to `{status, message, data}`'s data; a `DataShape`
 * asks that data be a record or a list of them (none is an empty list); `record` is a bare object; `passThrough` any body but an error envelope.
 */
export type AnswerShape = 'envelope' | DataShape | 'record' | 'passThrough';
export interface DataShape { data: 'record' | 'list'; names: string }

/** What a failed answer says, for its error; the service's own words (`said`) may hold the key the error redacts. */
export type AnswerFailure =
	| { kind: 'redirect'; statusCode: number; location?: string }
	| { kind: 'status'; statusCode: number; said?: string }
	| { kind: 'envelope'; said: string }
	| { kind: 'unexpected'; reason: string };

export type Interpreted = { ok: true; value: unknown } | { ok: false; failure: AnswerFailure };

const fails = (failure: AnswerFailure): Interpreted => ({ ok: false, failure });

/** A redirect, a non-2xx status, a body that is not JSON, an error envelope or an answer not in `shape` fails. */
export function interpretAnswer(answer: HttpAnswer, shape: AnswerShape): Interpreted {
	const { statusCode } = answer;
	if (statusCode >= 300 && statusCode < 400) return fails({ kind: 'redirect', statusCode, location: headerValue(answer.headers, 'location') });
	const body = parseBody(answer.body);
	if (statusCode < 200 || statusCode >= 400) return fails({ kind: 'status', statusCode, said: statusDetail(body) });
	if (body === NOT_JSON || body === HTML) return fails({ kind: 'unexpected', reason: 'the service answered with something that is not JSON' });
	if (body === EMPTY) {
		return shape === 'passThrough' ? { ok: true, value: {} } : fails({ kind: 'unexpected', reason: 'the service answered with an empty body' });
	}

	const envelope = isPlainObject(body) && typeof body.status === 'string' ? body : undefined;
	if (envelope && String(envelope.status).toLowerCase() === 'error') {
		const said = [envelope.message, envelope.data]
			.map((part) => (typeof part === 'string' ? part.trim() : ''))
			.filter((part, index, parts) => part !== '' && parts.indexOf(part) === index);
		return fails({ kind: 'envelope', said: said.join(': ') });
	}
	if (shape === 'record') {
		return isPlainObject(body) ? { ok: true, value: body } : fails({ kind: 'unexpected', reason: 'the answer is not a JSON object' });
	}
	if (shape === 'passThrough') return { ok: true, value: body };
	if (!envelope) return fails({ kind: 'unexpected', reason: 'the answer is not the service\'s {status, message, data} envelope' });
	if (shape === 'envelope') return { ok: true, value: envelope.data };
	const wrong = shapeMismatch(envelope.data, shape);
	if (wrong !== undefined) return fails({ kind: 'unexpected', reason: `the service answered without ${shape.names} (${wrong})` });
	return { ok: true, value: shape.data === 'list' ? (envelope.data ?? []) : envelope.data };
}

/** What a non-2xx answer said: its JSON's message, or that it is an HTML error page. */
function statusDetail(body: unknown): string | undefined {
	if (body === HTML) return 'an HTML error page';
	if (!isPlainObject(body)) return undefined;
	const said = body.message ?? body.error ?? body.data;
	return typeof said === 'string' && said.trim() !== '' ? said.trim() : undefined;
}

/** How `data` differs from `shape`, in words, or undefined when it fits. */
function shapeMismatch(data: unknown, shape: DataShape): string | undefined {
	if (shape.data === 'record') return isPlainObject(data) ? undefined : `data was ${describe(data)}`;
	if (data === undefined || data === null) return undefined;
	if (!Array.isArray(data)) return `data was ${describe(data)}`;
	const position = data.findIndex((entry) => !isPlainObject(entry));
	return position === -1 ? undefined : `data held ${describe(data[position])} at position ${position + 1}`;
}

/** A value of an answer in a few words; never its content, which could be anything. */
function describe(value: unknown): string {
	if (value === undefined) return 'missing';
	if (value === null) return 'null';
	if (Array.isArray(value)) return `a list of ${value.length}`;
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

// Parsed here, not by validation.ts's parseJsonText: one call fewer out of the transport on every answer.
const NOT_JSON = Symbol('not JSON');
const HTML = Symbol('a web page');
const EMPTY = Symbol('empty');

/** The body as JSON, or what else it is: empty, a web page, or some other text. */
function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body === undefined || body === null ? EMPTY : body;
	const text = body.trim();
	if (text === '') return EMPTY;
	return /^<(!doctype|html)/i.test(text) ? HTML : jsonParse<unknown>(text, { fallbackValue: NOT_JSON });
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	const entry = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name);
	return entry === undefined ? undefined : String(Array.isArray(entry[1]) ? entry[1][0] : entry[1]);
}
