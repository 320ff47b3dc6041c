/**
 * A burst of call.ended events into an n8n whose executions queue (issue 27): n8n's production
 * concurrency limit in one process, or a busy worker in queue mode, with a slow workflow behind each
 * event (a Wait that holds its execution's slot, then a Set node that marks the event). Each event is
 * sent as the service sends a delivery, retried when its answer does not come in time; then the
 * executions are counted in n8n's own database once nothing is queued or running, since the public
 * API does not list executions that are still queued.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { parse } from 'flatted';
import { DEMO, type Simulator } from '../../simulator/server.ts';
import { flood, registeredSecret, triggerUrl, type FloodDelivery } from './deliveries.ts';
import type { ExecutionData, N8nInstance } from './n8n.ts';
import { log, sleep } from './process.ts';
import { ensureQueueServices, type QueueN8nInstance } from './queue.ts';
import type { N8nVersion } from './runtime.ts';
import { SOAK_RUN } from './soak.ts';
import { WEBHOOK_NODE_NAME, campaignCallingTriggerNode, chain, node, setNode, workflow, type CredentialRef, type WorkflowNode } from './workflows.ts';

export interface FullQueueSettings {
	events: number;
	/** Deliveries in flight at once. */
	concurrency: number;
	/** How long one attempt waits for its answer (the module's Timeout). */
	timeoutMs: number;
	/** Attempts after the first (the module's Retry Limit). */
	retries: number;
	/** Wait before retry n (1-based). */
	backoffMs: (retry: number) => number;
	/** How long each execution holds its slot: a Wait node under 65 s sleeps inside its execution. */
	waitSeconds: number;
}

/** The simulator's own pause before retry n of a delivery: 200 ms, 400 ms, 600 ms. */
export const SERVICE_BACKOFF_MS = (retry: number) => 200 * retry;

/**
 * Issue 27's burst: 24 events, 8 in parallel, 10 s per attempt and 3 retries, against 4-s executions.
 * With 2 slots, n8n starts 2 executions every 4 s, so from the 6th queued event on the answer comes after
 * the sender gave up: most first attempts time out, as on a busy n8n Cloud plan.
 */
export const FULL_QUEUE_BURST: FullQueueSettings = {
	events: 24,
	concurrency: 8,
	timeoutMs: 10_000,
	retries: 3,
	backoffMs: SERVICE_BACKOFF_MS,
	waitSeconds: 4,
};

/** The opt-in heavier burst (E2E_FULL_QUEUE_HEAVY=1): 100 events, 16 in parallel, otherwise the same. */
export const FULL_QUEUE_HEAVY_BURST: FullQueueSettings = { ...FULL_QUEUE_BURST, events: 100, concurrency: 16 };

/** The burst a run uses: the heavier one when E2E_FULL_QUEUE_HEAVY=1. */
export function fullQueueSettings(): FullQueueSettings {
	return process.env.E2E_FULL_QUEUE_HEAVY === '1' ? FULL_QUEUE_HEAVY_BURST : FULL_QUEUE_BURST;
}

/**
 * One path's test: the burst, the drain and the counting. 24 events take 1-3 minutes; the heavier burst's
 * retry storm, on a 2-core machine at 2 executions per 4 s, can take half an hour.
 */
export function fullQueueTestTimeoutMs(): number {
	return process.env.E2E_FULL_QUEUE_HEAVY === '1' ? 60 * 60_000 : 15 * 60_000;
}

/**
 * How long a burst's queue may take to drain before the row says `drained: false` and its test fails: 5
 * minutes for issue 27's burst (the retry storm of the code before it drained in 160 s), 45 for the heavier one.
 */
export function fullQueueDrainTimeoutMs(): number {
	return process.env.E2E_FULL_QUEUE_HEAVY === '1' ? 45 * 60_000 : 5 * 60_000;
}

/** n8n's production concurrency limit in these runs; in queue mode it also sets the worker's concurrency. */
export const CONCURRENCY_LIMIT = 2;

/**
 * The delivery paths compared: the trigger at the defaults a new trigger gets (`options: {}`, so it
 * follows whatever the defaults are), the trigger keyed on event_id, and n8n's Webhook node answering
 * at once (Respond Immediately), the same Wait and Set behind each.
 */
