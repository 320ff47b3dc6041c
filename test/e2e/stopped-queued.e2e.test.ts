/**
 * A queued execution the user stops, in one n8n process with N8N_CONCURRENCY_PRODUCTION_LIMIT=1 (the
 * scenario: harness/stoppedQueued.ts): event X holds the slot, A's queued execution is stopped, the
 * sender retries A (6 s per attempt, 5 retries). The trigger must still run A, exactly once; n8n's
 * Webhook node (Respond Immediately) in the same n8n is reported beside it. Executions are counted in
 * n8n's SQLite database. E2E_PACKAGE_ROOT=<a built checkout>: its package.
 */
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { sqliteExecutions } from './harness/fullQueue.ts';
import { simulatorCredential, startN8n, type N8nInstance } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import {
	STOPPED_QUEUED_LIMIT,
	stoppedQueuedCases,
	stoppedQueuedTable,
	type StoppedQueuedRow,
} from './harness/stoppedQueued.ts';
import type { CredentialRef } from './harness/workflows.ts';

describeEachVersion(`n8n %s with N8N_CONCURRENCY_PRODUCTION_LIMIT=${STOPPED_QUEUED_LIMIT}: the user stops a queued execution`, (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let credential: CredentialRef;
	const rows: StoppedQueuedRow[] = [];

	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
		n8n = await startN8n({ version, withPackage: true, readyTimeoutMs: 300_000, extraEnv: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(STOPPED_QUEUED_LIMIT) } });
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		if (rows.length > 0) log(`\n${stoppedQueuedTable(`n8n ${version}, N8N_CONCURRENCY_PRODUCTION_LIMIT=${STOPPED_QUEUED_LIMIT}`, rows)}\n`);
		await n8n?.stop();
		await simulator?.close();
	});

	stoppedQueuedCases(() => ({ n8n, simulator, credential, store: sqliteExecutions(n8n) }), rows);
});
