/**
 * Starts a real n8n headless on loopback, signs in as its owner, creates an API key, and drives it over its
 * public API (and, where the public API has no equivalent, over the REST API the editor uses).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installPackage } from './package.ts';
import type { InstalledPackage } from './package.ts';
import { answersOk, cleanEnv, freePort, log, sleep, spawnLogged, tail, waitUntil } from './process.ts';
import type { LoggedProcess } from './process.ts';
import { ensureRuntime, N8N_ENTRY } from './runtime.ts';
import type { N8nRuntime, N8nVersion } from './runtime.ts';
import { restBackedCalls } from './rest-session.ts';
import { copyTemplateInto, isFreshUserFolder, saveTemplate, userFolderTemplate } from './userFolderTemplate.ts';
import { DEMO } from '../../simulator/server.ts';
import { CREDENTIAL_TYPE } from './workflows.ts';
import type { CredentialRef, WorkflowJson } from './workflows.ts';

export interface StartOptions {
	version: N8nVersion;
	/** N8N_USER_FOLDER. Default: a fresh temp folder, removed by stop() unless E2E_KEEP_WORK is set. */
	userFolder?: string;
	/** Install this repo's package (it must be built) into the user folder before n8n starts. Default false. */
	withPackage?: boolean;
	/** The package withPackage installs; default the repo (process.cwd()). */
	packageRoot?: string;
	port?: number;
	/** Added last, so it can override any of the harness's settings (e.g. N8N_LOG_LEVEL=debug). */
	extraEnv?: Record<string, string>;
	readyTimeoutMs?: number;
}

export interface N8nInstance {
	version: N8nVersion;
	runtime: N8nRuntime;
	/** The editor / REST / public API base, with a trailing slash: http://127.0.0.1:<port>/ */
	url: string;
	/** The public webhook base (N8N_WEBHOOK_URL), with a trailing slash; production webhooks are under `webhook/`. */
	webhookUrl: string;
	port: number;
	userFolder: string;
	logFile: string;
	/** Set when started with withPackage. */
	installedPackage?: InstalledPackage;
	/** Milliseconds from spawning n8n to it answering /healthz/readiness and /rest/settings. */
	startToReadyMs: number;
	/** Empty when n8n's public API is off (1.x with E2E_TESTS=true): `api` then goes through the REST session. */
	apiKey: string;
	/** `n8n-auth=...` of the owner's session; REST calls also need BROWSER_ID as the `browser-id` header. */
	cookie: string;
	api: N8nApi;
	/** n8n's stdout and stderr so far. */
	logs(): string;
	/** Stops n8n and everything it started (its process group). Safe to call more than once. */
	stop(): Promise<void>;
}

export interface ApiResponse<T = unknown> {
	status: number;
	/** Parsed JSON, or the text when the body is not JSON. */
	body: T;
}

export interface Execution {
	id: string;
	workflowId: string;
	mode: string;
	/** success, error, crashed, canceled, or still running: new, running, waiting. */
	status: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	/** Present when listed with includeData. */
	data?: ExecutionData;
}

export interface ExecutionData {
	resultData: {
		runData: Record<string, NodeRun[]>;
		error?: { message: string; description?: string };
		lastNodeExecuted?: string;
	};
}

export interface NodeRun {
	data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
	error?: { message: string; description?: string };
}

