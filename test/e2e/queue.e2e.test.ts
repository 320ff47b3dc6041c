/**
 * The package in n8n's queue mode, as users scale it: Redis and Postgres, a main, a worker and a webhook
 * process (harness/queue.ts), one cluster per line. The same action, trigger and MCP cases as the single-process
 * suite, and for every execution they wait for, proof that the webhook process enqueued it and the worker ran it.
 */
import { simulatorCredential } from './harness/n8n.ts';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { FLOOD_TEST_TIMEOUT_MS, TRIGGER_FLOOD, countBy, floodTrigger, inPool, itemsOf, sendDelivery, settledExecutions, SECRET_HEADER, type TriggerFloodResult } from './harness/deliveries.ts';
import { mcpCases, READY_TIMEOUT_MS } from './harness/mcp-cases.ts';
import { MCP_TRANSPORTS } from './harness/mcp.ts';
import type { Execution } from './harness/n8n.ts';
import { packageCases } from './harness/package-cases.ts';
import { log, sleep } from './harness/process.ts';
import { startQueueN8n, type QueueN8nInstance, type QueueProcess } from './harness/queue.ts';
import { withoutStop } from './harness/shared.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { soakOnly } from './harness/soak.ts';
import { TRIGGER_NODE_NAME, type CredentialRef } from './harness/workflows.ts';

/**
 * The events of a flood that ran more often than they were sent, each as "<marker>: sent <attempts>, ran
 * <successful executions>": an event sent once may run once, a retried one once per attempt at most.
 */
function eventsRunMoreThanSent({ bodies, deliveries, executions }: TriggerFloodResult): string[] {
	const runs = countBy(
		executions
			.filter((execution) => execution.status === 'success')
			.flatMap((execution) => itemsOf(execution, TRIGGER_NODE_NAME).map((item) => (item.data as { marker: string }).marker)),
		(marker) => marker,
	);
	return bodies.flatMap(({ data: { marker } }, index) => {
		const sent = deliveries[index].attempts.length;
		const ran = runs[marker] ?? 0;
		return ran > sent ? [`${marker}: sent ${sent}, ran ${ran}`] : [];
	});
}

/** n8n writes these at info level: scaling.service on enqueueing, job-processor on picking a job up (1.x and 2.x). */
const enqueued = (id: string) => `Enqueued execution ${id} (job `;
const workerStarted = (id: string) => `Worker started execution ${id} (job `;

/**
 * Waits for a log line rather than expecting it at once: a process's log may trail the database by a
 * moment. Resolves to whether it appeared.
 */
async function logShows(server: QueueProcess, line: string, timeoutMs = 10_000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (server.logs().includes(line)) return true;
		await sleep(200);
	}
	return server.logs().includes(line);
}

/** The execution came in through the webhook process, went through Redis, and ran on the worker, not the main. */
async function expectRanOnWorker(n8n: QueueN8nInstance, execution: Execution): Promise<void> {
	const { main, worker, webhook } = n8n.processes;
	expect(await logShows(webhook, enqueued(execution.id))).toBe(true);
	expect(await logShows(worker, workerStarted(execution.id))).toBe(true);
	expect(main.logs()).not.toContain(`execution ${execution.id} (job `);
}

