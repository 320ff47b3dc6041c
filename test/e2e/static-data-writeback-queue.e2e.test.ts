/**
 * Issue 61, point 6 (b), in queue mode on each line (run by `npm run test:queue`): an execution whose Code node
 * writes the workflow's static data, running on the worker while the main publishes the workflow again with another
 * Timeout (a new module registered), writes its copy of the static data back at its end. The case and where n8n does
 * it: harness/staticDataWriteback.ts; the one-process run is static-data-writeback.e2e.test.ts.
 *
 * Here the main registers the module and the webhook process judges its deliveries from the records it reads in the
 * database (it never saw the new module before the execution ended), and the worker writes the execution's copy.
 *
 * Measured (2026-12-07):
 * - 1.123.81: the control keeps the trigger's record. Published again while the execution waited, the worker's
 *   write-back drops the second module's record (2 → 1), and the webhook process answers its deliveries 401 at once.
 * - 2.41.1: an execution on a worker starts with empty static data, so any execution whose static data changes wipes
 *   the trigger's records, with or without a republish (the control: 1 record → 0, the counter 1 after each
 *   execution). n8n saves an execution's workflow without its static data (n8n/dist/executions/execution-data/
 *   types.js:10-13, toWorkflowSnapshot, used by execution-persistence.js:46 and :60); the worker takes
 *   `execution.workflowData.staticData` (scaling/job-processor.js:122) and reads the workflow's own only for a resumed
 *   execution (workflow-runner.js:310, `existingExecution && loadStaticData`). The webhook process that read the
 *   records before still runs the first module's deliveries from its memory; the second module's are answered 401.
 *
 * This file runs the control only, on 1.123.81 (2.41.1 loses the records in it, above); the republish case is held back until the trigger keeps its records across it
 * (issue 61, point 6).
 */
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { postgresExecutions } from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { writebackAcrossRepublish } from './harness/staticDataWriteback.ts';
import type { CredentialRef } from './harness/workflows.ts';

const TEST_TIMEOUT_MS = 10 * 60_000;

describeEachVersion('n8n %s in queue mode: the static data an execution writes back at its end, after a republish registered a new module while it ran', (version) => {
	let simulator: Simulator;
	let n8n: QueueN8nInstance;
	let credential: CredentialRef;

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await startQueueN8n({ version, readyTimeoutMs: 300_000 });
		credential = await simulatorCredential(n8n.api, simulator.url);
	}, TEST_TIMEOUT_MS);

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
	});

	it(
		"control, nothing published while the execution waits: the trigger's record stays in the workflow's static data beside the Code node's counter, and the next event runs once",
		async () => {
			const counts = await writebackAcrossRepublish({
				n8n: () => n8n,
				simulator,
				credential,
				store: () => postgresExecutions(n8n),
				label: `queue mode ${version}, control`,
				republish: false,
			});
			expect(counts.firstDelivery).toEqual([200]);
			expect(counts.firstEventRuns).toBe(1);
			expect({ afterExecution: counts.afterExecution, modules: counts.modules, probes: counts.probes }).toEqual({
				afterExecution: { records: 1, recorded: ['first'], counter: 1 },
				modules: ['timeout 30'],
				probes: [{ when: 'after the execution', answers: { first: '200 after 1 attempt(s)' }, runs: 1, unknownSecretLines: 0 }],
			});
		},
		TEST_TIMEOUT_MS,
	);
}, ['1.123.81']);
