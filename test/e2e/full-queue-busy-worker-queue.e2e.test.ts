/**
 * Issue 27 in queue mode (run by `npm run test:queue`): main, webhook process and one worker whose
 * concurrency is 2 (N8N_CONCURRENCY_PRODUCTION_LIMIT, which a worker takes over its --concurrency), kept
 * busy by the same burst into a slow workflow (Wait 4 s, then a Set node) as full-queue-limit.e2e.test.ts:
 * n8n's Webhook node (Respond Immediately), the trigger at its defaults, the trigger with a Repeat Key.
 * Executions are counted in n8n's Postgres database once the queue drained. The table goes to the log and
 * test/e2e/.work/full-queue/. E2E_FULL_QUEUE_HEAVY=1: 100 events, 16 in parallel.
 * E2E_PACKAGE_ROOT=<a built checkout>: its package.
 */
import { startSimulator, type Simulator } from '../simulator/server.ts';
import {
	CONCURRENCY_LIMIT,
	FULL_QUEUE_PATHS,
	fullQueueBurst,
	fullQueueSettings,
	fullQueueTestTimeoutMs,
	postgresExecutions,
	reportFullQueue,
	TRIGGER_PATHS,
	TRIGGER_PATH_TITLE,
	expectEachEventOnce,
	measuresWebhookNode,
	requireMeasured,
	WEBHOOK_NODE_ANSWERED,
	type FullQueuePath,
	type FullQueueRow,
} from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { soakOnly } from './harness/soak.ts';
import type { CredentialRef } from './harness/workflows.ts';

const SETTINGS = fullQueueSettings();
const TEST_TIMEOUT_MS = fullQueueTestTimeoutMs();

describeEachVersion(`n8n %s in queue mode, one worker at concurrency ${CONCURRENCY_LIMIT}: a burst into a slow workflow (issue 27)`, (version) => {
	let simulator: Simulator;
	let n8n: QueueN8nInstance;
	let credential: CredentialRef;
	const rows: FullQueueRow[] = [];
	let webhookNodeAnswered: number | undefined;

	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
		n8n = await startQueueN8n({ version, readyTimeoutMs: 300_000, extraEnv: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(CONCURRENCY_LIMIT) } });
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		if (rows.length > 0) reportFullQueue(`queue-${version}`, `n8n ${version} in queue mode, one worker at concurrency ${CONCURRENCY_LIMIT}`, SETTINGS, rows);
		await n8n?.stop();
		await simulator?.close();
	});

	const burst = async (path: FullQueuePath) => {
		const row = await fullQueueBurst({ n8n, path, settings: SETTINGS, simulator, credential, store: postgresExecutions(n8n) });
		rows.push(row);
		return row;
	};

	it(`the worker runs ${CONCURRENCY_LIMIT} jobs at a time`, () => {
		expect(n8n.processes.worker.logs()).toContain(` * Concurrency: ${CONCURRENCY_LIMIT}\n`);
	});

	// n8n's own Webhook node, measured for comparison: n8n itself, so in the soak run only (the figures it gave are in WEBHOOK_NODE_ANSWERED).
	soakOnly(!measuresWebhookNode())(`${FULL_QUEUE_PATHS.webhookRespondImmediately}: measured for comparison, and n8n drains its queue`, async () => {
		const webhookNode = await burst('webhookRespondImmediately');
		expect(webhookNode.drained).toBe(true);
		webhookNodeAnswered = webhookNode.answered;
	}, TEST_TIMEOUT_MS);

	it.each(TRIGGER_PATHS.map((path) => [FULL_QUEUE_PATHS[path], path] as const))(
		TRIGGER_PATH_TITLE,
		async (_title, path) => expectEachEventOnce(await burst(path), measuresWebhookNode() ? requireMeasured(webhookNodeAnswered) : WEBHOOK_NODE_ANSWERED.queue[version]),
		TEST_TIMEOUT_MS,
	);
});
