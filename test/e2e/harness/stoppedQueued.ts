/**
 * A queued execution the user stops: n8n runs one production execution at a time (its concurrency limit,
 * or one worker at concurrency 1 in queue mode), with a 15-s Wait behind each event. Event X holds the slot;
 * event A's delivery is queued by n8n (its execution `new` in n8n's database); the test stops that
 * execution as the editor's executions list does (`POST /rest/executions/:id/stop`, the same route on
 * 2.41.1 and 1.123.81); the sender retries A as the service does here: 6 s per attempt, 5 retries. n8n
 * takes a stopped queued execution out of its queue without answering its delivery, so whatever waits
 * for that answer waits for nothing (in one process, both lines; in queue mode n8n marks the execution
 * canceled but leaves its job queued, and the worker runs it once free, so there A is answered all the
 * same). The trigger's module has the sender's Timeout and Retry Limit.
 */
import { randomUUID } from 'node:crypto';
import { DEMO, type Simulator } from '../../simulator/server.ts';
import { countBy, flood, registeredSecret, triggerUrl, type FloodDelivery } from './deliveries.ts';
import { SERVICE_BACKOFF_MS, burstWorkflow, drainedExecutions, markersRun, type ExecutionStore, type FullQueuePath, type StoredExecution } from './fullQueue.ts';
import type { N8nInstance } from './n8n.ts';
import { log, sleep } from './process.ts';
import { chain, workflow, type CredentialRef } from './workflows.ts';

/** n8n's production concurrency limit in these runs; in queue mode the worker's concurrency. */
export const STOPPED_QUEUED_LIMIT = 1;
/** How long each execution holds the slot. */
const WAIT_SECONDS = 15;
/** The service's delivery as the module is registered: 6 s per attempt, 5 retries, the simulator's pauses. */
export const STOPPED_QUEUED_SENDER = { concurrency: 1, timeoutMs: 6000, retries: 5, backoffMs: SERVICE_BACKOFF_MS };
const MODULE_SETTINGS = { timeout: STOPPED_QUEUED_SENDER.timeoutMs / 1000, retryLimit: STOPPED_QUEUED_SENDER.retries };
/** A case: about 40 s of attempts, then the queue drains (n8n's Webhook node on 2.x runs A up to five times, 15 s each). */
const STOPPED_QUEUED_TEST_TIMEOUT_MS = 4 * 60_000;

export interface StoppedQueuedRow {
	path: FullQueuePath;
	/** Events sent (X and A), each retried until answered 2xx or out of attempts. */
	sent: number;
	/** Per event, every attempt's status in order (0: no answer within 6 s). */
	attempts: { X: number[]; A: number[] };
	/** Per event, answered 2xx at some attempt. */
	answered: { X: boolean; A: boolean };
	/** Attempts over both events, by status. */
	attemptsByStatus: Record<string, number>;
	/** The status of A's first execution when the test stopped it, and n8n's answer to the stop. */
	stopped: { status: string; httpStatus: number };
	/** Every execution of the workflow in n8n's database, and by status. */
	executions: number;
	executionsByStatus: Record<string, number>;
	/** Executions that ran each event's Marker node. */
	runs: { X: number; A: number };
	drained: boolean;
}

/** Polls n8n's database until `found` picks an execution of the workflow, for at most `timeoutMs`. */
async function executionWhere(store: ExecutionStore, workflowId: string, found: (executions: StoredExecution[]) => StoredExecution | undefined, what: string, timeoutMs = 30_000): Promise<StoredExecution> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const execution = found(await store(workflowId));
		if (execution !== undefined) return execution;
		await sleep(100);
	}
	throw new Error(`No execution of workflow ${workflowId} ${what} within ${timeoutMs / 1000} s`);
}

export interface StoppedQueuedOptions {
	n8n: N8nInstance;
	path: FullQueuePath;
	simulator: Simulator;
	credential: CredentialRef;
	/** sqliteExecutions(n8n) or postgresExecutions(n8n). */
	store: ExecutionStore;
}

