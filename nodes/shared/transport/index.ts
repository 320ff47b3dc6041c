import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'campaignCallingApi';

type ServiceContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

/**
 * How an endpoint frames its answer (service spec, "Endpoints"):
 * - `envelope`: HTTP 200 `{ status, message, data }`; `status: "error"` is a failure. Resolves to `data`.
 * - `record`: a bare JSON object (the module endpoints). Resolves to the object.
 * - `passThrough`: the body is not documented (Update Campaign). An error envelope still fails;
 *   anything else resolves to the body itself.
 */
export type AnswerShape = 'envelope' | 'record' | 'passThrough';

/** Retries of transient failures; see `isRetryable` for what counts as transient. */
export interface RetryPolicy {
	maxRetries: number;
	initialDelayMs: number;
	maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8000 };

/** No request waits longer than this unless the caller asks for another limit. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** How hard the transport tries: set once per execution from the node's Request Options. */
export interface RequestTuning {
	retry: RetryPolicy;
	timeoutMs: number;
}

const tuningByExecution = new WeakMap<object, RequestTuning>();

/** Applies Request Options to every request made through this execution context. */
export function tuneRequests(context: ServiceContext, tuning: RequestTuning): void {
	tuningByExecution.set(context, tuning);
}

export interface ServiceRequest {
	/** The user-facing name of the operation, used in every error message ("Add Contacts"). */
	operation: string;
	method: IHttpRequestMethods;
	/** Path below the base URL, with its own prefix (`/v1/...`, `/compaign/v1/...`, `/contacts/...`). */
	path: string;
	body?: IDataObject | IDataObject[];
	qs?: IDataObject;
	answer: AnswerShape;
	/** The input item this request serves, so errors point at it. */
	itemIndex?: number;
	/** What the user can check when the service answers `status: "error"`. */
	errorHint?: string;
}

interface HttpAnswer {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

interface CampaignCallingCredentials {
	baseUrl: string;
	apiKey: string;
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
 * Normalises the credential's base URL: requires http(s), drops trailing slashes.
 * Checked here, before any request, so a typo gives a clear message instead of a socket error.
 */
export function normaliseBaseUrl(raw: unknown): string {
	const value = typeof raw === 'string' ? raw.trim() : '';
	let parsed: URL | undefined;
	try {
		parsed = new URL(value);
	} catch {
		parsed = undefined;
	}
	if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
		throw new Error(
			`The credential's Base URL "${value}" is not a web address. Enter it with its scheme, for example https://api.example.com`,
		);
	}
	return value.replace(/\/+$/, '');
}

/** Removes every occurrence of the API key from a text, so no error or output can carry it. */
export function redactSecret(text: string, secret: string | undefined): string {
	if (!secret || secret.length < 4) return text;
	return text.split(secret).join('[redacted]');
}

const credentialsByExecution = new WeakMap<object, Promise<CampaignCallingCredentials>>();

/**
 * The credential, read once per execution context: n8n loads and decrypts it from its database on
 * every read, a cost each of a batch run's requests would otherwise pay twice.
 */
function credentialsOf(context: ServiceContext): Promise<CampaignCallingCredentials> {
	let credentials = credentialsByExecution.get(context);
	if (!credentials) {
		credentials = context.getCredentials(CREDENTIAL_TYPE) as Promise<unknown> as Promise<CampaignCallingCredentials>;
		credentialsByExecution.set(context, credentials);
	}
	return credentials;
}

/** Sends one request to the service and applies its answer conventions. */
export async function serviceRequest(this: ServiceContext, request: ServiceRequest): Promise<unknown> {
	const node = this.getNode();
	const credentials = await credentialsOf(this);

	let baseUrl: string;
	try {
		baseUrl = normaliseBaseUrl(credentials.baseUrl);
	} catch (error) {
		const item = request.itemIndex === undefined ? '' : ` [item ${request.itemIndex}]`;
		const message = redactSecret(`${request.operation} failed: ${(error as Error).message}${item}`, credentials.apiKey);
		throw new NodeOperationError(node, message, {
			itemIndex: request.itemIndex,
		});
	}

	const tuning = tuningByExecution.get(this) ?? { retry: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		// The raw text, parsed below: axios' own parsing turns a JSON string answer ("ok") into
		// text that can no longer be told apart from a body that is not JSON at all.
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: tuning.timeoutMs,
	};

	// Handed to n8n with each request, so it does not load the credential again per request.
	const stored = node.credentials?.[CREDENTIAL_TYPE];
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: stored?.id ?? '',
		name: stored?.name ?? '',
		type: CREDENTIAL_TYPE,
		data: { ...credentials },
	};
	const failure = new ServiceFailureFactory(this, request, credentials.apiKey, baseUrl);
	const answer = await sendWithRetries.call(this, options, credentialsDecrypted, request, tuning.retry, failure);
	return interpretAnswer(answer, request, failure);
}

async function sendWithRetries(
	this: ServiceContext,
	options: IHttpRequestOptions,
	credentialsDecrypted: ICredentialsDecrypted,
	request: ServiceRequest,
	policy: RetryPolicy,
	failure: ServiceFailureFactory,
): Promise<HttpAnswer> {
	const isRead = request.method === 'GET';
	for (let attempt = 0; ; attempt++) {
		let answer: HttpAnswer | undefined;
		let networkError: unknown;
		try {
			answer = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, { ...options }, {
				credentialsDecrypted,
			})) as HttpAnswer;
		} catch (error) {
			networkError = error;
		}

		const retryable = isRetryable(answer, networkError, isRead);
		if (!retryable || attempt >= policy.maxRetries) {
			if (networkError !== undefined) throw failure.network(networkError, attempt + 1);
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

function interpretAnswer(answer: HttpAnswer, request: ServiceRequest, failure: ServiceFailureFactory): unknown {
	const body = parseBody(answer.body);

	if (answer.statusCode < 200 || answer.statusCode >= 300) {
		throw failure.httpStatus(answer.statusCode, body);
	}
	if (body.kind === 'invalid') {
		throw failure.api('the service answered with something that is not JSON');
	}
	if (body.kind === 'empty') {
		if (request.answer === 'passThrough') return {};
		throw failure.api('the service answered with an empty body');
	}

	const value = body.value;
	const envelope = asEnvelope(value);
	if (envelope && envelope.status.toLowerCase() === 'error') {
		throw failure.envelope(envelope);
	}

	switch (request.answer) {
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
class ServiceFailureFactory {
	private readonly context: ServiceContext;

	private readonly request: ServiceRequest;

	private readonly apiKey: string;

	private readonly baseUrl: string;

	constructor(context: ServiceContext, request: ServiceRequest, apiKey: string, baseUrl: string) {
		this.context = context;
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
		return new NodeApiError(this.context.getNode(), cleanResponse, {
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
