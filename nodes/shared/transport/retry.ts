import { sleep } from 'n8n-workflow';

/** Retries of transient failures; see `isRetryable` for what counts as transient. */
export interface RetryPolicy {
	maxRetries: number;
	initialDelayMs: number;
	maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8000 };

/** What one attempt got back from n8n's HTTP helper (full response, status errors not thrown). */
export interface HttpAnswer {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/**
 * Network failure codes that prove the request never left n8n: the connection was refused, or the
 * name lookup failed for now. ENOTFOUND proves it too, but is not repeated at all: the name does not
 * exist, and asking again a second later gets the same answer.
 */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);
/** Network failure codes after which a read may safely be repeated. */
const TRANSIENT_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EPIPE',
	'ESOCKETTIMEDOUT',
	'ECONNREFUSED',
	'EAI_AGAIN',
]);

/**
 * Makes attempts with `send` until one may not be repeated or the policy's retries are spent.
 * When the last attempt threw instead of bringing an answer (a network failure, or a request n8n
 * refused to build), its error is thrown as `noAnswerFailure` builds it.
 */
export async function sendWithRetries(
	send: () => Promise<HttpAnswer>,
	isRead: boolean,
	policy: RetryPolicy,
	noAnswerFailure: (error: unknown, attempts: number) => Error,
): Promise<HttpAnswer> {
	for (let attempt = 0; ; attempt++) {
		let answer: HttpAnswer | undefined;
		let sendError: unknown;
		try {
			answer = await send();
		} catch (error) {
			sendError = error;
		}

		const retryable = isRetryable(answer, sendError, isRead);
		if (!retryable || attempt >= policy.maxRetries) {
			if (sendError !== undefined) throw noAnswerFailure(sendError, attempt + 1);
			return answer as HttpAnswer;
		}
		await sleep(retryDelayMs(answer, attempt, policy));
	}
}

/**
 * Reads (GET) are repeated after 5xx, 429 and dropped connections. Writes are repeated only when
 * the request provably never left (connection refused, name lookup failed for now): a write that may
 * have reached the service could otherwise add the same contacts or modules twice.
 */
export function isRetryable(answer: HttpAnswer | undefined, networkError: unknown, isRead: boolean): boolean {
	if (networkError !== undefined) {
		const code = networkErrorCode(networkError);
		if (code === undefined) return false;
		return isRead ? TRANSIENT_NETWORK_CODES.has(code) : NEVER_SENT_CODES.has(code);
	}
	if (!answer || !isRead) return false;
	return answer.statusCode === 429 || answer.statusCode >= 500;
}

/** Capped exponential backoff; a Retry-After header (seconds) takes precedence, within the cap. */
export function retryDelayMs(answer: HttpAnswer | undefined, attempt: number, policy: RetryPolicy): number {
	const retryAfter = answer ? headerValue(answer.headers, 'retry-after') : undefined;
	if (retryAfter !== undefined) {
		const seconds = Number(retryAfter);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
	}
	return Math.min(policy.initialDelayMs * 2 ** attempt, policy.maxDelayMs);
}

export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
	}
	return undefined;
}

/** What a network failure's error chain says about its cause, for the error message. */
export interface NetworkFailureFacts {
	/** The socket, DNS or TLS code (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED, ...). */
	code?: string;
	/** n8n 2.x's SSRF protection refused the request: the blocked address or host name. */
	ssrfBlocked?: { ip?: string; hostname?: string };
	/** The address and port a refused connection was made to. */
	address?: string;
	port?: number;
	/** The host name a failed lookup was for. */
	hostname?: string;
	/** The innermost error's own text, for causes the transport does not name. */
	detail?: string;
	/**
	 * n8n's HTTP stack refused to build the request (Node's checks of a header or URL), so nothing
	 * left n8n: what it said, and the header it named.
	 */
	notSent?: { detail: string; header?: string };
}

const SSRF_ERROR_NAMES = new Set(['SsrfBlockedIpError', 'SsrfBlockedHostnameError']);

/** Walks the error n8n's HTTP helper threw (NodeApiError → the HTTP library's error → the socket's). */
function errorChain(error: unknown): Array<Record<string, unknown>> {
	const chain: Array<Record<string, unknown>> = [];
	let current: unknown = error;
	while (chain.length < 6 && current !== null && typeof current === 'object' && !chain.includes(current as Record<string, unknown>)) {
		const link = current as Record<string, unknown>;
		chain.push(link);
		current = link.cause ?? link.errorResponse;
	}
	return chain;
}

/**
 * The texts of one link of the chain: its message and, for n8n's NodeApiError, the HTTP library's
 * own messages it keeps (`messages`), such as "connect ECONNREFUSED 10.0.0.1:3128".
 */
