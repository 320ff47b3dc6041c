/**
 * Deliveries sent straight to a trigger's production webhook URL, as an attacker (or a broken
 * sender) would: arbitrary headers, methods and bodies, many at once, with every answer kept.
 */
import { randomInt } from 'node:crypto';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { DEMO, type Simulator } from '../../simulator/server.ts';
import { cleanEnv, log, sleep, spawnLogged } from './process.ts';
import type { Execution, N8nInstance } from './n8n.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, setNode, triggerWorkflow, type CredentialRef, type WorkflowNode } from './workflows.ts';

/** The trigger's header names (nodes/CampaignCallingTrigger/delivery.ts), spelled out so a rename there fails here. */
export const SECRET_HEADER = 'x-campaign-calling-secret';
export const EVENT_HEADER = 'x-campaign-calling-event';
/** The trigger's own limit on a delivery's body. */
export const TRIGGER_MAX_BODY_BYTES = 1024 * 1024;

export interface DeliveryRequest {
	method?: string;
	/** Added to the URL as is, e.g. '?secret=...'. */
	query?: string;
	/** Pairs rather than an object, so one name can be sent twice. */
	headers?: Array<[string, string]>;
	body?: string;
	/** Sends the body with chunked transfer encoding (no Content-Length). */
	chunked?: boolean;
	/** How long to wait for the whole answer; default 60 s. */
	timeoutMs?: number;
}

export interface DeliveryAnswer {
	/** The HTTP status, or 0 when no answer came (the connection failed). */
	status: number;
	text: string;
	/** The network error's code or message when status is 0. */
	error?: string;
}

/** The production URL of a trigger node: `<webhookUrl>webhook/<webhookId>/webhook`. */
export function triggerUrl(n8n: N8nInstance, trigger: WorkflowNode): string {
	if (!trigger.webhookId) throw new Error(`Node ${trigger.name} has no webhookId`);
	return `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
}

/**
 * n8n answers readiness before its webhooks are back after a restart: a forged delivery is answered 401 by
 * the trigger once its production webhook at `url` is served, 404 until then.
 */
export async function untilServed(url: string): Promise<void> {
	const deadline = Date.now() + 120_000;
	for (;;) {
		const answer = await sendDelivery(url, { headers: [['content-type', 'application/json']], body: '{}' });
		if (answer.status === 401) return;
		if (Date.now() > deadline) throw new Error(`${url} still answers ${answer.status} after n8n's restart`);
		await sleep(500);
	}
}

/**
 * The secret of the newest module delivering to `url` (read from the simulator's records): any of a
 * trigger's current modules is accepted for any of its events, and each module has its own secret.
 */
export function registeredSecret(simulator: Simulator, url: string): string {
	const newest = [...simulator.state.webhookModules.values()].filter(({ record }) => record.settings.url === url).at(-1);
	if (newest === undefined) throw new Error(`The service holds no module for ${url}`);
	const secret = newest.record.settings.headers[SECRET_HEADER];
	if (typeof secret !== 'string' || secret === '') throw new Error(`The modules for ${url} carry no ${SECRET_HEADER}`);
	return secret;
}

/**
 * Sends one request on a connection of its own and never throws: a refused or dropped connection is
 * status 0. Node's http rather than fetch: it sends a header name twice, a body chunked on request,
 * and no request reuses a socket an earlier (refused, half-read) large body left behind.
 */
