import type { IDataObject, IHttpRequestMethods, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { AnswerFailure, AnswerShape } from './envelope';

/** One request to the service for an item: what is sent, and what its errors and tries need (here, below request.ts, so no import circles back). */
export interface ServiceRequest {
	/** The operation's title ("Add to Campaign"), which every error message starts with. */
	operation: string;
	itemIndex?: number;
	method: IHttpRequestMethods;
	/** Path below the base URL, with its own prefix (`/v1/...`, `/compaign/v1/...`, `/contacts/...`). */
	path: string;
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	answer: AnswerShape;
	/** What the user can check when the service answers `status: "error"`. */
	errorHint?: string;
	/** For a write: how to find out whether it was carried out, as it may have been without an answer. */
	repeatHint?: string;
	/** Request Options; without them, the defaults. */
	maxRetries?: number;
	timeoutMs?: number;
	/** Names a write within the run (`batch 0`): under Retry On Fail, a later try takes its recorded answer (request.ts, sentRecordEntry). */
	sendOnceAs?: string;
}

/**
 * A parameter or input value the service would refuse. Thrown while items are prepared, before
 * any request; the router turns it into a NodeOperationError that names the item.
 */
export class InvalidInputError extends Error {
	readonly hint: string | undefined;

	constructor(field: string, problem: string, hint?: string) {
		super(`${field} ${problem}`);
		this.name = 'InvalidInputError';
		this.hint = hint;
	}
}

/**
 * A refused input (an InvalidInputError, or another error) as n8n's error: the message names the item,
 * if any, and the hint becomes the description n8n shows under it.
 */
export function refusedInputError(node: INode, error: unknown, itemIndex?: number): NodeOperationError {
	const item = itemIndex === undefined ? '' : ` [item ${itemIndex}]`;
	return new NodeOperationError(node, `${(error as Error).message}${item}`, {
		itemIndex,
		description: error instanceof InvalidInputError ? error.hint : undefined,
	});
}

/** Where a request went, for its error: the Base URL, the key to redact, the timeout it had. */
interface Sent { baseUrl: string; apiKey: string; timeoutMs: number }

/** A request that got no answer: the error n8n's HTTP helper threw, after how many attempts. */
export type Failure = AnswerFailure | { kind: 'noAnswer'; error: unknown; attempts: number };

/** The links of the error n8n's HTTP helper threw: NodeApiError → the HTTP library's error → the socket's (`cause`, or `errorResponse` for what was no Error). */
export function errorChain(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	for (let link = error; chain.length < 6 && typeof link === 'object' && link !== null && !chain.includes(link as never); ) {
		const fields = link as Record<string, unknown>;
		chain.push(fields);
		link = fields.cause ?? fields.errorResponse;
	}
	return chain;
}

/** The socket, DNS or TLS code of a failure, from the errors' fields only: `code`, or `httpCode`, where n8n's NodeApiError files it (n8n 1.x keeps nothing else). */
export function errorCode(error: unknown): string | undefined {
	const isCode = (value: unknown): value is string => typeof value === 'string' && /^[A-Z][A-Z0-9_]+$/.test(value);
	return errorChain(error).flatMap((link) => [link.code, link.httpCode]).find(isCode);
}

/** Removes every occurrence of the API key from a text, so no error or output can carry it. */
export function redactSecret(text: string, secret: string | undefined): string {
	return secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}

const NOTHING_SENT = 'Nothing was sent to the service.';
const PROXY_SETTING = 'n8n\'s HTTP_PROXY / HTTPS_PROXY setting';
const UNKNOWN_AUTHORITY = 'its certificate was issued by an authority n8n does not know';
const NOT_TLS = 'it did not answer in TLS (is the port an http:// one?)';

/** TLS codes (Node's and OpenSSL's) in words; another code naming CERT, SSL or TLS is a certificate n8n refused. */
const TLS_REASONS: Record<string, string> = {
	CERT_HAS_EXPIRED: 'its certificate has expired',
	CERT_NOT_YET_VALID: 'its certificate is not valid yet',
	CERT_REVOKED: 'its certificate has been revoked',
	DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed, not issued by an authority n8n trusts',
	SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate n8n does not trust',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNKNOWN_AUTHORITY, UNABLE_TO_GET_ISSUER_CERT: UNKNOWN_AUTHORITY, UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNKNOWN_AUTHORITY,
	ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
	EPROTO: NOT_TLS, ERR_SSL_WRONG_VERSION_NUMBER: NOT_TLS,
};

export const TIMEOUT_CODES = ['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT'];
export const DROPPED_CODES = ['ECONNRESET', 'EPIPE'];
/** Node's codes for a request it refuses to build (a URL, header value or argument that fails its checks). */
const NOT_BUILT_CODES = ['ERR_INVALID_URL', 'ERR_UNESCAPED_CHARACTERS', 'ERR_INVALID_PROTOCOL', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_SOCKET_BAD_PORT', 'ERR_INVALID_CHAR', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_INVALID_HTTP_TOKEN'];

const HTTP_STATUS_TEXT: Record<number, string> = {
	301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
	400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 408: 'Request Timeout', 409: 'Conflict',
	413: 'Payload Too Large', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
	500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** Hints by HTTP status, for what a user can act on. */
const STATUS_HINTS: Record<number, string> = {
	401: 'Check the API key in the Campaign Calling credential, and that the record belongs to the company of that key.',
	407: `A proxy between n8n and the service asks for authentication: add its user and password to ${PROXY_SETTING}.`,
	429: 'The service is rate limiting. Wait a moment, or lower the batch size or the number of items per run.',
};
STATUS_HINTS[403] = STATUS_HINTS[401];

type Cause = [reason: string, hint?: string, httpCode?: number];

/** The one error of a failed request: a NodeApiError naming the operation and the item, with a hint, the API key
 * redacted. Built from its message, not from the HTTP library's error, whose headers carry the key. */
export function serviceError(node: INode, request: ServiceRequest, sent: Sent, failure: Failure): NodeApiError {
	const [reason, hint, httpCode] = causeOf(request, sent, failure);
	const message = redactSecret(`${request.operation} failed: ${reason}`, sent.apiKey);
	const description = hint === undefined ? undefined : redactSecret(hint, sent.apiKey);
	const code = httpCode === undefined ? undefined : String(httpCode);
	return new NodeApiError(node, { message }, { message, description, httpCode: code, itemIndex: request.itemIndex });
}

function causeOf(request: ServiceRequest, sent: Sent, failure: Failure): Cause {
	if (failure.kind === 'unexpected') return [failure.reason];
	const said = 'said' in failure && failure.said ? ` (${truncate(failure.said, 300)})` : '';
	if (failure.kind === 'envelope') return [`the service answered status "error"${said}`, request.errorHint];
	const isWrite = request.method !== 'GET';
	const repeatHint = request.repeatHint ?? 'Check at the service whether it was carried out before you repeat it.';
	if (failure.kind === 'noAnswer') {
		const [reason, hint] = noAnswerCause(sent, failure.error, isWrite ? repeatHint : undefined);
		return [`${reason}${failure.attempts > 1 ? ` (${failure.attempts} attempts)` : ''}`, hint];
	}
	const { statusCode } = failure;
	const status = `the service answered HTTP ${statusCode}${HTTP_STATUS_TEXT[statusCode] ? ` ${HTTP_STATUS_TEXT[statusCode]}` : ''}`;
	if (failure.kind === 'redirect') {
		return [
			`${status}, a redirect to ${redirectTarget(failure.location, sent.baseUrl)}, which the node does not follow`,
			'A followed redirect would carry the API key to another address. Enter the address the service answers at as the Base URL of the Campaign Calling credential.',
			statusCode,
		];
	}
	let hint = STATUS_HINTS[statusCode];
	if (statusCode >= 500 || (statusCode === 408 && isWrite)) {
		hint = isWrite
			? `The service had a problem, and may have carried out this request before it failed. ${repeatHint}`
			: 'The service had a problem. Try again later; reads are retried automatically.';
	}
	return [`${status}${said}`, hint, statusCode];
}

/** Why a request got no answer, from the error's codes and fields; `repeatHint` is given for a write. */
function noAnswerCause(sent: Sent, error: unknown, repeatHint: string | undefined): Cause {
	const chain = errorChain(error);
	const field = (name: string) => chain.map((link) => link[name]).find((value) => typeof value === 'string' && value !== '') as string | undefined;
	const code = errorCode(error) ?? '';
	const { origin, hostname, port, protocol } = new URL(sent.baseUrl);
	const ssrf = chain.find((link) => link.name === 'SsrfBlockedIpError' || link.name === 'SsrfBlockedHostnameError');
	if (ssrf) {
		const what = typeof ssrf.ip === 'string'
			? `it resolves to ${ssrf.ip}, an address in n8n's blocked ranges`
			: `the host name ${typeof ssrf.hostname === 'string' ? ssrf.hostname : hostname} is on n8n's list of blocked host names`;
		return [`n8n's SSRF protection blocked the request to ${origin} (${what})`, `${NOTHING_SENT} ${ssrfAllowance(hostname)} Otherwise use the service's public address as the Base URL.`];
	}
	const messages = chain.map((link) => link.message).filter((text): text is string => typeof text === 'string' && text !== '');
	const detail = truncate(messages.pop() ?? 'no reason given', 200);
	if (NOT_BUILT_CODES.includes(code) || (code === '' && ['TypeError', 'RangeError'].includes(String(chain[chain.length - 1]?.name)))) {
		return ['n8n could not build the request, so it could not send it', `${NOTHING_SENT} n8n's HTTP client reported: ${detail}${code ? ` (${code})` : ''}.`];
	}
	if (TLS_REASONS[code] || /CERT|SSL|TLS/.test(code)) {
		return [
			`the TLS connection to ${origin} failed: ${TLS_REASONS[code] ?? 'n8n did not accept its certificate'} (${code})`,
			`${NOTHING_SENT} Check the Base URL's host name and scheme. The service's certificate must be valid and trusted; if your provider uses a private certificate authority, give n8n its certificate with NODE_EXTRA_CA_CERTS.`,
		];
	}
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		return [
			`the host name ${field('hostname') ?? hostname} ${code === 'ENOTFOUND' ? 'was not found: the DNS has no address for it' : 'could not be looked up just now: n8n\'s DNS server did not answer'}`,
			`${NOTHING_SENT} Check the spelling of the Base URL's host name, that n8n's DNS can resolve it, and ${PROXY_SETTING} if n8n uses a proxy (${code}).`,
		];
	}
	if (code === 'ECONNREFUSED') {
		const refusedPort = chain.map((link) => link.port).find((value) => typeof value === 'number');
		const where = field('address') && refusedPort !== undefined ? `${field('address')}:${refusedPort}` : `${hostname}:${port || (protocol === 'https:' ? 443 : 80)}`;
		return [
			`the connection to ${where} was refused: nothing listens there`,
			`${NOTHING_SENT} Check the Base URL's host and port, and that the service is running (or, if n8n uses a proxy, the proxy and ${PROXY_SETTING}).`,
		];
	}
	const maybeDone = repeatHint === undefined ? '' : '; the service may have carried it out';
	if (TIMEOUT_CODES.includes(code)) {
		const slow = 'If the service is slow, raise Request Options → Timeout';
		return [
			`no answer from ${origin} within ${Math.round(sent.timeoutMs / 1000)} seconds${maybeDone}`,
			repeatHint === undefined ? `${slow}; otherwise check that it is reachable from n8n.` : `${repeatHint} ${slow}.`,
		];
	}
	if (DROPPED_CODES.includes(code)) {
		return [
			`the connection to ${origin} was dropped before an answer came${maybeDone}`,
			repeatHint ?? 'The service or something between n8n and it (a proxy, a load balancer) closed the connection. Try again later; reads are retried automatically.',
		];
	}
	// The code goes into the description: n8n replaces a message that holds a common code with its own text.
	return [
		`the request to ${origin} failed without an answer${maybeDone}`,
		`n8n's HTTP client reported: ${code || detail}. Check the Base URL in the Campaign Calling credential and that the service is reachable from n8n.${repeatHint === undefined ? '' : ` ${repeatHint}`}`,
	];
}

/** Where a redirect pointed, by origin only: its path or query could carry anything. */
function redirectTarget(location: string | undefined, baseUrl: string): string {
	if (location === undefined || location.trim() === '') return 'no address';
	return URL.canParse(location, baseUrl) ? new URL(location, baseUrl).origin : 'an address that is not valid';
}

/** The setting an n8n administrator changes to let the Base URL's host through. */
function ssrfAllowance(hostname: string): string {
	const host = hostname.replace(/[[\]]/g, '');
	return /^[\d.]+$/.test(host) || host.includes(':')
		? `An n8n administrator can allow this address with N8N_SSRF_ALLOWED_IP_RANGES (for example ${host}/${host.includes(':') ? 128 : 32}), or a host name for it with N8N_SSRF_ALLOWED_HOSTNAMES.`
		: `An n8n administrator can allow this host with N8N_SSRF_ALLOWED_HOSTNAMES (for example ${host}), or its addresses with N8N_SSRF_ALLOWED_IP_RANGES.`;
}

function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}
