import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { HttpAnswer } from './retry';
import { networkErrorCode } from './retry';

/**
 * How an endpoint frames its answer (service spec, "Endpoints"):
 * - `envelope`: HTTP 200 `{ status, message, data }`; `status: "error"` is a failure. Resolves to `data`.
 * - `record`: a bare JSON object (the module endpoints). Resolves to the object.
 * - `passThrough`: the body is not documented (Update Campaign). An error envelope still fails;
 *   anything else resolves to the body itself.
 */
export type AnswerShape = 'envelope' | 'record' | 'passThrough';

/** What every error of one request names: the operation, the input item, and what the user can check. */
export interface FailureContext {
	/** The user-facing name of the operation, used in every error message ("Add Contacts"). */
	operation: string;
	/** The input item this request serves, so errors point at it. */
	itemIndex?: number;
	/** What the user can check when the service answers `status: "error"`. */
	errorHint?: string;
}

/** Removes every occurrence of the API key from a text, so no error or output can carry it. */
export function redactSecret(text: string, secret: string | undefined): string {
	if (!secret || secret.length < 4) return text;
	return text.split(secret).join('[redacted]');
}

/**
 * Applies the service's answer conventions: a non-2xx status, a body that is not JSON, an error
 * envelope or an answer not in the endpoint's shape is a failure; anything else resolves as `shape` says.
 */
export function interpretAnswer(answer: HttpAnswer, shape: AnswerShape, failure: ServiceFailureFactory): unknown {
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

	switch (shape) {
		case 'envelope':
			if (!envelope) {
				throw failure.api('the answer is not the service\'s {status, message, data} envelope');
			}
			return envelope.data;
		case 'record':
			if (!isPlainObject(value)) {
				throw failure.api('the answer is not a JSON object');
			}
			return value;
		case 'passThrough':
			return value;
	}
}

type ParsedBody = { kind: 'json'; value: unknown } | { kind: 'empty' } | { kind: 'invalid'; text: string };

function parseBody(body: unknown): ParsedBody {
	if (body === undefined || body === null || body === '') return { kind: 'empty' };
	if (typeof body !== 'string') return { kind: 'json', value: body };
	const text = body.trim();
	if (text === '') return { kind: 'empty' };
	try {
		return { kind: 'json', value: JSON.parse(text) };
	} catch {
		return { kind: 'invalid', text };
	}
}

export interface Envelope {
	status: string;
	message: string;
	data: unknown;
}

function asEnvelope(value: unknown): Envelope | undefined {
	if (!isPlainObject(value) || typeof value.status !== 'string') return undefined;
	return {
		status: value.status,
		message: typeof value.message === 'string' ? value.message : '',
		data: value.data,
	};
}

export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const HTTP_STATUS_TEXT: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	408: 'Request Timeout',
	409: 'Conflict',
	413: 'Payload Too Large',
	422: 'Unprocessable Entity',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

/** Builds the errors of one request: clean messages, the item index, and never the API key. */
export class ServiceFailureFactory {
	private readonly node: INode;

	private readonly request: FailureContext;

	private readonly apiKey: string;

	private readonly baseUrl: string;

	constructor(node: INode, request: FailureContext, apiKey: string, baseUrl: string) {
		this.node = node;
		this.request = request;
		this.apiKey = apiKey;
		this.baseUrl = baseUrl;
	}

	envelope(envelope: Envelope): NodeApiError {
		const said = [envelope.message, typeof envelope.data === 'string' ? envelope.data : '']
			.map((part) => part.trim())
			.filter((part, index, parts) => part !== '' && parts.indexOf(part) === index)
			.join(': ');
		return this.api(
			`the service answered status "error"${said ? ` (${truncate(said, 300)})` : ''}`,
			this.request.errorHint,
		);
	}

	httpStatus(statusCode: number, body: ParsedBody): NodeApiError {
		const statusText = HTTP_STATUS_TEXT[statusCode] ? ` ${HTTP_STATUS_TEXT[statusCode]}` : '';
		let detail = '';
		if (body.kind === 'json' && isPlainObject(body.value)) {
			const said = body.value.message ?? body.value.error ?? body.value.data;
			if (typeof said === 'string' && said.trim() !== '') detail = ` (${truncate(said.trim(), 300)})`;
		} else if (body.kind === 'invalid' && /^<(!doctype|html)/i.test(body.text)) {
			detail = ' (an HTML error page)';
		}
		let hint: string | undefined;
		if (statusCode === 401 || statusCode === 403) {
			hint = 'Check the API key in the Campaign Calling credential, and that the record belongs to the company of that key.';
		} else if (statusCode === 429) {
			hint = 'The service is rate limiting. Wait a moment, or lower the batch size or the number of items per run.';
		} else if (statusCode >= 500) {
			hint = 'The service had a problem. Try again later; reads are retried automatically.';
		}
		return this.api(`the service answered HTTP ${statusCode}${statusText}${detail}`, hint, statusCode);
	}

	network(error: unknown, attempts: number): NodeApiError {
		const code = networkErrorCode(error);
		const reason =
			code === 'ECONNREFUSED'
				? 'the connection was refused'
				: code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT'
					? 'the service did not answer in time'
					: code === 'ECONNRESET' || code === 'EPIPE'
						? 'the connection was dropped before an answer came'
						: code === 'ENOTFOUND' || code === 'EAI_AGAIN'
							? 'its host name could not be resolved'
							: 'the request did not complete';
		const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
		return this.api(
			`could not reach the service at ${this.origin()}: ${reason}${tries}`,
			'Check the Base URL in the Campaign Calling credential and that the service is reachable from n8n.',
		);
	}

	api(reason: string, hint?: string, httpCode?: number): NodeApiError {
		const message = redactSecret(`${this.request.operation} failed: ${reason}`, this.apiKey);
		const description = hint === undefined ? undefined : redactSecret(hint, this.apiKey);
		// A plain object, not the HTTP library's error: that one carries the request headers.
		const cleanResponse: JsonObject = { message };
		if (description !== undefined) cleanResponse.description = description;
		if (httpCode !== undefined) cleanResponse.httpCode = String(httpCode);
		return new NodeApiError(this.node, cleanResponse, {
			message,
			description,
			httpCode: httpCode === undefined ? undefined : String(httpCode),
			itemIndex: this.request.itemIndex,
		});
	}

	private origin(): string {
		try {
			return new URL(this.baseUrl).origin;
		} catch {
			return 'the configured Base URL';
		}
	}
}

function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}