export async function sendDelivery(url: string, request: DeliveryRequest = {}): Promise<DeliveryAnswer> {
	const headers: Record<string, string | string[]> = {};
	for (const [name, value] of request.headers ?? []) {
		const existing = headers[name];
		headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
	}
	const body = request.body === undefined ? undefined : Buffer.from(request.body);
	if (body !== undefined && !request.chunked) headers['content-length'] = String(body.length);
	return await new Promise<DeliveryAnswer>((resolve) => {
		let settled = false;
		const settle = (answer: DeliveryAnswer) => {
			if (!settled) resolve(answer);
			settled = true;
		};
		const outgoing = http.request(`${url}${request.query ?? ''}`, {
			method: request.method ?? 'POST',
			headers,
			agent: false,
			signal: AbortSignal.timeout(request.timeoutMs ?? 60_000),
		});
		outgoing.on('response', (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => settle({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
			response.on('error', (error) => settle({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), error: errorCode(error) }));
		});
		// A server that answers before reading a large body may close the socket under the upload: the
		// answer, when one came, is what counts.
		outgoing.on('error', (error) => setTimeout(() => settle({ status: 0, text: '', error: errorCode(error) }), 50));
		if (body === undefined) {
			outgoing.end();
		} else if (request.chunked) {
			for (let offset = 0; offset < body.length; offset += 64 * 1024) outgoing.write(body.subarray(offset, offset + 64 * 1024));
			outgoing.end();
		} else {
			outgoing.end(body);
		}
	});
}

function errorCode(error: unknown): string {
	return (error as { code?: string }).code ?? (error as Error).message;
}

/** Runs `task` over `work`, at most `concurrency` at a time; results in the order of `work`. */
export async function inPool<T, R>(work: T[], concurrency: number, task: (entry: T, index: number) => Promise<R>): Promise<R[]> {
	const results = new Array<R>(work.length);
	let next = 0;
	const worker = async () => {
		while (next < work.length) {
			const index = next++;
			results[index] = await task(work[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, work.length) }, worker));
	return results;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A string like the trigger's secrets (same alphabet), from the platform's secure generator. */
export function randomSecretLike(length = 64): string {
	return Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

/** A JSON event body of exactly `bytes` bytes (padding inside `data`), a valid delivery in every other way. */
export function eventBodyOfSize(bytes: number, eventType = 'call.ended'): string {
	const empty = JSON.stringify({ event_type: eventType, data: { padding: '' } });
	if (bytes < empty.length) throw new Error(`A body needs at least ${empty.length} bytes`);
	const body = JSON.stringify({ event_type: eventType, data: { padding: 'x'.repeat(bytes - empty.length) } });
	return body;
}

/** Counts of each distinct value, e.g. the statuses seen: `{ '401': 998, '0': 2 }`. */
export function countBy<T>(values: T[], key: (value: T) => string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) {
		const name = key(value);
		counts[name] = (counts[name] ?? 0) + 1;
	}
	return counts;
}

export interface FloodOptions {
	concurrency: number;
	/** Attempts after the first for a delivery answered non-2xx or not at all (the service retries too). */
	retries: number;
	/** How long one attempt waits for its answer, as a module's Timeout does. */
	timeoutMs: number;
	/** Wait before retry n (1-based); default 2^n seconds, so 5 retries span a minute, time for n8n to restart. */
	backoffMs?: (retry: number) => number;
	/** Called once per delivery started, in order: e.g. to restart n8n after the 400th. */
	onStart?: (index: number) => Promise<void> | void;
}

/** One attempt of a delivery: its answer, and when it was sent (Date.now()): which n8n process could have answered it. */
export interface FloodAttempt extends DeliveryAnswer {
	sentAt: number;
}

export interface FloodDelivery {
	/** Every attempt, in order; the last one's answer is what the sender kept. */
	attempts: FloodAttempt[];
	/** Whether an attempt was answered 2xx. */
	acknowledged: boolean;
}

/**
 * Sends each body once, as the service sends a delivery: answered non-2xx or not at all within the
 * timeout, it is sent again after a pause, up to `retries` times. Never throws.
 */
export async function flood(
	url: string,
	secret: string,
	bodies: unknown[],
	options: FloodOptions,
): Promise<FloodDelivery[]> {
	const backoff = options.backoffMs ?? ((retry: number) => 1000 * 2 ** retry);
	return await inPool(bodies, options.concurrency, async (body, index) => {
		await options.onStart?.(index);
		const attempts: FloodAttempt[] = [];
		for (let attempt = 0; attempt <= options.retries; attempt++) {
			if (attempt > 0) await sleep(backoff(attempt));
			const sentAt = Date.now();
			const answer = await sendDelivery(url, {
				headers: [
					['content-type', 'application/json'],
					[SECRET_HEADER, secret],
				],
				body: JSON.stringify(body),
				timeoutMs: options.timeoutMs,
			});
			attempts.push({ ...answer, sentAt });
			if (answer.status >= 200 && answer.status < 300) return { attempts, acknowledged: true };
		}
		return { attempts, acknowledged: false };
	});
}

/** What a flood came to, per event: the figures the trigger's delivery guarantee is judged by. */
export interface FloodCounts {
	sent: number;
	/** Answered 2xx, at some attempt. */
	answered: number;
	/** Needed more than one attempt. */
	retried: number;
	/** Events in at least one successful execution. */
	executed: number;
	/** Answered 2xx but in no successful execution. */
	lost: number;
	/** In more than one successful execution. */
	doubled: number;
	/** Of the lost: answered 2xx, and in an execution that did not succeed (canceled or crashed by a restart, failed): visible and retryable in n8n. */
	lostInUnfinishedExecution: number;
	/** Answers other than 2xx, by status (0 = none came), over all attempts. */
	failedAttempts: Record<string, number>;
}

export function floodCounts(markers: string[], deliveries: FloodDelivery[], executedMarkers: string[], unfinishedMarkers: string[] = []): FloodCounts {
	const runs = countBy(executedMarkers, (marker) => marker);
	const unfinished = new Set(unfinishedMarkers);
	const failedAttempts = countBy(
		deliveries.flatMap((delivery) => delivery.attempts.filter((answer) => answer.status < 200 || answer.status >= 300)),
		(answer) => String(answer.status),
	);
	return {
		sent: markers.length,
		answered: deliveries.filter((delivery) => delivery.acknowledged).length,
		retried: deliveries.filter((delivery) => delivery.attempts.length > 1).length,
		executed: markers.filter((marker) => (runs[marker] ?? 0) > 0).length,
		lost: markers.filter((marker, index) => deliveries[index].acknowledged && (runs[marker] ?? 0) === 0).length,
		doubled: markers.filter((marker) => (runs[marker] ?? 0) > 1).length,
		lostInUnfinishedExecution: markers.filter((marker, index) => deliveries[index].acknowledged && (runs[marker] ?? 0) === 0 && unfinished.has(marker)).length,
		failedAttempts,
	};
}

/**
 * Processes that keep CPU cores busy (a loop each, in their own process group), so that a flood
 * meets the contention of a loaded server. stop() ends them.
 */
export function startBusyLoad(processes: number, logFile: string): { stop: () => Promise<void> } {
	const busy = Array.from({ length: processes }, (_, index) =>
		spawnLogged({
			command: process.execPath,
			args: ['-e', 'for (;;) {}'],
			cwd: tmpdir(),
			env: cleanEnv(),
			logFile,
			label: `busy load ${index + 1}`,
			stopSignal: 'SIGKILL',
		}),
	);
	return { stop: async () => void (await Promise.all(busy.map((each) => each.stop()))) };
}

const STILL_RUNNING = ['new', 'running', 'waiting'];

/** Every execution of the workflow (the public API pages by 250), oldest first. */
export async function allExecutions(n8n: N8nInstance, workflowId: string, includeData = false): Promise<Execution[]> {
	const executions: Execution[] = [];
	let cursor: string | undefined;
	do {
		const query = new URLSearchParams({ workflowId, includeData: String(includeData), limit: '250' });
		if (cursor) query.set('cursor', cursor);
		const page = await n8n.api.publicApi<{ data: Execution[]; nextCursor?: string | null }>('GET', `/executions?${query}`);
		if (page.status !== 200) throw new Error(`GET /executions: HTTP ${page.status} ${JSON.stringify(page.body).slice(0, 500)}`);
		executions.push(...page.body.data.map((execution) => ({ ...execution, id: String(execution.id) })));
		cursor = page.body.nextCursor ?? undefined;
	} while (cursor);
	return executions.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Once no execution of the workflow is running and their number held still for a few seconds: all of
 * them, with data. After `timeoutMs` it returns what there is, with `settled: false`: executions n8n
 * never finishes count as not successful, which is what they are to the sender.
 */
export async function settledExecutions(n8n: N8nInstance, workflowId: string, timeoutMs = 15 * 60_000): Promise<Execution[] & { settled?: boolean }> {
	const deadline = Date.now() + timeoutMs;
	let seen = -1;
	let stillFor = 0;
	while (Date.now() < deadline) {
		const all = await allExecutions(n8n, workflowId);
		const running = all.filter((execution) => STILL_RUNNING.includes(execution.status)).length;
		stillFor = running === 0 && all.length === seen ? stillFor + 1 : 0;
		seen = all.length;
		if (stillFor >= 3) return Object.assign(await allExecutions(n8n, workflowId, true), { settled: true });
		await sleep(1500);
	}
	return Object.assign(await allExecutions(n8n, workflowId, true), { settled: false });
}

/** What settle markers start with: `executionsBeforeMarker` leaves out every execution that carries one. */
export const SETTLE_MARKER_PREFIX = 'settle-marker-';

/** A new marker for `executionsBeforeMarker`, to send as `data.marker` of an event that must run. */
export function settleMarker(): string {
	return `${SETTLE_MARKER_PREFIX}${randomUUID()}`;
}

/** The `data.marker` of each event the trigger passed on in an execution. */
function triggerMarkers(execution: Execution): unknown[] {
	return itemsOf(execution, TRIGGER_NODE_NAME).map((item) => (item.data as { marker?: unknown } | undefined)?.marker);
}

/**
 * The workflow's executions once n8n has handled everything sent to it before a marker: a negative check
 * ("this started no execution") that does not end on a fixed sleep, which a loaded machine outlasts.
 * Call it after the delivery of a new event carrying `marker` (from settleMarker) was answered, that
 * delivery sent after every delivery the check is about had been answered. n8n creates a delivery's
 * execution while it handles the delivery, and starts the executions it holds for a slot in the order
 * it took them, so once the marker's execution has run, an execution of an earlier delivery exists.
 * It waits until the execution holding the marker has finished, nothing is running, and two reads in a
 * row list the same executions with the same statuses; then returns them with data, oldest first,
 * without those holding any settle marker (this one or an earlier check's), so a check can compare them
 * with what it expects. It throws when the marker's execution has not finished within `timeoutMs`.
 */
export async function executionsBeforeMarker(n8n: N8nInstance, workflowId: string, marker: string, timeoutMs = 180_000): Promise<Execution[]> {
	const deadline = Date.now() + timeoutMs;
	let previous: string | undefined;
	let last = 'no read yet';
	while (Date.now() < deadline) {
		const all = await allExecutions(n8n, workflowId);
		const listing = all.map((execution) => `${execution.id}:${execution.status}`).join(' ');
		const running = all.some((execution) => STILL_RUNNING.includes(execution.status));
		if (!running && listing === previous) {
			const withData = await allExecutions(n8n, workflowId, true);
			const same = withData.map((execution) => `${execution.id}:${execution.status}`).join(' ') === listing;
			if (same && withData.some((execution) => triggerMarkers(execution).includes(marker))) {
				return withData.filter((execution) => !triggerMarkers(execution).some((seen) => typeof seen === 'string' && seen.startsWith(SETTLE_MARKER_PREFIX)));
			}
		}
		previous = running ? undefined : listing;
		last = listing;
		await sleep(1000);
	}
	throw new Error(`Workflow ${workflowId}: no finished execution carries ${marker} after ${timeoutMs / 1000} s (executions: ${last})`);
}

/** The items a node passed on in an execution; empty when it did not run. */
export function itemsOf(execution: Execution, nodeName: string): Array<Record<string, unknown>> {
	const run = execution.data?.resultData.runData[nodeName]?.[0];
	return (run?.data?.main?.[0] ?? []).map((item) => item.json);
}

/** The node after the trigger in a flood's workflow: its runs show which events went downstream. */
export const DOWNSTREAM = 'Downstream';

/**
 * A flood test's time limit in Jest, sized for the soak run's heavier floods (1,000 events under load, at
 * under one execution a second). A flood that hangs fails earlier, at its own deadline (floodDeadlineMs).
 */
export const FLOOD_TEST_TIMEOUT_MS = 50 * 60_000;

/**
 * How long a flood may take from its first delivery until n8n settled its executions: 4 minutes plus 1 s
 * per event (9 minutes for `npm test`'s 300 events, whose floods took 1-4 minutes with a restart of n8n
 * in the middle; 20.7 minutes for 1,000, which took up to 6 minutes under load, bench/RESULTS.md 2c).
 */
export function floodDeadlineMs(events: number): number {
	return 4 * 60_000 + events * 1000;
}

/** `work`, or a rejection with `message()` once `ms` have passed (the work itself is left to end on its own). */
export async function withinDeadline<T>(work: Promise<T>, ms: number, message: () => string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const expired = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new Error(message())), ms);
	});
	try {
		return await Promise.race([work, expired]);
	} finally {
		clearTimeout(timer);
	}
}