describeEachVersion('the package in n8n %s in queue mode', (version) => {
	let n8n: QueueN8nInstance | undefined;

	// One cluster per line for the package's cases, its MCP tools and the flood: their own afterAll leave it running.
	beforeAll(async () => {
		n8n = await startQueueN8n({ version, readyTimeoutMs: READY_TIMEOUT_MS });
	});

	afterAll(async () => {
		// Reported, not asserted: memory depends on the machine.
		if (n8n) {
			const memory = Object.values(n8n.processes).map((each) => `${each.role} ${each.rssMb()} MB`);
			log(`n8n ${version} queue mode: resident memory after the cases: ${memory.join(', ')}`);
		}
		await n8n?.stop();
	});

	const cluster = async () => {
		if (!n8n) throw new Error(`n8n ${version} did not start in queue mode`);
		return withoutStop(n8n);
	};

	packageCases({ start: cluster, checkExecution: expectRanOnWorker });

	describe('MCP tools', () => {
		mcpCases({
			version,
			start: cluster,
			transports: MCP_TRANSPORTS,
			// As in a single process, 2.x records the failed call as a successful execution: the error is the tool's answer.
			failedCallExecution: version.startsWith('1.') ? 'none' : 'success',
			checkExecution: expectRanOnWorker,
		});
	});

	describe(`the trigger under a flood of ${TRIGGER_FLOOD.events} events (webhook process → Redis → worker)`, () => {
		let simulator: Simulator;
		let credential: CredentialRef;
		const REPEATS = 100;

		beforeAll(async () => {
			simulator = await startSimulator({ recordBodies: false });
			credential = await simulatorCredential(n8n!.api, simulator.url, 'Campaign Calling (flood)');
		});

		afterAll(async () => simulator?.close());

		const floodOf = async (label: string, triggerOptions: Record<string, unknown>) =>
			await floodTrigger({ n8n: () => n8n!, simulator, credential, label: `${version} queue ${label}`, triggerOptions, loadLogFile: `${n8n!.workDir}/busy-load.log` });

		const expectNoneLostNoneDoubled = ({ counts, downstreamRuns }: TriggerFloodResult) =>
			expect({ answered: counts.answered, executed: counts.executed, lost: counts.lost, doubled: counts.doubled, downstreamRuns }).toEqual({
				answered: TRIGGER_FLOOD.events,
				executed: TRIGGER_FLOOD.events,
				lost: 0,
				doubled: 0,
				downstreamRuns: TRIGGER_FLOOD.events,
			});

		// Soak run only: in one process the code before issue 19 passed this flood too (bench/RESULTS.md, 2c); the
		// Ignore Repeats on flood below keeps the delivery guarantee under a flood in queue mode in `npm test`.
		soakOnly()('Ignore Repeats off: every event answered 2xx is in a successful execution; only a retried one can run twice', async () => {
			const result = await floodOf('off', { ignoreRepeats: false });
			const { counts, workflowId } = result;
			expect({ answered: counts.answered, executed: counts.executed, lost: counts.lost }).toEqual({ answered: TRIGGER_FLOOD.events, executed: TRIGGER_FLOOD.events, lost: 0 });
			// Per event: one sent once runs once; a retried one runs at most once per attempt sent.
			expect(eventsRunMoreThanSent(result)).toEqual([]);
			await n8n!.api.deleteWorkflow(workflowId);
		}, FLOOD_TEST_TIMEOUT_MS);

		it(`Ignore Repeats on: none lost, none doubled; then ${REPEATS} genuine repeats run no downstream node`, async () => {
			const result = await floodOf('on', { ignoreRepeats: true, repeatKey: 'event_id' });
			expectNoneLostNoneDoubled(result);
			const repeats = await inPool(result.bodies.slice(0, REPEATS), TRIGGER_FLOOD.concurrency, async (body) =>
				await sendDelivery(result.url, { headers: [['content-type', 'application/json'], [SECRET_HEADER, result.secret]], body: JSON.stringify(body) }),
			);
			expect(countBy(repeats, (answer) => `${answer.status} ${answer.text}`)).toEqual({
				[`200 ${JSON.stringify({ status: 'ok', received: 1, accepted: 0, repeats: 1 })}`]: REPEATS,
			});
			// The webhook process took each event and saw its 2xx answer relayed from the worker, so it knows
			// the keys n8n's store holds: the repeats start no execution at all.
			const after = await settledExecutions(n8n!, result.workflowId);
			const added = after.filter((execution) => !result.executions.some((before) => before.id === execution.id));
			log(`n8n ${version} queue mode: ${REPEATS} repeats after the flood started ${added.length} executions`);
			expect(added).toEqual([]);
			await n8n!.api.deleteWorkflow(result.workflowId);
		}, FLOOD_TEST_TIMEOUT_MS);
	});
});