export const FULL_QUEUE_PATHS = {
	triggerDefaults: 'the trigger at its defaults',
	triggerRepeatKey: 'the trigger, Ignore Repeats on, Repeat Key event_id',
	webhookRespondImmediately: "n8n's Webhook node, Respond Immediately",
} as const;
export type FullQueuePath = keyof typeof FULL_QUEUE_PATHS;

const TRIGGER_OPTIONS: Record<Exclude<FullQueuePath, 'webhookRespondImmediately'>, Record<string, unknown>> = {
	triggerDefaults: {},
	triggerRepeatKey: { ignoreRepeats: true, repeatKey: 'event_id' },
};

/** The last node: its runs say which events went through the whole workflow. */
export const MARKER_NODE = 'Marker';
const WAIT_NODE = 'Wait';

export interface FullQueueRow {
	path: FullQueuePath;
	events: number;
	/** Deliveries answered 2xx at some attempt. */
	answered: number;
	/** Deliveries that needed more than one attempt. */
	retried: number;
	/** Attempts after the first, over all deliveries. */
	extraAttempts: number;
	/** Every execution of the workflow in n8n's database, whatever its status. */
	executions: number;
	executionsByStatus: Record<string, number>;
	/** Events by how many executions ran the Marker node for them. */
	ranNever: number;
	ranOnce: number;
	ranTwiceOrMore: number;
	/** The most runs of one event. */
	mostRuns: number;
	/** From the first delivery to n8n's database holding no queued or running execution of the workflow. */
	drainedSeconds: number;
	/** False when n8n still had queued or running executions at the time limit. */
	drained: boolean;
	/** Statuses of the attempts that were not answered 2xx (0: no answer in time). */
	failedAttempts: Record<string, number>;
}

/** One execution as n8n's database holds it: status, and the run data once it finished. */
export interface StoredExecution {
	id: string;
	status: string;
	data?: ExecutionData;
}

/**
 * Reads a workflow's executions from n8n's own database: SQLite in one process, Postgres in queue mode.
 * Without `withData` only ids and statuses: the cheap read the drain polls with.
 */
export type ExecutionStore = (workflowId: string, withData?: boolean) => Promise<StoredExecution[]>;

const STILL_QUEUED_OR_RUNNING = ['new', 'running', 'waiting', 'unknown'];

const EXECUTIONS_SQL = (workflowId: string, withData: boolean) =>
	(withData
		? 'SELECT e.id, e.status, d.data FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id '
		: 'SELECT e.id, e.status, NULL AS data FROM execution_entity e ') +
	`WHERE e."workflowId" = '${workflowId.replace(/'/g, "''")}' ORDER BY e.id`;

/** n8n's run data is stored flatted-encoded (it may hold cycles); a queued execution's may not parse yet. */
function decodeRunData(raw: string | null | undefined): ExecutionData | undefined {
	if (!raw) return undefined;
	try {
		return parse(raw) as ExecutionData;
	} catch {
		return undefined;
	}
}

/**
 * The SQLite database of a single-process n8n (`<userFolder>/.n8n/database.sqlite`), opened read-only per
 * query. n8n 1.x's default driver keeps SQLite's rollback journal, where a reader and n8n's writes lock each
 * other out for a moment: a read that finds the database locked waits and tries again.
 */
export function sqliteExecutions(n8n: N8nInstance): ExecutionStore {
	const file = join(n8n.userFolder, '.n8n', 'database.sqlite');
	return async (workflowId, withData = false) => {
		for (let attempt = 1; ; attempt++) {
			const database = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
			try {
				const rows = database.prepare(EXECUTIONS_SQL(workflowId, withData)).all() as Array<{ id: number; status: string; data: string | null }>;
				return rows.map((row) => ({ id: String(row.id), status: row.status, data: decodeRunData(row.data) }));
			} catch (error) {
				if (attempt >= 20 || !/locked|busy/i.test((error as Error).message)) throw error;
			} finally {
				database.close();
			}
			await sleep(250);
		}
	};
}

const execFileAsync = promisify(execFile);

/** The Postgres database of a queue-mode n8n, read with psql: one row a line, columns split by a unit separator. */
export function postgresExecutions(n8n: QueueN8nInstance): ExecutionStore {
	return async (workflowId, withData = false) => {
		const { postgresBin } = await ensureQueueServices();
		const { port, database, user, password } = n8n.postgres;
		const { stdout } = await execFileAsync(
			join(postgresBin, 'psql'),
			['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-At', '-F', '\x1f', '-c', EXECUTIONS_SQL(workflowId, withData)],
			{ env: { ...process.env, PGPASSWORD: password }, maxBuffer: 512 * 1024 * 1024 },
		);
		return stdout
			.split('\n')
			.filter((line) => line !== '')
			.map((line) => {
				const [id, status, data] = line.split('\x1f');
				return { id, status, data: decodeRunData(data) };
			});
	};
}