export interface TriggerFloodSettings {
	events: number;
	concurrency: number;
	retries: number;
	timeoutMs: number;
	/** Bytes of transcript in each event, as call.ended events carry. */
	transcriptBytes: number;
	/** Processes kept busy on the CPU while the flood runs. */
	busyProcesses: number;
	/** Wait before retry n; default 2^n seconds (see FloodOptions). */
	backoffMs?: (retry: number) => number;
}

/**
 * The flood `npm test` sends: 300 distinct events at concurrency 25, each retried up to 5 times, on n8n
 * alone (a 2-core machine, n8n at full load). The heavier flood of issue 19's proof (1,000 events with two
 * CPU-busy processes beside n8n) takes E2E_FLOOD_EVENTS=1000 E2E_FLOOD_BUSY=2: tens of minutes per line.
 */
export const TRIGGER_FLOOD: TriggerFloodSettings = {
	events: Number(process.env.E2E_FLOOD_EVENTS ?? 300),
	concurrency: 25,
	retries: 5,
	timeoutMs: 30_000,
	transcriptBytes: Number(process.env.E2E_FLOOD_TRANSCRIPT_BYTES ?? 20_000),
	busyProcesses: Number(process.env.E2E_FLOOD_BUSY ?? 0),
};

/**
 * The n8n a flood runs in: n8n's default grace period for shutdown (30 s, where the harness otherwise
 * gives 10 s to stop quickly), so a restart mid-flood lets running executions finish as n8n would.
 * More pressure: E2E_FLOOD_SQLITE_POOL_SIZE sets DB_SQLITE_POOL_SIZE (on 1.x, whose default 0 is
 * SQLite's legacy driver, any value turns on the pooled driver with its single write lock, which times
 * out after 60 s as 2.x's does).
 */
