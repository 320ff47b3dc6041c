import { jsonParse } from 'n8n-workflow';

import type { HttpAnswer } from './retry';
import { isPlainObject } from '../validation';
import { headerValue } from './retry';

/**
 * How an endpoint frames its answer (service spec, "Endpoints"):
 * - `envelope`: HTTP 200 `{ status, message, data }`; `status: "error"` is a failure. Resolves to
 *   `data` as it came (the spec does not show it for Add Contacts).
 * - a `DataShape`: the envelope, whose `data` must be as the shape says.
 * - `record`: a bare JSON object (the module endpoints). Resolves to the object.
 * - `passThrough`: the body is not documented (Update Campaign). An error envelope still fails;
 *   anything else resolves to the body itself.
 */
export type AnswerShape = 'envelope' | DataShape | 'record' | 'passThrough';

/**
 * An envelope whose `data` is one JSON object (`record`), or a list of JSON objects (`list`; no
 * `data`, or `null`, is an empty list). `names` says what it holds, for errors: "a contact record".
 */
export interface DataShape {
	data: 'record' | 'list';
	names: string;
}

export type ParsedBody = { kind: 'json'; value: unknown } | { kind: 'empty' } | { kind: 'invalid'; text: string };

export interface Envelope {
	status: string;
	message: string;
	data: unknown;
}

/** The failures an answer can be; each names the operation and item it belongs to. */
export interface AnswerFailures {
	httpStatus(statusCode: number, body: ParsedBody): Error;
	redirect(statusCode: number, location: string | undefined): Error;
	envelope(envelope: Envelope): Error;
	api(reason: string): Error;
}

/**
 * Applies the service's answer conventions: a redirect, a non-2xx status, a body that is not JSON,
 * an error envelope or an answer not in the endpoint's shape is a failure; anything else resolves
 * as `shape` says.
 */
export function interpretAnswer(answer: HttpAnswer, shape: AnswerShape, failure: AnswerFailures): unknown {
	if (answer.statusCode >= 300 && answer.statusCode < 400) {
		throw failure.redirect(answer.statusCode, headerValue(answer.headers, 'location'));
	}
	const body = parseBody(answer.body);
	if (answer.statusCode < 200 || answer.statusCode >= 300) {
		throw failure.httpStatus(answer.statusCode, body);
	}
	if (body.kind === 'invalid') {
		throw failure.api('the service answered with something that is not JSON');
	}
	if (body.kind === 'empty') {
		if (shape === 'passThrough') return {};
		throw failure.api('the service answered with an empty body');
	}

	const value = body.value;
	const envelope = asEnvelope(value);
	if (envelope && envelope.status.toLowerCase() === 'error') {
		throw failure.envelope(envelope);
	}

	if (shape === 'record') {
		if (!isPlainObject(value)) throw failure.api('the answer is not a JSON object');
		return value;
	}
	if (shape === 'passThrough') return value;
	if (!envelope) {
		throw failure.api('the answer is not the service\'s {status, message, data} envelope');
	}
	if (shape === 'envelope') return envelope.data;
	const wrong = shapeMismatch(envelope.data, shape);
	if (wrong !== undefined) throw failure.api(`the service answered without ${shape.names} (${wrong})`);
	return shape.data === 'list' ? (envelope.data ?? []) : envelope.data;
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

const NOT_JSON = Symbol('not JSON');

function parseBody(body: unknown): ParsedBody {
	if (body === undefined || body === null || body === '') return { kind: 'empty' };
	if (typeof body !== 'string') return { kind: 'json', value: body };
	const text = body.trim();
	if (text === '') return { kind: 'empty' };
	const value = jsonParse<unknown>(text, { fallbackValue: NOT_JSON });
	return value === NOT_JSON ? { kind: 'invalid', text } : { kind: 'json', value };
}

function asEnvelope(value: unknown): Envelope | undefined {
	if (!isPlainObject(value) || typeof value.status !== 'string') return undefined;
	return {
		status: value.status,
		message: typeof value.message === 'string' ? value.message : '',
		data: value.data,
	};
}
