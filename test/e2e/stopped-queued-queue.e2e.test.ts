/**
 * A queued execution the user stops, in queue mode (run by `npm run test:queue`): main, webhook process
 * and one worker at concurrency 1 (harness/stoppedQueued.ts has the scenario): X keeps the worker busy,
 * A's job waits in the queue and is stopped, the sender retries A (6 s per attempt, 5 retries). The
 * trigger must still run A, exactly once; n8n's Webhook node (Respond Immediately) is reported beside it.
 * n8n (2.41.1 and 1.123.81) marks the stopped execution canceled but leaves its job in the queue: the
 * worker runs it once X is done, so the earlier execution does answer here.
 * Executions are counted in n8n's Postgres database. E2E_PACKAGE_ROOT=<a built checkout>: its package.
 */
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { postgresExecutions } from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import {
	STOPPED_QUEUED_LIMIT,
	stoppedQueuedCases,
	stoppedQueuedTable,
	type StoppedQueuedRow,
} from './harness/stoppedQueued.ts';
import type { CredentialRef } from './harness/workflows.ts';

describeEachVersion(`n8n %s in queue mode, one worker at concurrency ${STOPPED_QUEUED_LIMIT}: the user stops a queued execution`, (version) => {
	let simulator: Simulator;
	let n8n: QueueN8nInstance;
	let credential: CredentialRef;
	const rows: StoppedQueuedRow[] = [];

	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
		n8n = await startQueueN8n({ version, readyTimeoutMs: 300_000, extraEnv: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(STOPPED_QUEUED_LIMIT) } });
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		if (rows.length > 0) log(`\n${stoppedQueuedTable(`n8n ${version} in queue mode, one worker at concurrency ${STOPPED_QUEUED_LIMIT}`, rows)}\n`);
		await n8n?.stop();
		await simulator?.close();
	});

	it(`the worker runs ${STOPPED_QUEUED_LIMIT} job at a time`, () => {
		expect(n8n.processes.worker.logs()).toContain(` * Concurrency: ${STOPPED_QUEUED_LIMIT}\n`);
	});

	stoppedQueuedCases(() => ({ n8n, simulator, credential, store: postgresExecutions(n8n) }), rows);
});
