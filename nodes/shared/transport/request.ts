import { createHash, scrypt } from 'crypto';
import type {
	ICredentialsDecrypted,
	IExecuteData,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	INode,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { HttpAnswer } from './envelope';
import { headerValue, interpretAnswer } from './envelope';
import type { ServiceRequest } from './failures';
import { DROPPED_CODES, TIMEOUT_CODES, errorCode, redactSecret, refusedInputError, serviceError } from './failures';

export const CREDENTIAL_TYPE = 'campaignCallingApi';

export type ServiceContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Retries of transient failures (see `isRetryable`); Request Options → Max Retries sets their number. */
export const DEFAULT_RETRY_POLICY = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8000 };

/** Proof the request never left n8n: refused, or a name lookup that failed for now (ENOTFOUND proves it too, but fails again). */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);
/** Codes after which a read may safely be repeated. */
const TRANSIENT_CODES = new Set([...NEVER_SENT_CODES, ...TIMEOUT_CODES, ...DROPPED_CODES]);

/** Reads (GET) are repeated after 5xx, 429 and dropped connections. Writes only when the request provably
 * never left: a write that may have reached the service could add contacts or modules twice. */
export function isRetryable(answer: HttpAnswer | undefined, error: unknown, isRead: boolean): boolean {
	if (error !== undefined) return (isRead ? TRANSIENT_CODES : NEVER_SENT_CODES).has(errorCode(error) ?? '');
	return isRead && answer !== undefined && (answer.statusCode === 429 || answer.statusCode >= 500);
}

/** Capped exponential backoff; a Retry-After header (seconds) takes precedence, within the cap. */
export function retryDelayMs(answer: HttpAnswer | undefined, attempt: number): number {
	const { initialDelayMs, maxDelayMs } = DEFAULT_RETRY_POLICY;
	const seconds = Number(headerValue(answer?.headers, 'retry-after') ?? Number.NaN);
	if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, maxDelayMs);
	return Math.min(initialDelayMs * 2 ** attempt, maxDelayMs);
}

interface CampaignCallingCredentials { baseUrl: string; apiKey: string }

// Read once per execution context: n8n decrypts the credential on every read.
const credentialsByExecution = new WeakMap<object, Promise<CampaignCallingCredentials>>();

function credentialsOf(context: ServiceContext | IWebhookFunctions): Promise<CampaignCallingCredentials> {
	const credentials = credentialsByExecution.get(context) ?? context.getCredentials<CampaignCallingCredentials>(CREDENTIAL_TYPE);
	credentialsByExecution.set(context, credentials);
	return credentials;
}

/** An http:// or https:// address, or undefined for any other text. */
export function parseHttpUrl(text: string): URL | undefined {
	const url = URL.canParse(text) ? new URL(text) : undefined;
	return url?.protocol === 'http:' || url?.protocol === 'https:' ? url : undefined;
}

/** The Base URL as requests address the service: trimmed, without trailing slashes; not checked. */
function baseUrlText(raw: unknown): string {
	return (typeof raw === 'string' ? raw.trim() : '').replace(/\/+$/, '');
}

/** The credential's Base URL as requests use it; checked first, so a typo gets a clear message, not a socket error. */
export async function credentialBaseUrl(context: ServiceContext): Promise<string> {
	const baseUrl = baseUrlText((await credentialsOf(context)).baseUrl);
	if (!parseHttpUrl(baseUrl)) {
		throw new Error(`The credential's Base URL "${baseUrl}" is not a web address. Enter it with its scheme, for example https://api.example.com`);
	}
	return baseUrl;
}

/** The Base URL as an account is told by: scheme and host in lower case, no default port, no trailing slash. */
export function canonicalBaseUrl(raw: unknown): string {
	const text = baseUrlText(raw);
	const url = parseHttpUrl(text);
	return url === undefined ? text : `${url.origin}${url.pathname.replace(/\/+$/, '')}${url.search}`;
}

/**
 * Memory-hard, so that a fingerprint stored in a workflow costs whoever tests guessed keys against it
 * 32 MiB and tens of milliseconds per guess (docs/trigger-reference.md); computed once per credential read.
 */
export const FINGERPRINT_SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Fingerprints computed in this process, by a SHA-256 of what they were computed from: a credential read again costs no scrypt. */
const fingerprintsComputed = new Map<string, Promise<string>>();