/** 2.x's view of a workflow's activation, which it carries out after the API call has answered. */
interface PublicationStatus {
	status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed';
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

export interface N8nApi {
	/** POST /api/v1/credentials with plain data (plus allowedHttpRequestDomains: 'all' where the type's schema has it, as 1.x's do). */
	createCredential(name: string, type: string, data: Record<string, unknown>): Promise<{ id: string; name: string; type: string }>;
	deleteCredential(id: string): Promise<void>;
	/** What the credential dialog's Test button does: POST /rest/credentials/test, with the owner's session. */
	testCredential(credential: { id: string; name: string; type: string; data: Record<string, unknown> }): Promise<CredentialTestResult>;
	createWorkflow(workflow: WorkflowJson): Promise<{ id: string; name: string }>;
	/** Resolves once the workflow is live (its webhooks registered); rejects with n8n's reason when activation fails. */
	activate(workflowId: string): Promise<void>;
	/** Resolves once the workflow is off (its triggers' webhooks deleted). */
	deactivate(workflowId: string): Promise<void>;
	/** Deactivates it first when active. */
	deleteWorkflow(workflowId: string): Promise<void>;
	/** The workflow's executions, oldest first. */
	listExecutions(workflowId: string, includeData?: boolean): Promise<Execution[]>;
	/** Polls until the workflow has `count` finished executions (with data), oldest first. Default timeout 30 s. */
	waitForExecutions(workflowId: string, count: number, timeoutMs?: number): Promise<Execution[]>;
	/** Calls a production webhook: `<webhookUrl>webhook/<path>`. */
	callWebhook(path: string, body?: unknown, options?: { method?: string; headers?: Record<string, string> }): Promise<ApiResponse>;
	/** Node types n8n knows (the editor's /types/nodes.json). */
	nodeTypes(): Promise<Array<{ name: string; displayName: string; version: number | number[] }>>;
	/** Credential types n8n knows (the editor's /types/credentials.json). */
	credentialTypes(): Promise<Array<{ name: string; displayName: string }>>;
	/** Any public API call (`/api/v1` + path) with the API key; never throws on an HTTP error status. */
	publicApi<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
	/** Any REST call (`/rest` + path) with the owner's session; never throws on an HTTP error status. */
	rest<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
}

/** n8n ties its session cookie to this header; any constant works for a client that is not a browser. */
export const BROWSER_ID = 'campaign-calling-e2e';
/** The instance owner the harness sets up (and signs in as): also a login for the editor. */
export const OWNER = { email: 'owner@example.com', firstName: 'E2E', lastName: 'Owner', password: 'E2e-Owner-Passw0rd' };
const ENCRYPTION_KEY = 'campaign-calling-e2e-encryption-key';
const STILL_RUNNING = ['new', 'running', 'waiting'];
const PUBLICATION_TIMEOUT_MS = 45_000;

/** The package's credential as most tests use it: the simulator at `simulatorUrl`, with the demo key. */
export async function simulatorCredential(api: Pick<N8nApi, 'createCredential'>, simulatorUrl: string, name = 'Campaign Calling (simulator)'): Promise<CredentialRef> {
	const created = await api.createCredential(name, CREDENTIAL_TYPE, { baseUrl: `${simulatorUrl.replace(/\/$/, '')}/`, apiKey: DEMO.apiKey });
	return { id: created.id, name: created.name };
}

/** Starts n8n (installing its runtime first if needed) and returns a signed-in handle. */
export async function startN8n(options: StartOptions): Promise<N8nInstance> {
	const runtime = await ensureRuntime(options.version);
	const ownsUserFolder = options.userFolder === undefined;
	const userFolder = options.userFolder ?? createUserFolder(options.version);
	mkdirSync(userFolder, { recursive: true });
	const template = userFolderTemplate(options.version, options.extraEnv);
	const makesTemplate = isFreshUserFolder(userFolder) && !copyTemplateInto(template, userFolder);
	const removeUserFolder = () => {
		if (ownsUserFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	};
	let installedPackage: InstalledPackage | undefined;
	try {
		installedPackage = options.withPackage ? await installPackage(userFolder, options.packageRoot) : undefined;
	} catch (error) {
		removeUserFolder();
		throw error;
	}

	const port = options.port ?? (await freePort());
	const url = `http://127.0.0.1:${port}/`;
	const logFile = join(userFolder, 'n8n.log');
	const env = await n8nEnv(runtime, { userFolder, port, editorUrl: url, webhookUrl: url, extraEnv: options.extraEnv });

	log(`n8n ${options.version}: starting on ${url} (user folder ${userFolder})`);
	const n8n = spawnN8n(runtime, 'start', env, logFile, `n8n ${options.version}`);
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= n8n.stop().then(removeUserFolder);
		return stopping;
	};

	try {
		const startToReadyMs = await waitUntilReady(n8n, url, { rest: true, timeoutMs: options.readyTimeoutMs });
		log(`n8n ${options.version}: ready in ${(startToReadyMs / 1000).toFixed(1)} s`);
		const onOwnerSetUp = makesTemplate ? () => saveTemplate(template, userFolder) : undefined;
		const session = await openSession(url, url, () => tail(n8n.logs()), onOwnerSetUp);
		return {
			version: options.version,
			runtime,
			url,
			webhookUrl: url,
			port,
			userFolder,
			logFile,
			installedPackage,
			startToReadyMs,
			...session,
			logs: n8n.logs,
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

/** An n8n process's role: `n8n start` (the main: editor, API, triggers), `n8n worker`, `n8n webhook`. */
export type N8nCommand = 'start' | 'worker' | 'webhook';

export interface N8nEnvOptions {
	userFolder: string;
	/** N8N_PORT: where this process listens. */
	port: number;
	/** The editor's (the main's) base URL, with a trailing slash. */
	editorUrl: string;
	/** The public webhook base that n8n registers and shows, with a trailing slash. */
	webhookUrl: string;
	/** Added last, so it can override any of the harness's settings. */
	extraEnv?: Record<string, string>;
}

/** The environment every n8n process of the harness runs with: loopback only, no calls home, community packages on. */
export async function n8nEnv(runtime: N8nRuntime, options: N8nEnvOptions): Promise<NodeJS.ProcessEnv> {
	return {
		...cleanEnv(),
		...runtime.env,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: options.userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PORT: String(options.port),
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: options.editorUrl,
		[runtime.webhookUrlVariable]: options.webhookUrl,
		// The task runner broker has a fixed default port: two instances at once would clash.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		// No calls home: telemetry, version checks, templates, banners, the verified-packages catalogue.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		...options.extraEnv,
	};
}

/** Spawns `n8n <command>` in its own process group (stop() ends its task runners too), output in logFile. */
export function spawnN8n(runtime: N8nRuntime, command: N8nCommand, env: NodeJS.ProcessEnv, logFile: string, label: string): LoggedProcess {
	// SIGKILL only once n8n's own shutdown (running executions finished, or its grace period over) had its chance.
	const stopGraceMs = (Number(env.N8N_GRACEFUL_SHUTDOWN_TIMEOUT ?? 30) + 15) * 1000;
	return spawnLogged({ label, command: runtime.nodeBinary, args: [N8N_ENTRY, command], cwd: runtime.dir, env, logFile, stopGraceMs });
}

/**
 * Waits until the n8n process listening at `url` answers /healthz/readiness (database connected and
 * migrated) and, with `rest`, /rest/settings (1.x answers readiness before its REST routes exist).
 * Resolves to the milliseconds from spawning it.
 */
export async function waitUntilReady(
	n8n: LoggedProcess,
	url: string,
	options: { rest: boolean; timeoutMs?: number },
): Promise<number> {
	const what = options.rest ? 'ready (/healthz/readiness and /rest/settings)' : 'ready (/healthz/readiness)';
	return await waitUntil(
		what,
		n8n,
		async () => (await answersOk(`${url}healthz/readiness`)) && (!options.rest || (await answersOk(`${url}rest/settings`))),
		options.timeoutMs ?? 120_000,
	);
}

export interface N8nSession {
	apiKey: string;
	/** `n8n-auth=...` of the owner's session. */
	cookie: string;
	api: N8nApi;
}

/**
 * Signs in at the main's `url` as the owner (setting it up on a fresh database), runs `onOwnerSetUp` if given,
 * creates an API key and returns the API client; its callWebhook goes to `webhookUrl`. `logTail` is added to
 * its timeout errors.
 */
export async function openSession(url: string, webhookUrl: string, logTail: () => string, onOwnerSetUp?: () => Promise<void>): Promise<N8nSession> {
	const cookie = await signInAsOwner(url);
	await onOwnerSetUp?.();
	// 1.x turns its public API off in its test mode (E2E_TESTS=true): then workflows go through the REST session.
	const settings = await httpCall<{ data: { publicApi?: { enabled?: boolean } } }>(`${url}rest/settings`, 'GET', sessionHeaders(cookie));
	const apiKey = settings.body.data?.publicApi?.enabled === false ? '' : await createApiKey(url, cookie);
	return { apiKey, cookie, api: createApi({ url, webhookUrl, cookie, apiKey, logTail }) };
}

/**
 * A fresh user folder in the system's temp dir: not under test/, where jest's module map would find the
 * package.json files n8n's community-package folder holds.
 */
export function createUserFolder(label: string): string {
	const workDir = join(tmpdir(), 'campaign-calling-e2e');
	mkdirSync(workDir, { recursive: true });
	return mkdtempSync(join(workDir, `n8n-${label}-`));
}

/** The json of each item a node put out in its first run (first output), from an execution listed with data. */
export function nodeOutput(execution: Execution, nodeName: string): Array<Record<string, unknown>> {
	const run = execution.data?.resultData.runData[nodeName]?.[0];
	if (!run) throw new Error(`Node '${nodeName}' did not run in execution ${execution.id}`);
	return (run.data?.main?.[0] ?? []).map((item) => item.json);
}

/** The error an execution stopped on (the workflow's, or else the first failed node's), if any. */
export function executionError(execution: Execution): { message: string; description?: string } | undefined {
	const resultData = execution.data?.resultData;
	if (resultData?.error) return resultData.error;
	for (const runs of Object.values(resultData?.runData ?? {})) {
		const failed = runs.find((run) => run.error);
		if (failed?.error) return failed.error;
	}
	return undefined;
}

/** Sets up the owner on a fresh instance, or logs in on a rerun; returns the session cookie. */
async function signInAsOwner(url: string): Promise<string> {
	const post = (path: string, body: unknown) =>
		fetch(`${url}rest/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify(body),
		});
	let response = await post('owner/setup', OWNER);
	if (!response.ok) {
		response = await post('login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password });
	}
	if (!response.ok) throw new Error(`Cannot sign in as the owner: HTTP ${response.status} ${await response.text()}`);
	const cookie = response.headers
		.getSetCookie()
		.map((header) => header.split(';')[0])
		.find((pair) => pair.startsWith('n8n-auth='));
	if (!cookie) throw new Error('Signing in returned no n8n-auth cookie');
	return cookie;
}

async function createApiKey(url: string, cookie: string): Promise<string> {
	const session = sessionHeaders(cookie);
	const scopes = okBody(
		'GET /rest/api-keys/scopes',
		await httpCall<{ data: string[] }>(`${url}rest/api-keys/scopes`, 'GET', session),
	).data;
	const label = `e2e ${new Date().toISOString()}`;
	const created = okBody(
		'POST /rest/api-keys',
		await httpCall<{ data: { rawApiKey: string } }>(`${url}rest/api-keys`, 'POST', session, { label, scopes, expiresAt: null }),
	);
	return created.data.rawApiKey;
}

function sessionHeaders(cookie: string): Record<string, string> {
	return { 'browser-id': BROWSER_ID, cookie };
}

async function httpCall<T>(address: string, method: string, headers: Record<string, string>, body?: unknown, signal?: AbortSignal): Promise<ApiResponse<T>> {
	const deadline = Date.now() + DATABASE_NOT_READY_WAIT_MS;
	for (;;) {
		const response = await fetch(address, {
			method,
			headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
			signal,
		});
		const answer = { status: response.status, body: parseBody(await response.text()) as T };
		if (!isDatabaseNotReady(answer) || Date.now() > deadline) return answer;
		await sleep(1_000);
	}
}

/**
 * A GET on a connection of its own. n8n leaves the connection that served a large, slow `/types/*.json`
 * answer in a state fetch's pool notices only on the next request sent over it, which then fails with
 * "other side closed" (seen on 1.123.81 under load): these answers never go through the shared pool.
 */
async function getOnOwnConnection<T>(address: string, headers: Record<string, string>): Promise<ApiResponse<T>> {
	return await new Promise((resolve, reject) => {
		const request = httpGet(address, { agent: false, headers, signal: AbortSignal.timeout(300_000) }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ status: response.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString('utf8')) as T }));
			response.on('error', reject);
		});
		request.on('error', reject);
	});
}

/** How long a call waits out n8n's "Database is not ready!" (its database ping timed out: a busy machine). */
const DATABASE_NOT_READY_WAIT_MS = 60_000;

/**
 * A webhook call unanswered this long fails with n8n's log tail, well before fetch's own bare 300 s limit: a
 * queue-mode webhook process that misses a job's completion event waits forever (n8n-io/n8n issue 30392).
 */
const WEBHOOK_ANSWER_LIMIT_MS = 120_000;

/**
 * n8n answers 503 "Database is not ready!" from a middleware, before any handler runs, while its database
 * ping fails (on a loaded machine, SQLite's ping can time out): the same call can be sent again.
 */
export function isDatabaseNotReady(answer: ApiResponse): boolean {
	return answer.status === 503 && JSON.stringify(answer.body).includes('Database is not ready');
}

export function createApi(context: { url: string; webhookUrl: string; cookie: string; apiKey: string; logTail: () => string }): N8nApi {
	const { url, webhookUrl } = context;
	const session = sessionHeaders(context.cookie);
	const publicApi = async <T = unknown>(method: string, path: string, body?: unknown) =>
		await httpCall<T>(`${url}api/v1${path}`, method, { 'x-n8n-api-key': context.apiKey }, body);
	const rest = async <T = unknown>(method: string, path: string, body?: unknown) =>
		await httpCall<T>(`${url}rest${path}`, method, session, body);
	const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
		okBody(`${method} /api/v1${path}`, await publicApi<T>(method, path, body));
	const viaRest = context.apiKey === '' ? restBackedCalls(rest) : undefined;

	/**
	 * 2.x (de)activates through a publication outbox, after the API call has answered: wait until it is done.
	 * 1.x has no such endpoint (404) and has (de)activated before answering.
	 */
	const settledPublication = async (workflowId: string): Promise<PublicationStatus | undefined> => {
		const deadline = Date.now() + PUBLICATION_TIMEOUT_MS;
		while (Date.now() < deadline) {
			const response = await rest<{ data: PublicationStatus }>('GET', `/workflows/${workflowId}/publication-status`);
			if (response.status === 404) return undefined;
			const publication = okBody(`GET /rest/workflows/${workflowId}/publication-status`, response).data;
			if (publication.status !== 'in_progress') return publication;
			await sleep(200);
		}
		throw new Error(`Publishing workflow ${workflowId} did not settle within ${PUBLICATION_TIMEOUT_MS / 1000} s\n${context.logTail()}`);
	};

	const api: N8nApi = {
		async createCredential(name, type, data) {
			if (viaRest) return await viaRest.createCredential(name, type, data);
			// 1.x adds this field to credential types that authenticate requests, and its public API then requires it.
			const schema = await ok<{ properties?: Record<string, unknown> }>('GET', `/credentials/schema/${type}`);
			const complete = schema.properties?.allowedHttpRequestDomains ? { allowedHttpRequestDomains: 'all', ...data } : data;
			return await ok('POST', '/credentials', { name, type, data: complete });
		},
		async deleteCredential(id) {
			await ok('DELETE', `/credentials/${id}`);
		},
		async testCredential(credential) {
			const response = await rest<{ data: CredentialTestResult }>('POST', '/credentials/test', { credentials: credential });
			return okBody('POST /rest/credentials/test', response).data;
		},
		async createWorkflow(workflow) {
			if (viaRest) return await viaRest.createWorkflow(workflow);
			return await ok('POST', '/workflows', workflow);
		},
		async activate(workflowId) {
			if (viaRest) return await viaRest.activate(workflowId);
			await ok('POST', `/workflows/${workflowId}/activate`);
			const publication = await settledPublication(workflowId);
			if (publication?.status === 'failed' || publication?.status === 'partial') {
				const reasons = publication.triggers.map((trigger) => trigger.errorMessage).filter(Boolean);
				throw new Error(`Activating workflow ${workflowId} failed (${publication.status}): ${reasons.join('; ')}`);
			}
		},
		async deactivate(workflowId) {
			if (viaRest) return await viaRest.deactivate(workflowId);
			await ok('POST', `/workflows/${workflowId}/deactivate`);
			await settledPublication(workflowId);
		},
		async deleteWorkflow(workflowId) {
			if (viaRest) return await viaRest.deleteWorkflow(workflowId);
			// 2.x refuses to delete a published workflow (409); 1.x deactivates it on the way.
			const { active } = await ok<{ active: boolean }>('GET', `/workflows/${workflowId}`);
			if (active) await api.deactivate(workflowId);
			await ok('DELETE', `/workflows/${workflowId}`);
		},
		async listExecutions(workflowId, includeData = false) {
			if (viaRest) return await viaRest.listExecutions(workflowId, includeData);
			const query = new URLSearchParams({ workflowId, includeData: String(includeData), limit: '250' });
			const page = await ok<{ data: Execution[] }>('GET', `/executions?${query}`);
			return page.data.map((execution) => ({ ...execution, id: String(execution.id) })).sort((a, b) => Number(a.id) - Number(b.id));
		},
		async waitForExecutions(workflowId, count, timeoutMs = 30_000) {
			const deadline = Date.now() + timeoutMs;
			let seen: Execution[] = [];
			while (Date.now() < deadline) {
				seen = await api.listExecutions(workflowId);
				if (seen.filter((execution) => !STILL_RUNNING.includes(execution.status)).length >= count) {
					return (await api.listExecutions(workflowId, true)).filter((execution) => !STILL_RUNNING.includes(execution.status));
				}
				await sleep(500);
			}
			const statuses = seen.map((execution) => `${execution.id}:${execution.status}`).join(', ') || 'none';
			throw new Error(
				`Workflow ${workflowId} has not ${count} finished executions after ${timeoutMs / 1000} s (seen: ${statuses})\n${context.logTail()}`,
			);
		},
		async callWebhook(path, body, options = {}) {
			const method = options.method ?? 'POST';
			const sendsBody = body !== undefined && method !== 'GET';
			try {
				return await httpCall(`${webhookUrl}webhook/${path}`, method, options.headers ?? {}, sendsBody ? body : undefined, AbortSignal.timeout(WEBHOOK_ANSWER_LIMIT_MS));
			} catch (error) {
				if ((error as Error).name !== 'TimeoutError') throw error;
				throw new Error(`${method} webhook/${path}: no answer within ${WEBHOOK_ANSWER_LIMIT_MS / 1000} s\n${context.logTail()}`);
			}
		},
		async nodeTypes() {
			return okBody('GET /types/nodes.json', await getOnOwnConnection(`${url}types/nodes.json`, session));
		},
		async credentialTypes() {
			return okBody('GET /types/credentials.json', await getOnOwnConnection(`${url}types/credentials.json`, session));
		},
		publicApi,
		rest,
	};
	return api;
}

function okBody<T>(what: string, response: ApiResponse<T>): T {
	if (response.status < 200 || response.status >= 300) {
		throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 1000)}`);
	}
	return response.body;
}

function parseBody(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