/**
 * Waits until none of the workflow's executions is queued or running and their number held still for
 * 2 s (polling statuses only), then returns them all with their data.
 */
export async function drainedExecutions(
	store: ExecutionStore,
	workflowId: string,
	timeoutMs: number,
): Promise<{ executions: StoredExecution[]; drained: boolean; drainedAt: number }> {
	const deadline = Date.now() + timeoutMs;
	let seen = -1;
	let idleSince: number | undefined;
	while (Date.now() < deadline) {
		const executions = await store(workflowId);
		const busy = executions.some((execution) => STILL_QUEUED_OR_RUNNING.includes(execution.status));
		if (busy) idleSince = undefined;
		else if (idleSince === undefined || executions.length !== seen) idleSince = Date.now();
		seen = executions.length;
		if (idleSince !== undefined && Date.now() - idleSince >= 2000) return { executions: await store(workflowId, true), drained: true, drainedAt: idleSince };
		await sleep(500);
	}
	return { executions: await store(workflowId, true), drained: false, drainedAt: Date.now() };
}

/**
 * Trigger or Webhook node → Wait (holds the slot) → Marker (the event's marker). `triggerOptions` are
 * laid over the path's trigger options (e.g. the module's Timeout and Retry Limit).
 */
export function burstWorkflow(
	path: FullQueuePath,
	credential: CredentialRef,
	waitSeconds: number,
	triggerOptions: Record<string, unknown> = {},
): { nodes: WorkflowNode[]; first: WorkflowNode } {
	const first =
		path === 'webhookRespondImmediately'
			? node(WEBHOOK_NODE_NAME, 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: `full-queue-${randomUUID()}`, responseMode: 'onReceived', options: {} }, { webhookId: randomUUID() })
			: campaignCallingTriggerNode(['call.ended'], credential, { ...TRIGGER_OPTIONS[path], ...triggerOptions });
	const wait = node(WAIT_NODE, 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: waitSeconds, unit: 'seconds' }, { webhookId: randomUUID() });
	// The trigger passes the event on as is; the Webhook node under `body`.
	const marker = setNode(MARKER_NODE, { marker: '={{ $json.body ? $json.body.data.marker : $json.data.marker }}' });
	return { nodes: [first, wait, marker], first };
}

/** The markers of the events whose Marker node ran in each execution. */
export function markersRun(executions: StoredExecution[]): string[] {
	return executions.flatMap((execution) =>
		(execution.data?.resultData.runData[MARKER_NODE] ?? []).flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => String(item.json.marker))),
	);
}

export interface FullQueueBurstOptions {
	n8n: N8nInstance;
	path: FullQueuePath;
	settings: FullQueueSettings;
	simulator: Simulator;
	credential: CredentialRef;
	/** Where the executions are counted: sqliteExecutions(n8n) or postgresExecutions(n8n). */
	store: ExecutionStore;
	/** How long n8n may take to drain its queue after the burst; default fullQueueDrainTimeoutMs(). */
	drainTimeoutMs?: number;
}

/**
 * Activates the path's workflow, sends the burst (distinct call.ended events, each with its own
 * event_id and marker; a retry resends the same body), waits until n8n has drained its queue, counts
 * from its database, and deactivates the workflow so the next burst has n8n to itself.
 */
