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

/** Network failure codes that prove the request never reached the service. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
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
 * A network failure of the last attempt is thrown as `networkFailure` builds it.
 */
export async function sendWithRetries(
	send: () => Promise<HttpAnswer>,
	isRead: boolean,
	policy: RetryPolicy,
	networkFailure: (error: unknown, attempts: number) => Error,
): Promise<HttpAnswer> {
	for (let attempt = 0; ; attempt++) {
		let answer: HttpAnswer | undefined;
		let networkError: unknown;
		try {
			answer = await send();
		} catch (error) {
			networkError = error;
		}

		const retryable = isRetryable(answer, networkError, isRead);
		if (!retryable || attempt >= policy.maxRetries) {
			if (networkError !== undefined) throw networkFailure(networkError, attempt + 1);
			return answer as HttpAnswer;
		}
		await sleep(retryDelayMs(answer, attempt, policy));
	}
}

/**
 * Reads (GET) are repeated after 5xx, 429 and dropped connections. Writes are repeated only when
 * the request provably never left (connection refused, name not resolved): a write that may
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

function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
	}
	return undefined;
}

/** Digs the socket error code out of whatever wrapper n8n's HTTP helper threw. */
export function networkErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		const candidate = current as { code?: unknown; cause?: unknown; errorResponse?: unknown };
		if (typeof candidate.code === 'string' && /^E[A-Z_]+$/.test(candidate.code)) return candidate.code;
		current = candidate.cause ?? candidate.errorResponse;
	}
	const message = error instanceof Error ? error.message : '';
	const match = /\b(E[A-Z]{4,})\b/.exec(message);
	if (match) return match[1];
	if (/timeout of \d+ms exceeded/i.test(message)) return 'ECONNABORTED';
	return undefined;
}
