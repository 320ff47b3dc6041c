/**
 * Issue 61, point 6 (b), in queue mode on each line (run by `npm run test:queue`): an execution whose Code node writes
 * the workflow's static data, run on the worker, writes its copy back whole at its end (n8n's behaviour). The case and
 * where n8n does it: harness/staticDataWriteback.ts; the one-process run is static-data-writeback.e2e.test.ts.
 *
 * Here the main registers modules, the webhook process judges deliveries from the records it reads in the database,
 * and the worker runs the execution and writes its copy back. n8n 2.41.1's workers start an execution from an EMPTY
 * copy of static data: n8n saves an execution's workflow without its static data (n8n/dist/executions/execution-data/
 * types.js:10-13, toWorkflowSnapshot, used by execution-persistence.js:46 and :60); the worker takes
 * `execution.workflowData.staticData` (scaling/job-processor.js:122) and reads the workflow's own only for a resumed
 * execution (workflow-runner.js:310, `existingExecution && loadStaticData`). So before f0eb925 any execution whose
 * static data changed wiped the trigger's records there, with nothing published (measured 2026-12-07: 1 record → 0,
 * every module then answered 401). Since f0eb925 webhook() hands the records it judged the delivery by to execute(),
 * which defines them on the execution's copy without marking it changed: the control keeps them on both lines. (The
 * Code node's own counter still starts from nothing on each 2.41.1 execution: n8n's, not the trigger's.)
 *
 * What the code cannot keep: the record of a module registered by a publish DURING the execution (Timeout 30 s → 60 s,
 * a second module). The execution's copy was taken before the publish, so its write-back drops that record, and the
 * webhook process, which reads the records from the database, answers that module's deliveries 401 with the trigger's
 * "belongs to none of this node's modules" line until the next publish. No event is lost: the earlier module is then
 * never seen as replaced and keeps delivering, so the same event sent through both modules runs once.
 *
 * Measured (2026-12-07, both lines alike but the counter): control, 1 record after activation and after the
 * execution, the next event answered 200 and run once. Republished while the execution waited: 2 records after the
 * publish, 1 after the execution (the first module's); the same event through both modules: the first's copy 200,
 * the second's 401 after 4 attempts (one unknown-secret line), run once; still 1 record after it.
 */
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { postgresExecutions } from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { expectRecordKeptWithoutRepublish, writebackAcrossRepublish } from './harness/staticDataWriteback.ts';
import type { CredentialRef } from './harness/workflows.ts';

const TEST_TIMEOUT_MS = 10 * 60_000;

describeEachVersion('n8n %s in queue mode: the static data an execution writes back at its end, after a republish registered a new module while it ran', (version) => {
	let simulator: Simulator;
	let n8n: QueueN8nInstance;
	let credential: CredentialRef;
	/** The Code node's counter after two executions: 2.x's workers start each from an empty copy (n8n's), 1.x's from the stored one. */
	const counterAfterTwo = version.startsWith('1.') ? 2 : 1;

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
			await expectRecordKeptWithoutRepublish({ n8n: () => n8n, simulator, credential, store: () => postgresExecutions(n8n), label: `queue mode ${version}` }, counterAfterTwo);
		},
		TEST_TIMEOUT_MS,
	);

	it(
		"no event is lost when a publish registers a module while an execution that writes static data runs: the write-back drops the new module's record, " +
			"the webhook process refuses that module's deliveries (401, the unknown-secret line) and runs the earlier module's: the same event through both runs once",
		async () => {
			const counts = await writebackAcrossRepublish({
				n8n: () => n8n,
				simulator,
				credential,
				store: () => postgresExecutions(n8n),
				label: `queue mode ${version}`,
			});
			expect(counts.firstDelivery).toEqual([200]);
			expect(counts.statusDuringRepublish).toEqual(['running']);
			expect(counts.afterRepublish).toEqual({ records: 2, recorded: ['first', 'second'] });
			expect(counts.firstEventRuns).toBe(1);
			expect({ afterExecution: counts.afterExecution, modules: counts.modules, probes: counts.probes }).toEqual({
				// The execution's copy was read before the publish: its write-back drops the second module's record.
				afterExecution: { records: 1, recorded: ['first'], counter: 1 },
				modules: ['timeout 30', 'timeout 60'],
				probes: [
					{
						when: 'after the execution',
						// The service's retries (Retry Limit 3) all refused; the first module's copy runs the event.
						answers: { first: '200 after 1 attempt(s)', second: '401 after 4 attempt(s)' },
						runs: 1,
						unknownSecretLines: 1,
					},
				],
			});
			// The webhook process never knew the second module: the probe's execution carries only the first's record.
			expect(counts.afterProbes).toEqual({ records: 1, recorded: ['first'], counter: counterAfterTwo });
			expect(counts.executions).toEqual({ success: 2 });
		},
		TEST_TIMEOUT_MS,
	);
});
