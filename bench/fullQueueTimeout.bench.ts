/**
 * The module's Timeout under a full execution queue (issue 27, point 3): the trigger at its defaults,
 * n8n 2.41.1 with N8N_CONCURRENCY_PRODUCTION_LIMIT=2, 100 events 16 at a time into 4-s executions
 * (each waits about 16 / 2 × 4 = 32 s for a slot), retried 3 times after 200-600 ms, at three
 * per-attempt timeouts. The sender keeps trying for about (3 + 1) × Timeout: an event whose execution
 * runs inside that window is answered 2xx. Prints one row per Timeout; asserts only counts.
 * BENCH_N8N_VERSION=1.123.81 for the 1.x line; BENCH_TIMEOUTS_MS=5000,10000,20000 to choose.
 */
import { startSimulator } from '../test/simulator/server.ts';
import { CONCURRENCY_LIMIT, FULL_QUEUE_HEAVY_BURST, fullQueueBurst, sqliteExecutions } from '../test/e2e/harness/fullQueue.ts';
import { simulatorCredential, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nVersion } from '../test/e2e/harness/runtime.ts';

const VERSION = (process.env.BENCH_N8N_VERSION ?? '2.41.1') as N8nVersion;
const TIMEOUTS_MS = (process.env.BENCH_TIMEOUTS_MS ?? '5000,10000,20000').split(',').map(Number);

test(`the trigger at its defaults in n8n ${VERSION}, limit ${CONCURRENCY_LIMIT}: answered 2xx per module Timeout`, async () => {
	const simulator = await startSimulator({ recordBodies: false });
	const n8n = await startN8n({ version: VERSION, withPackage: true, readyTimeoutMs: 300_000, extraEnv: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(CONCURRENCY_LIMIT) } });
	try {
		const credential = await simulatorCredential(n8n.api, simulator.url);
		const rows: string[] = [];
		for (const timeoutMs of TIMEOUTS_MS) {
			const settings = { ...FULL_QUEUE_HEAVY_BURST, timeoutMs };
			const row = await fullQueueBurst({ n8n, path: 'triggerDefaults', settings, simulator, credential, store: sqliteExecutions(n8n) });
			rows.push(
				`| ${timeoutMs / 1000} s (window about ${(4 * timeoutMs) / 1000} s) | ${row.events} | ${row.answered} | ${row.retried} (${row.extraAttempts}) | ${row.executions} | ${row.ranNever} / ${row.ranOnce} / ${row.ranTwiceOrMore} | ${row.drainedSeconds.toFixed(0)} s |`,
			);
			expect(row.ranNever + row.ranTwiceOrMore).toBe(0);
		}
		process.stdout.write(
			`\nn8n ${VERSION}, limit ${CONCURRENCY_LIMIT}, ${FULL_QUEUE_HEAVY_BURST.events} events ${FULL_QUEUE_HEAVY_BURST.concurrency} at a time, 3 retries:\n` +
				'| Timeout per attempt | events | answered 2xx | retried (extra attempts) | executions | ran 0 / 1 / 2+ | drained after |\n|---|---|---|---|---|---|---|\n' +
				`${rows.join('\n')}\n`,
		);
	} finally {
		await n8n.stop();
		await simulator.close();
	}
});