export async function fullQueueBurst(options: FullQueueBurstOptions): Promise<FullQueueRow> {
	const { n8n, path, settings } = options;
	// E2E_FULL_QUEUE_SENDER_MODULE=1: the trigger's module registered with the sender's Timeout and Retry Limit (default: the trigger's own defaults, 30 s and 3).
	const moduleSettings = process.env.E2E_FULL_QUEUE_SENDER_MODULE === '1' ? { timeout: settings.timeoutMs / 1000, retryLimit: settings.retries } : {};
	const { nodes, first } = burstWorkflow(path, options.credential, settings.waitSeconds, moduleSettings);
	const created = await n8n.api.createWorkflow(workflow(`full queue: ${path}`, nodes, chain(nodes.map((each) => each.name))));
	await n8n.api.activate(created.id);
	const url = path === 'webhookRespondImmediately' ? `${n8n.webhookUrl}webhook/${first.parameters.path as string}` : triggerUrl(n8n, first);
	// The Webhook node checks no secret; the header is sent all the same, so every path gets the same request.
	const secret = path === 'webhookRespondImmediately' ? 'unused' : registeredSecret(options.simulator, url);
	const label = `fq-${path}`;
	const markers = Array.from({ length: settings.events }, (_, index) => `${label}-${index}`);
	const bodies = markers.map((marker) => ({ event_type: 'call.ended', event_id: randomUUID(), data: { contact_id: DEMO.completedContactId, marker } }));

	const started = Date.now();
	const deliveries: FloodDelivery[] = await flood(url, secret, bodies, settings);
	log(`full queue, n8n ${n8n.version}, ${FULL_QUEUE_PATHS[path]}: burst sent in ${((Date.now() - started) / 1000).toFixed(1)} s; waiting for the queue to drain`);
	const { executions, drained, drainedAt } = await drainedExecutions(options.store, created.id, options.drainTimeoutMs ?? fullQueueDrainTimeoutMs());
	await n8n.api.deactivate(created.id);

	const runs: Record<string, number> = {};
	for (const marker of markersRun(executions)) runs[marker] = (runs[marker] ?? 0) + 1;
	const runsPerEvent = markers.map((marker) => runs[marker] ?? 0);
	const failedAttempts: Record<string, number> = {};
	for (const answer of deliveries.flatMap((delivery) => delivery.attempts)) {
		if (answer.status >= 200 && answer.status < 300) continue;
		failedAttempts[answer.status] = (failedAttempts[answer.status] ?? 0) + 1;
	}
	const executionsByStatus: Record<string, number> = {};
	for (const execution of executions) executionsByStatus[execution.status] = (executionsByStatus[execution.status] ?? 0) + 1;
	const row: FullQueueRow = {
		path,
		events: settings.events,
		answered: deliveries.filter((delivery) => delivery.acknowledged).length,
		retried: deliveries.filter((delivery) => delivery.attempts.length > 1).length,
		extraAttempts: deliveries.reduce((sum, delivery) => sum + delivery.attempts.length - 1, 0),
		executions: executions.length,
		executionsByStatus,
		ranNever: runsPerEvent.filter((count) => count === 0).length,
		ranOnce: runsPerEvent.filter((count) => count === 1).length,
		ranTwiceOrMore: runsPerEvent.filter((count) => count >= 2).length,
		mostRuns: Math.max(...runsPerEvent),
		drainedSeconds: (drainedAt - started) / 1000,
		drained,
		failedAttempts,
	};
	log(`full queue, n8n ${n8n.version}, ${FULL_QUEUE_PATHS[path]}: ${JSON.stringify(row)}`);
	return row;
}

/** The rows as a markdown table, the columns of issue 27. */
export function fullQueueTable(title: string, settings: FullQueueSettings, rows: FullQueueRow[]): string {
	const header = [
		`${title}: ${settings.events} call.ended events, ${settings.concurrency} in parallel, ${settings.timeoutMs / 1000} s per attempt, ` +
			`${settings.retries} retries, each execution holding its slot ${settings.waitSeconds} s`,
		'',
		'| path | events | answered 2xx | retried (extra attempts) | executions (DB) | ran 0 / 1 / 2+ times (most) | drained after | executions by status | failed attempts by status |',
		'|---|---|---|---|---|---|---|---|---|',
	];
	const lines = rows.map(
		(row) =>
			`| ${FULL_QUEUE_PATHS[row.path]} | ${row.events} | ${row.answered} | ${row.retried} (${row.extraAttempts}) | ${row.executions} | ` +
			`${row.ranNever} / ${row.ranOnce} / ${row.ranTwiceOrMore} (${row.mostRuns}) | ${row.drainedSeconds.toFixed(0)} s${row.drained ? '' : ' (not drained)'} | ` +
			`${JSON.stringify(row.executionsByStatus)} | ${JSON.stringify(row.failedAttempts)} |`,
	);
	return [...header, ...lines].join('\n');
}

/**
 * Prints the table to the test log and writes it to `test/e2e/.work/full-queue/<name>.md` (one file per
 * n8n line and mode, kept after the run for the bench results).
 */