/** The account the credential reaches, as a scrypt fingerprint of its Base URL and key under `salt`: equal for one account, never the key. */
export async function accountFingerprint(context: ServiceContext | IWebhookFunctions, salt: string): Promise<string> {
	const { baseUrl, apiKey } = await credentialsOf(context);
	const account = `${canonicalBaseUrl(baseUrl)}\n${String(apiKey ?? '')}`;
	const computation = createHash('sha256').update(`${salt}\n${account}`).digest('base64url');
	const known = fingerprintsComputed.get(computation);
	if (known !== undefined) return await known;
	if (fingerprintsComputed.size >= 1_000) fingerprintsComputed.clear();
	const fingerprint = new Promise<string>((resolve, reject) => {
		scrypt(account, salt, 32, FINGERPRINT_SCRYPT, (error, derived) => (error ? reject(error) : resolve(derived.toString('base64url'))));
	});
	fingerprintsComputed.set(computation, fingerprint);
	return await fingerprint;
}

// Retry On Fail runs the node again; a write recorded here is not sent twice (ARCHITECTURE.md, "Retry On Fail").
// Keyed weakly by n8n's execute data, the one object every try of a run shares.
const answersByRun = new WeakMap<IExecuteData, Map<string, unknown>>();

/** Under Retry On Fail, the answer an earlier try of this run got for the same write, or where to keep this one's. */
export function sentRecordEntry(
	context: { getNode(): INode },
	request: { sendOnceAs?: string; method: string; path: string; qs?: unknown; body?: unknown },
): { answered: boolean; answer: unknown; keep(answer: unknown): void } | undefined {
	const node = context.getNode();
	if (request.sendOnceAs === undefined || node.retryOnFail !== true || !('getExecuteData' in context)) return undefined;
	const run = (context as IExecuteFunctions).getExecuteData();
	const answers = answersByRun.get(run) ?? new Map<string, unknown>();
	answersByRun.set(run, answers);
	// The node's name is part of the key: as an AI tool, every tool gets the agent's execute data.
	const { method, path, qs, body } = request;
	const key = createHash('sha256').update(JSON.stringify([node.name, request.sendOnceAs, method, path, qs, body])).digest('base64url');
	return { answered: answers.has(key), answer: answers.get(key), keep: (answer) => answers.set(key, answer) };
}

/** Sends one request, repeated while `isRetryable` allows; a failure throws the one error failures.ts builds. */
export async function serviceRequest(this: ServiceContext, request: ServiceRequest): Promise<unknown> {
	const node = this.getNode();
	const credentials = await credentialsOf(this);
	const { maxRetries = DEFAULT_RETRY_POLICY.maxRetries, timeoutMs = DEFAULT_TIMEOUT_MS } = request;
	const baseUrl = await credentialBaseUrl(this).catch((error: Error) => {
		throw refusedInputError(node, new Error(redactSecret(`${request.operation} failed: ${error.message}`, credentials.apiKey)), request.itemIndex);
	});
	const sent = { baseUrl, apiKey: credentials.apiKey, timeoutMs };
	const recorded = sentRecordEntry(this, request);
	if (recorded?.answered) return recorded.answer;

	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		// Parsed in envelope.ts: axios turns a JSON string answer ("ok") into text, like a body that is no JSON.
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: timeoutMs,
		// n8n sends the Authorization header on along a redirect, to any host: a redirect fails instead.
		disableFollowRedirect: true,
	};
	// Handed to n8n with each request, so it does not load the credential again per request.
	const stored = node.credentials?.[CREDENTIAL_TYPE];
	const credentialsDecrypted: ICredentialsDecrypted = { id: stored?.id ?? '', name: stored?.name ?? '', type: CREDENTIAL_TYPE, data: { ...credentials } };
	for (let attempt = 0; ; attempt++) {
		let answer: HttpAnswer | undefined;
		let error: unknown;
		try {
			answer = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, { ...options }, { credentialsDecrypted })) as HttpAnswer;
		} catch (thrown) {
			error = thrown;
		}
		if (attempt < maxRetries && isRetryable(answer, error, request.method === 'GET')) {
			await sleep(retryDelayMs(answer, attempt));
			continue;
		}
		if (answer === undefined) throw serviceError(node, request, sent, { kind: 'noAnswer', error, attempts: attempt + 1 });
		const interpreted = interpretAnswer(answer, request.answer);
		if (!interpreted.ok) throw serviceError(node, request, sent, interpreted.failure);
		recorded?.keep(interpreted.value);
		return interpreted.value;
	}
}
