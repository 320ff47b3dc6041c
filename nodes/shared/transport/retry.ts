/** Retries of transient failures (see `isRetryable`), set by the action node's Request Options. */
export interface RetryPolicy { maxRetries: number; initialDelayMs: number; maxDelayMs: number }

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8000 };

/** What one attempt got back from n8n's HTTP helper (full response, status errors not thrown). */
export interface HttpAnswer { statusCode: number; headers: Record<string, unknown>; body: unknown }

/** Proof the request never left n8n: refused, or a name lookup that failed for now (ENOTFOUND proves it too, but fails again). */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);
/** Codes after which a read may safely be repeated. */
const TRANSIENT_CODES = new Set([...NEVER_SENT_CODES, 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ESOCKETTIMEDOUT']);

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

/** Reads (GET) are repeated after 5xx, 429 and dropped connections. Writes only when the request provably
 * never left: a write that may have reached the service could add contacts or modules twice. */
export function isRetryable(answer: HttpAnswer | undefined, error: unknown, isRead: boolean): boolean {
	if (error !== undefined) return (isRead ? TRANSIENT_CODES : NEVER_SENT_CODES).has(errorCode(error) ?? '');
	return isRead && answer !== undefined && (answer.statusCode === 429 || answer.statusCode >= 500);
}

/** Capped exponential backoff; a Retry-After header (seconds) takes precedence, within the cap. */
export function retryDelayMs(answer: HttpAnswer | undefined, attempt: number, policy: RetryPolicy): number {
	const seconds = Number(headerValue(answer?.headers, 'retry-after') ?? Number.NaN);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
	return Math.min(policy.initialDelayMs * 2 ** attempt, policy.maxDelayMs);
}

export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	const entry = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name);
	return entry === undefined ? undefined : String(Array.isArray(entry[1]) ? entry[1][0] : entry[1]);
}
