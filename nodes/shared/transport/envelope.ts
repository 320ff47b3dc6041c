import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { HttpAnswer, NetworkFailureFacts } from './retry';
import { networkFailureFacts } from './retry';

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

const MAY_HAVE_BEEN_CARRIED_OUT = 'the service may have carried it out';

/** Said of a write that may have been carried out, when its endpoint gives no way to check. */
const CHECK_BEFORE_REPEATING = 'Check at the service whether it was carried out before you repeat it.';

const NOTHING_SENT = 'Nothing was sent to the service.';

/** TLS error codes (Node's and OpenSSL's) in words. */
const TLS_REASONS: Record<string, string> = {
	CERT_HAS_EXPIRED: 'its certificate has expired',
	CERT_NOT_YET_VALID: 'its certificate is not valid yet',
	DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed, not issued by an authority n8n trusts',
	SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate n8n does not trust',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate was issued by an authority n8n does not know',
	UNABLE_TO_GET_ISSUER_CERT: 'its certificate was issued by an authority n8n does not know',
	UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate was issued by an authority n8n does not know',
	CERT_REVOKED: 'its certificate has been revoked',
	ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
	EPROTO: 'it did not answer in TLS (is the port an http:// one?)',
	ERR_SSL_WRONG_VERSION_NUMBER: 'it did not answer in TLS (is the port an http:// one?)',
};

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

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
		} else if (statusCode === 407) {
			hint = 'A proxy between n8n and the service asks for authentication: add its user and password to n8n\'s HTTP_PROXY / HTTPS_PROXY setting.';
		} else if ((statusCode >= 500 || statusCode === 408) && this.sending.isWrite) {
			hint = `The service had a problem, and may have carried out this request before it failed. ${this.checkBeforeRepeating()}`;
		} else if (statusCode >= 500) {
			hint = 'The service had a problem. Try again later; reads are retried automatically.';
		}
		return this.api(`the service answered HTTP ${statusCode}${statusText}${detail}`, hint, statusCode);
	}

	/** A request that got no answer: names the cause and what to do; for a write, whether it may have been done. */
	network(error: unknown, attempts: number): NodeApiError {
		const facts = networkFailureFacts(error);
		const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
		const { reason, hint } = this.networkCause(facts);
		return this.api(`${reason}${tries}`, hint);
	}

	private networkCause(facts: NetworkFailureFacts): { reason: string; hint: string } {
		const origin = this.origin();
		const code = facts.code ?? '';
		const maybeDone = this.sending.isWrite;
		if (facts.ssrfBlocked) {
			const { ip, hostname } = facts.ssrfBlocked;
			const what = ip
				? `it resolves to ${ip}, an address in n8n's blocked ranges`
				: `the host name ${hostname ?? this.host()} is on n8n's list of blocked host names`;
			return {
				reason: `n8n's SSRF protection blocked the request to ${origin} (${what})`,
				hint: `${NOTHING_SENT} ${this.ssrfAllowance()} Otherwise use the service's public address as the Base URL.`,
			};
		}
		if (TLS_REASONS[code] || /CERT|SSL|TLS/.test(code)) {
			return {
				reason: `the TLS connection to ${origin} failed: ${TLS_REASONS[code] ?? 'n8n did not accept its certificate'} (${code})`,
				hint:
					`${NOTHING_SENT} Check the Base URL's host name and scheme. The service's certificate must be valid and trusted; ` +
					'if your provider uses a private certificate authority, give n8n its certificate with NODE_EXTRA_CA_CERTS.',
			};
		}
		if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
			const hostname = facts.hostname ?? this.host();
			const temporary = code === 'EAI_AGAIN';
			const reason = temporary
				? `the host name ${hostname} could not be looked up just now: n8n's DNS server did not answer`
				: `the host name ${hostname} was not found: the DNS has no address for it`;
			const hint = this.isOtherThanBaseUrl(hostname, undefined)
				? `${NOTHING_SENT} That is not the Base URL's host but the proxy n8n is set to use: check n8n's HTTP_PROXY / HTTPS_PROXY setting (${code}).`
				: temporary
					? `${NOTHING_SENT} Check n8n's DNS settings and its network (${code}).`
					: `${NOTHING_SENT} Check the spelling of the Base URL's host name, and that n8n's DNS can resolve it (${code}).`;
			return { reason, hint };
		}
		if (code === 'ECONNREFUSED') {
			const target = facts.address && facts.port ? `${facts.address}:${facts.port}` : origin;
			if (this.isOtherThanBaseUrl(facts.address, facts.port)) {
				return {
					reason: `the proxy n8n is set to use, at ${target}, refused the connection`,
					hint: `${NOTHING_SENT} Check that the proxy runs and n8n's HTTP_PROXY / HTTPS_PROXY setting, or list the service's host in NO_PROXY to reach it directly.`,
				};
			}
			return {
				reason: `the connection to ${target} was refused: nothing listens there`,
				hint: `${NOTHING_SENT} Check the Base URL's host and port, and that the service is running.`,
			};
		}
		if (TIMEOUT_CODES.has(code)) {
			const seconds = Math.round(this.sending.timeoutMs / 1000);
			return maybeDone
				? {
						reason: `no answer from ${origin} within ${seconds} seconds; ${MAY_HAVE_BEEN_CARRIED_OUT}`,
						hint: `${this.checkBeforeRepeating()} If the service is slow, raise Request Options → Timeout.`,
					}
				: {
						reason: `no answer from ${origin} within ${seconds} seconds`,
						hint: 'If the service is slow, raise Request Options → Timeout; otherwise check that it is reachable from n8n.',
					};
		}
		if (DROPPED_CODES.has(code)) {
			return maybeDone
				? {
						reason: `the connection to ${origin} was dropped before an answer came; ${MAY_HAVE_BEEN_CARRIED_OUT}`,
						hint: this.checkBeforeRepeating(),
					}
				: {
						reason: `the connection to ${origin} was dropped before an answer came`,
						hint: 'The service or something between n8n and it (a proxy, a load balancer) closed the connection. Try again later; reads are retried automatically.',
					};
		}
		// The code goes into the description: n8n replaces a message that holds a common code with its own text.
		const reported = truncate(code || facts.detail || 'no reason given', 200);
		return {
			reason: `could not reach ${origin}: the request did not complete${maybeDone ? `; ${MAY_HAVE_BEEN_CARRIED_OUT}` : ''}`,
			hint:
				`n8n's HTTP client reported: ${reported}. Check the Base URL in the Campaign Calling credential and that the service is reachable from n8n.` +
				(maybeDone ? ` ${this.checkBeforeRepeating()}` : ''),
		};
	}

	/** The setting an n8n administrator would change to let the Base URL's host through. */
	private ssrfAllowance(): string {
		const host = this.host().replace(/^\[|\]$/g, '');
		if (/^[\d.]+$/.test(host) || host.includes(':')) {
			const range = host.includes(':') ? `${host}/128` : `${host}/32`;
			return `An n8n administrator can allow this address with N8N_SSRF_ALLOWED_IP_RANGES (for example ${range}), or a host name for it with N8N_SSRF_ALLOWED_HOSTNAMES.`;
		}
		return `An n8n administrator can allow this host with N8N_SSRF_ALLOWED_HOSTNAMES (for example ${host}), or its addresses with N8N_SSRF_ALLOWED_IP_RANGES.`;
	}

	private checkBeforeRepeating(): string {
		return this.request.checkBeforeRepeating ?? CHECK_BEFORE_REPEATING;
	}

	/**
	 * Whether a failed connection or lookup was for another place than the Base URL: the proxy n8n
	 * sends its requests through. Told by the port, and by the address when the Base URL gives one.
	 */
	private isOtherThanBaseUrl(hostOrAddress: string | undefined, port: number | undefined): boolean {
		let base: URL;
		try {
			base = new URL(this.baseUrl);
		} catch {
			return false;
		}
		const basePort = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
		if (port !== undefined && port !== basePort) return true;
		const baseHost = base.hostname.replace(/^\[|\]$/g, '');
		const baseIsAddress = /^[\d.]+$|:/.test(baseHost);
		if (hostOrAddress === undefined) return false;
		if (port === undefined) return hostOrAddress.toLowerCase() !== baseHost.toLowerCase();
		return baseIsAddress && hostOrAddress !== baseHost;
	}

	private host(): string {
		try {
			return new URL(this.baseUrl).hostname;
		} catch {
			return 'the service\'s host';
		}
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