export function floodN8nEnv(): Record<string, string> {
	const poolSize = process.env.E2E_FLOOD_SQLITE_POOL_SIZE;
	return { N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '30', ...(poolSize ? { DB_SQLITE_POOL_SIZE: poolSize } : {}) };
}

export interface TriggerFloodResult {
	counts: FloodCounts;
	executions: Execution[];
	/** Successful executions in which the downstream node ran. */
	downstreamRuns: number;
	workflowId: string;
	url: string;
	secret: string;
	bodies: Array<{ event_type: string; event_id: string; data: { marker: string } }>;
	/** Per body (same order), every attempt's answer. */
	deliveries: FloodDelivery[];
}

/**
 * Activates a workflow (the trigger, then a Set node), floods it with distinct events as the service
 * sends them while busy processes load the machine, waits for n8n to settle, and counts per event.
 * `n8n()` is asked again after the flood, so a test may have restarted n8n during it (`during`).
 */
export async function floodTrigger(options: {
	n8n: () => N8nInstance;
	simulator: Simulator;
	credential: CredentialRef;
	label: string;
	triggerOptions: Record<string, unknown>;
	settings?: TriggerFloodSettings;
	loadLogFile: string;
	during?: { onStart: (index: number) => void; settled: () => Promise<unknown> };
}): Promise<TriggerFloodResult> {
	const settings = options.settings ?? TRIGGER_FLOOD;
	const trigger = campaignCallingTriggerNode(['call.ended'], options.credential, options.triggerOptions);
	const workflow = await options.n8n().api.createWorkflow(triggerWorkflow(`flood: ${options.label}`, trigger, [setNode(DOWNSTREAM, { ran: true })]));
	await options.n8n().api.activate(workflow.id);
	const url = triggerUrl(options.n8n(), trigger);
	const secret = registeredSecret(options.simulator, url);
	const bodies = Array.from({ length: settings.events }, (_, index) => ({
		event_type: 'call.ended',
		event_id: randomUUID(),
		data: { contact_id: DEMO.completedContactId, marker: `${options.label}-${index}`, transcript: 'x'.repeat(settings.transcriptBytes) },
	}));

	const load = startBusyLoad(settings.busyProcesses, options.loadLogFile);
	const started = Date.now();
	const progress = { phase: 'sending', started: 0 };
	const sendAndSettle = async () => {
		let deliveries: FloodDelivery[];
		try {
			deliveries = await flood(url, secret, bodies, {
				...settings,
				onStart: (index) => {
					progress.started = index + 1;
					options.during?.onStart(index);
				},
			});
			await options.during?.settled();
		} finally {
			await load.stop();
		}
		const seconds = (Date.now() - started) / 1000;
		log(
			`flood "${options.label}": sent ${bodies.length} in ${seconds.toFixed(1)} s; answered 2xx ${deliveries.filter((each) => each.acknowledged).length}, ` +
				`retried ${deliveries.filter((each) => each.attempts.length > 1).length}; waiting for n8n to finish its executions`,
		);
		progress.phase = 'waiting for n8n to finish its executions';
		return { deliveries, seconds, executions: await settledExecutions(options.n8n(), workflow.id) };
	};
	const deadlineMs = floodDeadlineMs(settings.events);
	const { deliveries, seconds, executions } = await withinDeadline(sendAndSettle(), deadlineMs, () => {
		void load.stop();
		return (
			`flood "${options.label}" hung: not done ${deadlineMs / 60_000} min after its first delivery (the flood's deadline), ` +
			`still ${progress.phase}, ${progress.started} of ${settings.events} deliveries started; n8n's log: ${options.n8n().logFile}`
		);
	});
	const succeeded = executions.filter((execution) => execution.status === 'success');
	const executedMarkers = succeeded.flatMap((execution) => itemsOf(execution, TRIGGER_NODE_NAME).map((item) => (item.data as { marker: string }).marker));
	// An execution that did not finish (crashed or canceled at shutdown) may hold its event only in what n8n
	// saved when it created it (the trigger's input), not in the trigger's output: look through all of it.
	const markerPattern = new RegExp(`"(${options.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+)"`, 'g');
	const markersOf = (some: Execution[]) =>
		some.flatMap((execution) => [...new Set([...JSON.stringify(execution.data ?? {}).matchAll(markerPattern)].map((match) => match[1]))]);
	const counts = floodCounts(
		bodies.map((body) => body.data.marker),
		deliveries,
		executedMarkers,
		markersOf(executions.filter((execution) => execution.status !== 'success')),
	);
	const downstreamRuns = succeeded.filter((execution) => itemsOf(execution, DOWNSTREAM).length > 0).length;
	log(
		`flood "${options.label}": ${settings.events} events at concurrency ${settings.concurrency}, ${settings.busyProcesses} busy processes, ` +
			`${settings.transcriptBytes} B transcripts, in ${seconds.toFixed(1)} s: ${JSON.stringify(counts)}; ` +
			`executions by status ${JSON.stringify(countBy(executions, (execution) => execution.status))}${executions.settled ? '' : ' (n8n had not finished them after 15 minutes)'}, downstream runs ${downstreamRuns}`,
	);
	return { counts, executions, downstreamRuns, workflowId: workflow.id, url, secret, bodies, deliveries };
}