/** One path through the scenario; the workflow is deactivated afterwards, so the next case has n8n's slot to itself. */
export async function stoppedQueuedCase(options: StoppedQueuedOptions): Promise<StoppedQueuedRow> {
	const { n8n, path, store } = options;
	const { nodes, first } = burstWorkflow(path, options.credential, WAIT_SECONDS, MODULE_SETTINGS);
	const created = await n8n.api.createWorkflow(workflow(`stopped queued: ${path}`, nodes, chain(nodes.map((each) => each.name))));
	await n8n.api.activate(created.id);
	const url = path === 'webhookRespondImmediately' ? `${n8n.webhookUrl}webhook/${first.parameters.path as string}` : triggerUrl(n8n, first);
	const secret = path === 'webhookRespondImmediately' ? 'unused' : registeredSecret(options.simulator, url);
	const marker = (event: 'X' | 'A') => `sq-${path}-${event}`;
	const body = (event: 'X' | 'A') => ({ event_type: 'call.ended', event_id: randomUUID(), data: { contact_id: DEMO.completedContactId, marker: marker(event) } });

	const sendX = flood(url, secret, [body('X')], STOPPED_QUEUED_SENDER);
	await executionWhere(store, created.id, (executions) => executions.find((execution) => execution.status === 'running'), 'running (X holding the slot)');
	const sendA = flood(url, secret, [body('A')], STOPPED_QUEUED_SENDER);
	const queued = await executionWhere(store, created.id, (executions) => executions.find((execution) => execution.status === 'new'), 'queued (status new: A)');
	const stop = await n8n.api.rest('POST', `/executions/${queued.id}/stop`);
	log(`stopped queued, n8n ${n8n.version}, ${path}: stopped execution ${queued.id} (${queued.status}): HTTP ${stop.status} ${JSON.stringify(stop.body).slice(0, 300)}`);
	const [[x], [a]]: FloodDelivery[][] = await Promise.all([sendX, sendA]);
	const { executions, drained } = await drainedExecutions(store, created.id, 2 * 60_000);
	await n8n.api.deactivate(created.id);

	const markers = markersRun(executions);
	const statuses = (delivery: FloodDelivery) => delivery.attempts.map((answer) => answer.status);
	const row: StoppedQueuedRow = {
		path,
		sent: 2,
		attempts: { X: statuses(x), A: statuses(a) },
		answered: { X: x.acknowledged, A: a.acknowledged },
		attemptsByStatus: countBy([...x.attempts, ...a.attempts], (answer) => String(answer.status)),
		stopped: { status: queued.status, httpStatus: stop.status },
		executions: executions.length,
		executionsByStatus: countBy(executions, (execution) => execution.status),
		runs: { X: markers.filter((each) => each === marker('X')).length, A: markers.filter((each) => each === marker('A')).length },
		drained,
	};
	log(`stopped queued, n8n ${n8n.version}, ${path}: ${JSON.stringify(row)}`);
	return row;
}

/** The rows as a markdown table for the log. */
export function stoppedQueuedTable(title: string, rows: StoppedQueuedRow[]): string {
	return [
		`${title}: X holds the one slot (Wait ${WAIT_SECONDS} s), A's queued execution is stopped, 6 s per attempt, 5 retries`,
		'',
		'| path | sent | answered 2xx (X, A) | attempts by status | A\'s attempts | executions (DB) by status | runs X / A |',
		'|---|---|---|---|---|---|---|',
		...rows.map(
			(row) =>
				`| ${row.path} | ${row.sent} | ${Number(row.answered.X) + Number(row.answered.A)} (${row.answered.X ? 'yes' : 'no'}, ${row.answered.A ? 'yes' : 'no'}) | ` +
				`${JSON.stringify(row.attemptsByStatus)} | ${row.attempts.A.join(', ')} | ${row.executions} ${JSON.stringify(row.executionsByStatus)} | ${row.runs.X} / ${row.runs.A} |`,
		),
	].join('\n');
}

/** What every case asserts: the scenario happened (A's execution was queued and n8n stopped it), and n8n drained. */
function expectScenario(row: StoppedQueuedRow): void {
	expect({ stopped: row.stopped, drained: row.drained }).toEqual({ stopped: { status: 'new', httpStatus: 200 }, drained: true });
}

/**
 * Both files' cases, in the n8n the file started (read when a case runs); the rows go to `rows`, for the table
 * the file logs. The trigger must answer A and run it exactly once; n8n's Webhook node is reported.
 */
export function stoppedQueuedCases(context: () => Omit<StoppedQueuedOptions, 'path'>, rows: StoppedQueuedRow[]): void {
	const run = async (path: FullQueuePath) => {
		const row = await stoppedQueuedCase({ ...context(), path });
		rows.push(row);
		expectScenario(row);
		return row;
	};
	it("the trigger at its defaults, its module at the sender's Timeout and Retry Limit: A is answered 2xx and runs exactly once", async () => {
		const row = await run('triggerDefaults');
		expect({ runs: row.runs, answered: row.answered }).toEqual({ runs: { X: 1, A: 1 }, answered: { X: true, A: true } });
	}, STOPPED_QUEUED_TEST_TIMEOUT_MS);

	it("n8n's Webhook node, Respond Immediately, in the same scenario: reported", async () => {
		await run('webhookRespondImmediately');
	}, STOPPED_QUEUED_TEST_TIMEOUT_MS);
}
