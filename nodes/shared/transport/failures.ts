import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { AnswerFailures, Envelope, ParsedBody } from './envelope';
import { networkFailureFacts } from './retry';
import { noAnswerCause, truncate } from './rootCauses';
import { isPlainObject } from '../validation';

/** What every error of one request names: the operation, the input item, and what the user can check. */
export interface FailureContext {
	/** The user-facing name of the operation, used in every error message ("Add to Campaign"). */
	operation: string;
	/** The input item this request serves, so errors point at it. */
	itemIndex?: number;
	/** What the user can check when the service answers `status: "error"`. */
	errorHint?: string;
	/**
	 * For a write: how to find out whether it was carried out, told when it may have reached the
	 * service without an answer saying so (a 5xx, a dropped or timed-out connection).
	 */
	checkBeforeRepeating?: string;
}

/** How the request was sent, as far as its errors need it. */
export interface SendingContext {
	/** Not a GET: repeating it blindly may do it twice. */
	isWrite: boolean;
	timeoutMs: number;
}

/** Said of a write that may have been carried out, when its endpoint gives no way to check. */
const CHECK_BEFORE_REPEATING = 'Check at the service whether it was carried out before you repeat it.';

const HTTP_STATUS_TEXT: Record<number, string> = {
	301: 'Moved Permanently',
	302: 'Found',
	303: 'See Other',
	307: 'Temporary Redirect',
	308: 'Permanent Redirect',
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

/** Removes every occurrence of the API key from a text, so no error or output can carry it. */
export function redactSecret(text: string, secret: string | undefined): string {
	if (!secret || secret.length < 4) return text;
	return text.split(secret).join('[redacted]');
}

/** Builds the errors of one request: clean messages, the item index, and never the API key. */
export class ServiceFailureFactory implements AnswerFailures {
	private readonly node: INode;

	private readonly request: FailureContext;

	private readonly apiKey: string;

	private readonly baseUrl: string;

	private readonly sending: SendingContext;

	constructor(node: INode, request: FailureContext, apiKey: string, baseUrl: string, sending: SendingContext) {
		this.node = node;
		this.request = request;
		this.apiKey = apiKey;
		this.baseUrl = baseUrl;
		this.sending = sending;
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
		} else if (statusCode === 407) {
			hint = 'A proxy between n8n and the service asks for authentication: add its user and password to n8n\'s HTTP_PROXY / HTTPS_PROXY setting.';
		} else if ((statusCode >= 500 || statusCode === 408) && this.sending.isWrite) {
			hint = `The service had a problem, and may have carried out this request before it failed. ${this.checkBeforeRepeating()}`;
		} else if (statusCode >= 500) {
			hint = 'The service had a problem. Try again later; reads are retried automatically.';
		}
		return this.api(`the service answered ${this.status(statusCode)}${detail}`, hint, statusCode);
	}

	/**
	 * A redirect is not followed (n8n would send the key along to wherever it points): it fails,
	 * naming where it pointed by origin only, as its path or query could carry anything.
	 */
	redirect(statusCode: number, location: string | undefined): NodeApiError {
		let target = 'no address';
		if (location !== undefined && location.trim() !== '') {
			try {
				target = new URL(location.trim(), this.baseUrl).origin;
			} catch {
				target = 'an address that is not valid';
			}
		}
		return this.api(
			`the service answered ${this.status(statusCode)}, a redirect to ${target}, which the node does not follow`,
			'A followed redirect would carry the API key to another address. Enter the address the service answers at as the Base URL of the Campaign Calling credential.',
			statusCode,
		);
	}

	/** A request that got no answer: names the cause and what to do; for a write, whether it may have been done. */
	network(error: unknown, attempts: number): NodeApiError {
		const { reason, hint } = noAnswerCause(networkFailureFacts(error), {
			baseUrl: this.baseUrl,
			isWrite: this.sending.isWrite,
			timeoutMs: this.sending.timeoutMs,
			checkBeforeRepeating: this.checkBeforeRepeating(),
		});
		return this.api(`${reason}${attempts > 1 ? ` (${attempts} attempts)` : ''}`, hint);
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

	private status(statusCode: number): string {
		return `HTTP ${statusCode}${HTTP_STATUS_TEXT[statusCode] ? ` ${HTTP_STATUS_TEXT[statusCode]}` : ''}`;
	}

	private checkBeforeRepeating(): string {
		return this.request.checkBeforeRepeating ?? CHECK_BEFORE_REPEATING;
	}
}
