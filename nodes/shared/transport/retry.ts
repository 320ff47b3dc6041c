import type { HttpAnswer } from './envelope';
import { headerValue } from './envelope';
import { errorCode } from './failures';

/** Retries of transient failures (see `isRetryable`); Request Options → Max Retries sets their number. */
export const DEFAULT_RETRY_POLICY = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8000 };
export const DEFAULT_MAX_RETRIES = DEFAULT_RETRY_POLICY.maxRetries;

/** Proof the request never left n8n: refused, or a name lookup that failed for now (ENOTFOUND proves it too, but fails again). */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);
/** Codes after which a read may safely be repeated. */
const TRANSIENT_CODES = new Set([...NEVER_SENT_CODES, 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ESOCKETTIMEDOUT']);

/** Reads (GET) are repeated after 5xx, 429 and dropped connections. Writes only when the request provably
 * never left: a write that may have reached the service could add contacts or modules twice. */
export function isRetryable(answer: HttpAnswer | undefined, error: unknown, isRead: boolean): boolean {
	if (error !== undefined) return (isRead ? TRANSIENT_CODES : NEVER_SENT_CODES).has(errorCode(error) ?? '');
	return isRead && answer !== undefined && (answer.statusCode === 429 || answer.statusCode >= 500);
}

/** Capped exponential backoff; a Retry-After header (seconds) takes precedence, within the cap. */
export function retryDelayMs(answer: HttpAnswer | undefined, attempt: number): number {
	const policy = DEFAULT_RETRY_POLICY;
	const seconds = Number(headerValue(answer?.headers, 'retry-after') ?? Number.NaN);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
	return Math.min(policy.initialDelayMs * 2 ** attempt, policy.maxDelayMs);
}
