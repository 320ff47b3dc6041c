/**
 * Issue 61, point 6 (b), in one n8n process on each line: an execution whose Code node writes the workflow's static
 * data writes its copy back whole at its end (n8n's behaviour). The case and where n8n does it:
 * harness/staticDataWriteback.ts. The queue-mode run is static-data-writeback-queue.e2e.test.ts.
 *
 * Since f0eb925 webhook() hands the records it judged the delivery by to execute(), which defines them on the
 * execution's copy without marking it changed, so a write-back keeps them: the control (nothing published while the
 * execution waits) keeps the trigger's record beside the Code node's counter on both lines.
 *
 * What the code cannot keep: the record of a module registered by a publish DURING the execution (here Timeout
 * 30 s → 60 s, a second module). The execution's copy was taken before the publish, so its write-back drops that
 * record. No event is lost: the earlier module is then never seen as replaced and keeps delivering. In one process
 * the n8n that registered the new module also keeps its record in memory (registrations.ts, recordsKnownHere), so
 * it still runs that module's deliveries, and the next delivery's execution puts the record back into its copy,
 * which the Code node's write stores. Hence, after a restart of n8n, both modules' deliveries run and n8n 1.x,
 * activating the workflow at start-up, finds the current module's record and registers none.
 *
 * Measured (2026-12-07, both lines alike): control, 1 record after activation, 1 after the execution (counter 1);
 * the next event answered 200 and run once. Republished while the execution waited: 2 records after the publish,
 * 1 after the execution (the first module's, counter 1); the same event sent through both modules answered 200 by
 * each and run once; 2 records after the restart (counter 2), 2 modules at the service; the same event through both
 * answered 200 by each and run once; 3 executions, all success. (Before f0eb925, 2.41.1 queue mode lost every record
 * in the control: 1 → 0, static-data-writeback-queue.e2e.test.ts.)
 */
import { rmSync } from 'node:fs';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { sqliteExecutions } from './harness/fullQueue.ts';
import { createUserFolder, simulatorCredential, startN8n, type N8nInstance } from './harness/n8n.ts';
import { freePort, sleep } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { expectRecordKeptWithoutRepublish, writebackAcrossRepublish } from './harness/staticDataWriteback.ts';
import type { CredentialRef } from './harness/workflows.ts';

const READY_TIMEOUT_MS = 300_000;

/** n8n 1.x's line for each workflow it activated (at start-up too); the log file is kept across the restart. */
const activatedLines = (n8n: N8nInstance) => n8n.logs().split('Activated workflow "static-data write-back').length - 1;
const TEST_TIMEOUT_MS = 10 * 60_000;

describeEachVersion('n8n %s in one process: the static data an execution writes back at its end, after a republish registered a new module while it ran', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let userFolder: string;
	let port: number;
	let credential: CredentialRef;

	beforeAll(async () => {
		simulator = await startSimulator();
		userFolder = createUserFolder(`static-data-writeback-${version}`);
		port = await freePort();
		n8n = await startN8n({ version, userFolder, port, withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS });
		credential = await simulatorCredential(n8n.api, simulator.url);
	}, TEST_TIMEOUT_MS);

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (userFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	});

	it(
		"control, nothing published while the execution waits: the trigger's record stays in the workflow's static data beside the Code node's counter, and the next event runs once",
		async () => {
			await expectRecordKeptWithoutRepublish({ n8n: () => n8n, simulator, credential, store: () => sqliteExecutions(n8n), label: `one process ${version}` }, 2);
		},
		TEST_TIMEOUT_MS,
	);

	it(
		"no event is lost when a publish registers a module while an execution that writes static data runs: the write-back drops the new module's record, " +
			'the n8n that registered it still runs its deliveries and writes the record back with the next execution; the same event through both modules runs once, before and after a restart of n8n',
		async () => {
			const counts = await writebackAcrossRepublish({
				n8n: () => n8n,
				simulator,
				credential,
				store: () => sqliteExecutions(n8n),
				label: `one process ${version}`,
				restart: async () => {
					const activatedBefore = activatedLines(n8n);
					await n8n.stop();
					n8n = await startN8n({ version, userFolder, port, withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS });
					// n8n 1.x activates its active workflows (running the trigger's checkExists and create) after it answers readiness.
					if (version.startsWith('1.')) {
						const deadline = Date.now() + 60_000;
						while (activatedLines(n8n) <= activatedBefore && Date.now() < deadline) await sleep(250);
					}
				},
			});
			expect(counts.firstDelivery).toEqual([200]);
			expect(counts.statusDuringRepublish).toEqual(['running']);
			expect(counts.afterRepublish).toEqual({ records: 2, recorded: ['first', 'second'] });
			expect(counts.firstEventRuns).toBe(1);
			const both = { first: '200 after 1 attempt(s)', second: '200 after 1 attempt(s)' };
			expect({ afterExecution: counts.afterExecution, afterRestart: counts.afterRestart, modules: counts.modules, probes: counts.probes }).toEqual({
				// The execution's copy was read before the publish: its write-back drops the second module's record.
				afterExecution: { records: 1, recorded: ['first'], counter: 1 },
				// The probe's execution, judged by this process's records, wrote it back.
				afterRestart: { records: 2, recorded: ['first', 'second'], counter: 2 },
				// n8n 1.x's activation at start-up found the current module's record: no third module.
				modules: ['timeout 30', 'timeout 60'],
				probes: [
					{ when: 'after the execution', answers: both, runs: 1, unknownSecretLines: 0 },
					{ when: 'after a restart of n8n', answers: both, runs: 1, unknownSecretLines: 0 },
				],
			});
			expect(counts.executions).toEqual({ success: 3 });
		},
		TEST_TIMEOUT_MS,
	);
});
