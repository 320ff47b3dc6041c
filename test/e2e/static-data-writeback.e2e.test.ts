/**
 * Issue 61, point 6 (b), in one n8n process on each line: an execution whose Code node writes the workflow's static
 * data, running while the workflow is published again with another Timeout (a new module registered), writes its
 * copy of the static data back at its end. The case and where n8n does it: harness/staticDataWriteback.ts. The
 * queue-mode run is static-data-writeback-queue.e2e.test.ts.
 *
 * In one process the n8n that registered the second module keeps its record in memory (registrations.ts,
 * recordsKnownHere), so what the database lost shows after a restart of n8n on the same folder and port.
 *
 * Measured (2026-12-07, both lines): with nothing published meanwhile (the control) the trigger's record stays beside
 * the counter. Published again while the execution waited, the execution's write-back drops the second module's
 * record (2 records after the republish, 1 once the execution ended: the first module's, beside counter 1). The
 * process that registered it still runs its deliveries; after a restart they are answered 401 (4 attempts, the
 * trigger's "belongs to none of this node's modules" line), while the first module's deliveries run (no later module known).
 * 1.123.81, activating the workflow at start-up, registers a third module (Timeout 60 s): no stored module served.
 *
 * This file runs the control only; the republish case is held back until the trigger keeps its records across it
 * (issue 61, point 6).
 */
import { rmSync } from 'node:fs';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { sqliteExecutions } from './harness/fullQueue.ts';
import { createUserFolder, simulatorCredential, startN8n, type N8nInstance } from './harness/n8n.ts';
import { freePort } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { writebackAcrossRepublish } from './harness/staticDataWriteback.ts';
import type { CredentialRef } from './harness/workflows.ts';

const READY_TIMEOUT_MS = 300_000;
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
			const counts = await writebackAcrossRepublish({
				n8n: () => n8n,
				simulator,
				credential,
				store: () => sqliteExecutions(n8n),
				label: `one process ${version}, control`,
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
});