export function reportFullQueue(name: string, title: string, settings: FullQueueSettings, rows: FullQueueRow[]): void {
	const table = fullQueueTable(title, settings, rows);
	const dir = join(process.cwd(), 'test', 'e2e', '.work', 'full-queue');
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `${name}.md`), `${table}\n`);
	log(`\n${table}\n`);
}

/**
 * Issue 27's bound: a retry of an event that is still queued (for a slot, or for a worker) starts no
 * execution of its own, so the executions stay close to the events (the slack is for a retry that
 * arrives while its event's execution is being created).
 */
export const MAX_EXECUTIONS_PER_EVENT = 1.25;

/** The trigger's paths: each must run every event exactly once, and answer no fewer deliveries than n8n's Webhook node. */
export const TRIGGER_PATHS: FullQueuePath[] = ['triggerDefaults', 'triggerRepeatKey'];

export const TRIGGER_PATH_TITLE = `%s: every event runs exactly once, at most ${MAX_EXECUTIONS_PER_EVENT} executions per event, at least as many answered 2xx as n8n's Webhook node (its figure measured in this run or recorded)`;

/**
 * What n8n's Webhook node answered 2xx of issue 27's burst (24 events), per mode and line, in every run
 * measured (bench/RESULTS.md, 2e): n8n 2.x in one process answers even Respond Immediately only once the
 * execution has a slot. It measures n8n, not the package, so it is measured again only in the soak run;
 * `npm test` holds the trigger's answers to these figures.
 */
export const WEBHOOK_NODE_ANSWERED: Record<'limit' | 'queue', Record<N8nVersion, number>> = {
	limit: { '2.41.1': 6, '1.123.81': 24 },
	queue: { '2.41.1': 24, '1.123.81': 24 },
};

/** Whether this run measures n8n's Webhook node itself: in the soak run, and for the heavier burst (no figures recorded). */
export function measuresWebhookNode(): boolean {
	return SOAK_RUN || fullQueueSettings() !== FULL_QUEUE_BURST;
}

/** What a trigger path's burst must show, against what n8n's Webhook node answered of the same burst in the same mode and line. */
export function expectEachEventOnce(row: FullQueueRow, webhookNodeAnswered: number): void {
	expect({ drained: row.drained, ranNever: row.ranNever, ranTwiceOrMore: row.ranTwiceOrMore }).toEqual({ drained: true, ranNever: 0, ranTwiceOrMore: 0 });
	expect(row.executions).toBeLessThanOrEqual(MAX_EXECUTIONS_PER_EVENT * row.events);
	expect(row.answered).toBeGreaterThanOrEqual(webhookNodeAnswered);
}

/** The Webhook node's answers measured earlier in the same block; throws when that burst did not run. */
export function requireMeasured(webhookNodeAnswered: number | undefined): number {
	if (webhookNodeAnswered === undefined) throw new Error("The Webhook node's burst did not run: nothing to compare with");
	return webhookNodeAnswered;
}

/**
 * One call.ended event with every field given, so that sending it again, or through another module, is the same
 * event, as the service's retry is: the simulator lays the payload over its defaults, and these cover all of them.
 */
export function callEndedEvent(marker: string): Record<string, unknown> {
	return {
		event_id: randomUUID(),
		occurred_at: '2026-12-01T09:00:00.000Z',
		data: {
			call_id: randomUUID(),
			contact_id: DEMO.completedContactId,
			campaign_id: DEMO.campaignId,
			phone_number: '+14155550100',
			direction: 'outbound',
			status: 'completed',
			ended_at: '2026-12-01T09:00:00.000Z',
			duration: 47,
			feedback: 'Interested; asked for a call back.',
			marker,
		},
	};
}

/** The markers `nodeName` ran, once per run, over all the executions, as n8n's database kept them (one run data per execution). */
export function markersRunBy(executions: StoredExecution[], nodeName: string): string[] {
	return executions.flatMap((execution) =>
		(execution.data?.resultData.runData[nodeName] ?? []).flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => String(item.json.marker))),
	);
}

/** Items a node passed on in its last run of each execution, per execution: what n8n's database kept. */
export function itemsPassedOn(executions: StoredExecution[], nodeName: string): number[] {
	return executions.map((execution) => {
		const runs = execution.data?.resultData.runData[nodeName] ?? [];
		return runs.length === 0 ? 0 : (runs[runs.length - 1].data?.main?.[0] ?? []).length;
	});
}