function textsOf(link: Record<string, unknown>): string[] {
	const messages = Array.isArray(link.messages) ? link.messages.filter((text): text is string => typeof text === 'string') : [];
	return [...(typeof link.message === 'string' ? [link.message] : []), ...messages];
}

/**
 * Reads the cause of a network failure out of whatever wrapper n8n's HTTP helper threw. n8n 1.x's
 * NodeApiError drops its `cause` (a class field resets it), keeping only `httpCode` and `messages`.
 */
export function networkFailureFacts(error: unknown): NetworkFailureFacts {
	const facts: NetworkFailureFacts = { code: networkErrorCode(error) };
	const chain = errorChain(error);
	for (const link of chain) {
		const text = (key: string) => (typeof link[key] === 'string' && link[key] !== '' ? (link[key] as string) : undefined);
		if (SSRF_ERROR_NAMES.has(text('name') ?? '')) facts.ssrfBlocked = { ip: text('ip'), hostname: text('hostname') };
		facts.address ??= text('address');
		facts.hostname ??= text('hostname');
		if (facts.port === undefined && typeof link.port === 'number') facts.port = link.port;
		for (const said of textsOf(link)) {
			const connect = /\bconnect E[A-Z]+ (\S+):(\d+)/.exec(said);
			if (connect && facts.address === undefined) [facts.address, facts.port] = [connect[1], Number(connect[2])];
			const lookup = /\bgetaddrinfo E[A-Z_]+ (\S+)/.exec(said);
			if (lookup) facts.hostname ??= lookup[1];
		}
		if (text('message')) facts.detail = text('message');
	}
	if (!facts.ssrfBlocked && /^The request was blocked because/.test(facts.detail ?? '')) facts.ssrfBlocked = {};
	const innermost = chain[chain.length - 1];
	const refusedByChecks = facts.code === undefined ? ['TypeError', 'RangeError'].includes(String(innermost?.name)) : REQUEST_CHECK_CODES.has(facts.code);
	if (refusedByChecks) {
		const texts = chain.flatMap(textsOf);
		const header = texts.map((said) => /header content \["([^"]+)"\]|for header "([^"]+)"|token \["([^"]+)"\]/.exec(said)).find(Boolean);
		facts.notSent = { detail: facts.detail ?? 'no reason given', header: header ? header.slice(1).find(Boolean) : undefined };
	}
	return facts;
}

const ERROR_CODE = /^[A-Z][A-Z0-9_]+$/;

/**
 * Node's and libuv's codes of a failed connection or name lookup, the only words a message is read
 * for ("connect ECONNREFUSED 10.0.0.1:3128"): other capitals, such as ERROR, are no code.
 */
const SOCKET_AND_DNS_CODES = new Set([
	...TRANSIENT_NETWORK_CODES,
	'ENOTFOUND',
	'ENODATA',
	'ESERVFAIL',
	'EREFUSED',
	'EHOSTUNREACH',
	'EHOSTDOWN',
	'ENETUNREACH',
	'ENETDOWN',
	'EADDRNOTAVAIL',
	'EPROTO',
]);

/** Node's codes for a request it refuses to build (a header or URL that fails its checks): nothing was sent. */
const REQUEST_CHECK_CODES = new Set([
	'ERR_INVALID_CHAR',
	'ERR_INVALID_HTTP_TOKEN',
	'ERR_HTTP_INVALID_HEADER_VALUE',
	'ERR_INVALID_URL',
	'ERR_UNESCAPED_CHARACTERS',
	'ERR_INVALID_PROTOCOL',
	'ERR_INVALID_ARG_TYPE',
	'ERR_INVALID_ARG_VALUE',
	'ERR_SOCKET_BAD_PORT',
]);

/** Digs the socket, DNS or TLS error code out of whatever wrapper n8n's HTTP helper threw. */
export function networkErrorCode(error: unknown): string | undefined {
	const chain = errorChain(error);
	for (const link of chain) {
		if (typeof link.code === 'string' && ERROR_CODE.test(link.code)) return link.code;
		// n8n's NodeApiError files the code of an error without an HTTP answer under httpCode.
		if (typeof link.httpCode === 'string' && ERROR_CODE.test(link.httpCode)) return link.httpCode;
	}
	for (const said of chain.flatMap(textsOf)) {
		const known = said.match(/\bE[A-Z_]{3,}\b/g)?.find((word) => SOCKET_AND_DNS_CODES.has(word));
		if (known) return known;
		if (/timeout of \d+ms exceeded/i.test(said)) return 'ECONNABORTED';
	}
	return undefined;
}
