/**
 * The package in n8n's queue mode, as users scale it: Redis and Postgres, a main, a worker and a webhook
 * process (harness/queue.ts). The same action and trigger cases as the single-process suite, and for every
 * execution they wait for, proof that the webhook process enqueued it and the worker ran it.
 */
import { simulatorCredential } from './harness/n8n.ts';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { FLOOD_TEST_TIMEOUT_MS, TRIGGER_FLOOD, countBy, floodTrigger, inPool, sendDelivery, settledExecutions, SECRET_HEADER, type TriggerFloodResult } from './harness/deliveries.ts';
import { MCP_PATH, MCP_TEST_TOKEN, mcpCases, READY_TIMEOUT_MS } from './harness/mcp-cases.ts';
import { connectMcp, MCP_TRANSPORTS, mcpUrl, postInitialize, postJsonRpc } from './harness/mcp.ts';
import type { Execution } from './harness/n8n.ts';
import { packageCases } from './harness/package-cases.ts';
import { log, sleep } from './harness/process.ts';
import { startQueueN8n, type QueueN8nInstance, type QueueProcess } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import type { CredentialRef } from './harness/workflows.ts';

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

	afterAll(() => {
		// Reported, not asserted: memory depends on the machine.
		if (n8n) {
			const memory = Object.values(n8n.processes).map((each) => `${each.role} ${each.rssMb()} MB`);
			log(`n8n ${version} queue mode: resident memory after the cases: ${memory.join(', ')}`);
		}
	});

	packageCases({
		start: async () => (n8n = await startQueueN8n({ version, readyTimeoutMs: 300_000 })),
		checkExecution: expectRanOnWorker,
	});

	it('runs in queue mode, with production webhooks served by the webhook process, not the main', async () => {
		if (!n8n) throw new Error(`n8n ${version} did not start in queue mode`);
		const { main, worker, webhook } = n8n.processes;
		expect(new Set([main.port, worker.port, webhook.port]).size).toBe(3);
		expect(n8n.webhookUrl).toBe(webhook.url);
		expect(n8n.webhookUrl).not.toBe(n8n.url);
		const settings = await n8n.api.rest<{ data: { executionMode: string } }>('GET', '/settings');
		expect(settings.body.data.executionMode).toBe('queue');
		// Each process answers its own health check: the worker on its own port, with Redis and Postgres reachable.
		for (const each of [main, worker, webhook]) {
			expect((await fetch(`${each.url}healthz/readiness`)).status).toBe(200);
		}
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

		it('Ignore Repeats off: every event answered 2xx is in a successful execution; only a retried one can run twice', async () => {
			const { counts, workflowId } = await floodOf('off', { ignoreRepeats: false });
			expect({ answered: counts.answered, executed: counts.executed, lost: counts.lost }).toEqual({ answered: TRIGGER_FLOOD.events, executed: TRIGGER_FLOOD.events, lost: 0 });
			expect(counts.doubled).toBeLessThanOrEqual(counts.retried);
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

describeEachVersion('MCP tools in n8n %s in queue mode', (version) => {
	let n8n: QueueN8nInstance | undefined;

	mcpCases({
		version,
		start: async () => (n8n = await startQueueN8n({ version, readyTimeoutMs: READY_TIMEOUT_MS })),
		transports: MCP_TRANSPORTS,
		// As in a single process, 2.x records the failed call as a successful execution: the error is the tool's answer.
		failedCallExecution: version.startsWith('1.') ? 'none' : 'success',
		checkExecution: expectRanOnWorker,
	});

	it('/mcp is served by the main and the webhook process, not the worker; 1.x keeps a session in its process, 2.x shares it', async () => {
		if (!n8n) throw new Error(`n8n ${version} did not start in queue mode`);
		const { main, webhook } = n8n.processes;
		const answers: Record<string, number> = {};
		for (const server of Object.values(n8n.processes)) {
			answers[server.role] = (await postInitialize(mcpUrl(server.url, MCP_PATH), { authorization: `Bearer ${MCP_TEST_TOKEN}` })).status;
		}
		log(`n8n ${version} queue mode: an MCP initialize on each process answered ${JSON.stringify(answers)}`);
		expect(answers).toEqual({ main: 200, worker: 404, webhook: 200 });

		// A session opened at one process, continued at another: what a load balancer without stickiness does.
		const opened = await postInitialize(mcpUrl(webhook.url, MCP_PATH), { authorization: `Bearer ${MCP_TEST_TOKEN}` });
		const sessionId = opened.headers.get('mcp-session-id') ?? '';
		expect(sessionId).not.toBe('');
		const auth = { authorization: `Bearer ${MCP_TEST_TOKEN}` };
		const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
		const elsewhere = await postJsonRpc(mcpUrl(main.url, MCP_PATH), listTools, sessionId, auth);
		const there = await postJsonRpc(mcpUrl(webhook.url, MCP_PATH), listTools, sessionId, auth);
		log(`n8n ${version} queue mode: tools/list of a session opened at the webhook process: at the main HTTP ${elsewhere.status} ${elsewhere.body.slice(0, 200)}; at the webhook process HTTP ${there.status}`);
		expect(there.status).toBe(200);
		expect(there.body).toContain('Add_to_Campaign');
		if (version.startsWith('1.')) {
			// 1.x keeps a session in the process that opened it: another one does not know it.
			expect(elsewhere.status).toBe(400);
			expect(elsewhere.body).toContain('Server not initialized');
		} else {
			// 2.x shares sessions between its processes (through Redis): the main answers for the webhook's session.
			expect(elsewhere.status).toBe(200);
			expect(elsewhere.body).toContain('Add_to_Campaign');
		}

		const connection = await connectMcp(mcpUrl(main.url, MCP_PATH), 'streamable HTTP', MCP_TEST_TOKEN);
		try {
			const result = await connection.client.callTool({ name: 'Get_Campaign', arguments: {} });
			expect(result.isError).toBeFalsy();
		} finally {
			await connection.close();
		}
		// Reported rather than asserted: where a call that came in through the main ran.
		const newest = await n8n.api.publicApi<{ data: Array<{ id: string; status: string }> }>('GET', '/executions?limit=1');
		const [execution] = newest.body.data;
		const where = {
			enqueuedByMain: await logShows(main, enqueued(execution.id), 3_000),
			startedOnWorker: await logShows(n8n.processes.worker, workerStarted(execution.id), 3_000),
		};
		log(`n8n ${version} queue mode: a tool call through the main: execution ${execution.id} ${execution.status}, ${JSON.stringify(where)}`);
		expect(execution.status).toBe('success');
	});
});
