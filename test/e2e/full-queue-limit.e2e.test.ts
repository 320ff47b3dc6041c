/**
 * Issue 27 in one n8n process with N8N_CONCURRENCY_PRODUCTION_LIMIT=2 (as n8n Cloud plans cap
 * production executions): a burst of call.ended events into a slow workflow (Wait 4 s, then a Set node)
 * through n8n's Webhook node (Respond Immediately), the trigger at its defaults and the trigger with a
 * Repeat Key. The sender retries what is not answered within 10 s. Executions are counted in n8n's
 * SQLite database once the queue drained. The table goes to the log and test/e2e/.work/full-queue/.
 * E2E_FULL_QUEUE_HEAVY=1: 100 events, 16 in parallel. E2E_PACKAGE_ROOT=<a built checkout>: its package.
 */
import { startSimulator, type Simulator } from '../simulator/server.ts';
import {
	CONCURRENCY_LIMIT,
	FULL_QUEUE_PATHS,
	fullQueueBurst,
	fullQueueSettings,
	fullQueueTestTimeoutMs,
	reportFullQueue,
	sqliteExecutions,
	type FullQueuePath,
	type FullQueueRow,
} from './harness/fullQueue.ts';
import { simulatorCredential, startN8n, type N8nInstance } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import type { CredentialRef } from './harness/workflows.ts';

const SETTINGS = fullQueueSettings();
const TEST_TIMEOUT_MS = fullQueueTestTimeoutMs();
/**
 * Issue 27's bound: a retry of an event that is still queued starts no execution of its own, so the
 * executions stay close to the events (the slack is for a retry that arrives while its event's
 * execution is being created).
 */
const MAX_EXECUTIONS_PER_EVENT = 1.25;
/** The trigger's paths: each must run every event exactly once, and answer no fewer deliveries than n8n's Webhook node. */
const TRIGGER_PATHS: FullQueuePath[] = ['triggerDefaults', 'triggerRepeatKey'];

describeEachVersion(`n8n %s with N8N_CONCURRENCY_PRODUCTION_LIMIT=${CONCURRENCY_LIMIT}: a burst into a slow workflow (issue 27)`, (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let credential: CredentialRef;
	const rows: FullQueueRow[] = [];
	let webhookNode: FullQueueRow | undefined;

	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
		n8n = await startN8n({
			version,
			withPackage: true,
			readyTimeoutMs: 300_000,
			extraEnv: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(CONCURRENCY_LIMIT) },
		});
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		if (rows.length > 0) reportFullQueue(`limit-${version}`, `n8n ${version}, N8N_CONCURRENCY_PRODUCTION_LIMIT=${CONCURRENCY_LIMIT}`, SETTINGS, rows);
		await n8n?.stop();
		await simulator?.close();
	});

	const burst = async (path: FullQueuePath) => {
		const row = await fullQueueBurst({ n8n, path, settings: SETTINGS, simulator, credential, store: sqliteExecutions(n8n) });
		rows.push(row);
		return row;
	};

	it(`${FULL_QUEUE_PATHS.webhookRespondImmediately}: measured for comparison, and n8n drains its queue`, async () => {
		webhookNode = await burst('webhookRespondImmediately');
		expect(webhookNode.drained).toBe(true);
	}, TEST_TIMEOUT_MS);

	it.each(TRIGGER_PATHS.map((path) => [FULL_QUEUE_PATHS[path], path] as const))(
		`%s: every event runs exactly once, at most ${MAX_EXECUTIONS_PER_EVENT} executions per event, at least as many answered 2xx as the Webhook node`,
		async (_title, path) => {
			const row = await burst(path);
			expect({ drained: row.drained, ranNever: row.ranNever, ranTwiceOrMore: row.ranTwiceOrMore }).toEqual({ drained: true, ranNever: 0, ranTwiceOrMore: 0 });
			expect(row.executions).toBeLessThanOrEqual(MAX_EXECUTIONS_PER_EVENT * row.events);
			if (!webhookNode) throw new Error("The Webhook node's burst did not run: nothing to compare with");
			expect(row.answered).toBeGreaterThanOrEqual(webhookNode.answered);
		},
		TEST_TIMEOUT_MS,
	);
});
