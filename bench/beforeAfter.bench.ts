/**
 * The trigger's throughput before and after a change, beside n8n's Webhook node in the same n8n run
 * (issue 61, point 7). Prints markdown tables; asserts only counts, never timings.
 *
 *   BENCH_BEFORE_ROOT=/tmp/before [BENCH_AFTER_ROOT=<repo>] [BENCH_N8N_VERSIONS=2.41.1,1.123.81] \
 *     [BENCH_DELIVERIES=400] [BENCH_ROUNDS=4] [BENCH_CONCURRENCY=16] \
 *     node --expose-gc node_modules/.bin/jest -c jest.bench.config.js --runInBand bench/beforeAfter.bench.ts
 *
 * Each root must be a built checkout of this package (`npm run build` there); the harness packs its dist/
 * and installs it as n8n's Community Nodes installer does. Without BENCH_BEFORE_ROOT the file is skipped.
 *
 * Per n8n line: one n8n with the "before" package and one with the "after" package, both started at its
 * defaults (2.41.1: the isolated-vm expression engine) and kept running side by side, idle but for the
 * flood of the moment. Each holds three workflows: the trigger with Ignore Repeats off, the trigger with
 * Ignore Repeats on (Repeat Key `data.n`) and n8n's Webhook node answering at once (responseMode
 * onReceived). Then BENCH_ROUNDS rounds, each measuring before, then after (before, after, before,
 * after, ...), and within a tree every path in turn (the order reversed every other round): the
 * Webhook node; the trigger, Ignore Repeats off; on, every event new; on, every delivery a repeat of an
 * event recorded minutes before (the latest batch of new events; answered without an execution). A ratio is the trigger's accepted
 * deliveries per second over the Webhook node's in the same n8n and round; the summary ratio is over
 * all rounds' totals. The 1-minute load average is read before each flood.
 */
import { readdirSync, readFileSync } from 'node:fs';

import { startSimulator, type Simulator } from '../test/simulator/server.ts';
import { sqliteExecutions, type ExecutionStore } from '../test/e2e/harness/fullQueue.ts';
import { type N8nInstance, simulatorCredential, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nVersion } from '../test/e2e/harness/runtime.ts';
import { campaignCallingTriggerNode, node, triggerWorkflow, workflow, type WorkflowNode } from '../test/e2e/harness/workflows.ts';

const BEFORE_ROOT = process.env.BENCH_BEFORE_ROOT;
const AFTER_ROOT = process.env.BENCH_AFTER_ROOT ?? process.cwd();
const VERSIONS = (process.env.BENCH_N8N_VERSIONS ?? '2.41.1,1.123.81').split(',') as N8nVersion[];
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/** Time for n8n to finish what a flood left (executions still saving, isolates being rebuilt) before the next flood. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 3000);

const TREES = ['before', 'after'] as const;
type Tree = (typeof TREES)[number];
const PATHS = ['webhook', 'off', 'new', 'repeat'] as const;
type DeliveryPath = (typeof PATHS)[number];
const LABEL: Record<DeliveryPath, string> = {
	webhook: "n8n's Webhook node (onReceived)",
	off: 'trigger, Ignore Repeats off',
	new: 'trigger, Ignore Repeats on, new events',
	repeat: 'trigger, Ignore Repeats on, every delivery a repeat',
};

interface FloodResult {
	sent: number;
	accepted: number;
	/** Answers other than 200, by status (0: no answer, the connection dropped). */
	refused: Record<string, number>;
	elapsedMs: number;
	latencies: number[];
	/** Executions the workflow gained during the flood and its settling. */
	executed: number;
	load: number;
	/** CPU time (user + system) n8n's processes spent from the flood's start until its executions settled, ms. */
	cpuMs: number;
}

/** Sends `total` deliveries with at most `concurrency` in flight, the n-th carrying `data.n` = first + n. */
async function flood(url: string, headers: Record<string, string>, total: number, concurrency: number, first: number) {
	const latencies: number[] = [];
	const refused: Record<string, number> = {};
	let next = 0;
	let accepted = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < total) {
			const index = next++;
			const sent = performance.now();
			let status = 0;
			try {
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...headers },
					body: JSON.stringify({ event_type: 'call.ended', data: { n: first + index } }),
				});
				await response.arrayBuffer();
				status = response.status;
			} catch {
				// A dropped connection is a delivery not accepted; its latency still counts.
			}
			if (status === 200) accepted++;
			else refused[status] = (refused[status] ?? 0) + 1;
			latencies.push(performance.now() - sent);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	return { sent: total, accepted, refused, elapsedMs: performance.now() - started, latencies };
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, ms) of every process of the n8n serving `instance`: its main process and task runners. */
function n8nCpuMs(instance: N8nInstance): number {
	let ticks = 0;
	for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
		try {
			if (!readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`N8N_USER_FOLDER=${instance.userFolder}\0`)) continue;
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			// utime and stime are fields 14 and 15 of stat; fields[0] here is field 3 (state).
			ticks += Number(fields[11]) + Number(fields[12]);
		} catch {
			// A process that ended or is not ours.
		}
	}
	return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Deliveries answered 200 per second of one flood. */
const rate = (result: FloodResult) => (result.accepted / result.elapsedMs) * 1000;
const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the workflow's executions stop growing and none is queued or running (at most 60 s); returns their number. */
async function settledExecutions(store: ExecutionStore, workflowId: string): Promise<number> {
	const deadline = Date.now() + 60_000;
	let last = -1;
	for (;;) {
		const rows = await store(workflowId);
		const busy = rows.some((row) => ['new', 'running', 'waiting', 'unknown'].includes(row.status));
		if ((!busy && rows.length === last) || Date.now() > deadline) return rows.length;
		last = rows.length;
		await sleep(1000);
	}
}

interface TreeInstance {
	tree: Tree;
	n8n: N8nInstance;
	store: ExecutionStore;
	workflowIds: Record<DeliveryPath, string>;
	targets: Record<DeliveryPath, { url: string; headers: Record<string, string> }>;
	nextNew: number;
	/** The first event of the latest batch recorded as new: what the repeat path resends. */
	lastRecorded: number;
}

async function startTree(tree: Tree, version: N8nVersion, simulator: Simulator): Promise<TreeInstance> {
	const packageRoot = tree === 'before' ? (BEFORE_ROOT as string) : AFTER_ROOT;
	const n8n = await startN8n({ version, withPackage: true, packageRoot, extraEnv: { N8N_PAYLOAD_SIZE_MAX: '64' }, readyTimeoutMs: 300_000 });
	const credential = await simulatorCredential(n8n.api, simulator.url, `bench ${tree}`);
	const off = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: false }, 'Trigger off');
	const on = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: true, repeatKey: 'data.n' }, 'Trigger on');
	const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: 'bench-webhook', responseMode: 'onReceived', options: {} }, { webhookId: 'b0000000-0000-4000-8000-000000000003' });
	const created = {
		off: await n8n.api.createWorkflow(triggerWorkflow('bench trigger off', off)),
		on: await n8n.api.createWorkflow(triggerWorkflow('bench trigger on', on)),
		webhook: await n8n.api.createWorkflow(workflow('bench webhook node', [webhook], {})),
	};
	for (const each of Object.values(created)) await n8n.api.activate(each.id);
	const target = (trigger: WorkflowNode) => {
		const url = `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
		const module = [...simulator.state.webhookModules.values()].map((owned) => owned.record).find((record) => record.settings.url === url);
		if (!module) throw new Error(`no module registered for ${url}`);
		return { url, headers: (module.settings.headers ?? {}) as Record<string, string> };
	};
	return {
		tree,
		n8n,
		store: sqliteExecutions(n8n),
		workflowIds: { webhook: created.webhook.id, off: created.off.id, new: created.on.id, repeat: created.on.id },
		targets: { webhook: { url: `${n8n.webhookUrl}webhook/bench-webhook`, headers: {} }, off: target(off), new: target(on), repeat: target(on) },
		// New events are numbered from 1,000,000 up; repeats resend the latest batch of new events (at first 0..perRound-1,
		// recorded before the rounds): the trigger remembers a recorded key in its process for 10 minutes (inFlight.ts, its key cache).
		nextNew: 1_000_000,
		lastRecorded: 0,
	};
}

async function measure(instance: TreeInstance, path: DeliveryPath, total: number, concurrency: number): Promise<FloodResult> {
	const workflowId = instance.workflowIds[path];
	const before = await settledExecutions(instance.store, workflowId);
	const first = path === 'new' ? instance.nextNew : path === 'repeat' ? instance.lastRecorded : 0;
	if (path === 'new') instance.nextNew += total;
	const load = loadAverage();
	const cpuBefore = n8nCpuMs(instance.n8n);
	const result = await flood(instance.targets[path].url, instance.targets[path].headers, total, concurrency, first);
	const after = await settledExecutions(instance.store, workflowId);
	const cpuMs = n8nCpuMs(instance.n8n) - cpuBefore;
	if (path === 'new' && result.accepted === total) instance.lastRecorded = first;
	await sleep(SETTLE_MS);
	return { ...result, executed: after - before, load, cpuMs };
}

function summarise(results: FloodResult[]) {
	const sum = (pick: (result: FloodResult) => number) => results.reduce((total, result) => total + pick(result), 0);
	const latencies = results.flatMap((result) => result.latencies).sort((a, b) => a - b);
	const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
	const refused: Record<string, number> = {};
	for (const result of results) for (const [status, count] of Object.entries(result.refused)) refused[status] = (refused[status] ?? 0) + count;
	return {
		sent: sum((result) => result.sent),
		accepted: sum((result) => result.accepted),
		executed: sum((result) => result.executed),
		refused,
		perSecond: (sum((result) => result.accepted) / sum((result) => result.elapsedMs)) * 1000,
		cpuMsPerDelivery: sum((result) => result.cpuMs) / sum((result) => result.sent),
		p50: percentile(50),
		p99: percentile(99),
		loads: results.map((result) => result.load),
	};
}

const describeOrSkip = BEFORE_ROOT ? describe : describe.skip;

describeOrSkip('Trigger before and after, beside the Webhook node in the same n8n', () => {
	let simulator: Simulator;
	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
	});
	afterAll(async () => {
		await simulator?.close();
	});

	test.each(VERSIONS)('n8n %s: alternating rounds, concurrency 16', async (version) => {
		const perRound = Math.ceil(DELIVERIES / ROUNDS);
		const instances: TreeInstance[] = [];
		try {
			// Started one after the other, so neither start loads the other's.
			for (const tree of TREES) instances.push(await startTree(tree, version, simulator));
			const warm: string[] = [];
			for (const instance of instances) {
				// A short warm-up of each path, so none pays for first-request costs in its figures.
				for (const path of PATHS) {
					const first = path === 'new' ? (instance.nextNew += 50) - 50 : 0;
					await flood(instance.targets[path].url, instance.targets[path].headers, 50, 4, first);
				}
				// The events the repeat path resends, recorded (and answered) once each.
				const recorded = await flood(instance.targets.repeat.url, instance.targets.repeat.headers, perRound, CONCURRENCY, 0);
				await settledExecutions(instance.store, instance.workflowIds.repeat);
				warm.push(`${instance.tree}: ${recorded.accepted} of ${perRound} repeat events recorded`);
				expect(recorded.accepted).toBe(perRound);
			}
			process.stdout.write(`\nn8n ${version}: ${warm.join('; ')}\n`);

			const runs = Object.fromEntries(TREES.map((tree) => [tree, Object.fromEntries(PATHS.map((path) => [path, [] as FloodResult[]]))])) as Record<Tree, Record<DeliveryPath, FloodResult[]>>;
			const roundRows: string[] = [
				`| round, tree | load | ${PATHS.map((path) => LABEL[path]).join(' | ')} |`,
				`|---|---|${PATHS.map(() => '---').join('|')}|`,
			];
			for (let round = 0; round < ROUNDS; round++) {
				for (const instance of instances) {
					const order = round % 2 === 0 ? PATHS : [...PATHS].reverse();
					const results = {} as Record<DeliveryPath, FloodResult>;
					for (const path of order) {
						results[path] = await measure(instance, path, perRound, CONCURRENCY);
						runs[instance.tree][path].push(results[path]);
					}
					const cell = (path: DeliveryPath) =>
						path === 'webhook'
							? `${rate(results.webhook).toFixed(1)}/s, ${(results.webhook.cpuMs / results.webhook.sent).toFixed(1)} ms`
							: `${rate(results[path]).toFixed(1)}/s (${(rate(results[path]) / rate(results.webhook)).toFixed(2)}x), ${(results[path].cpuMs / results[path].sent).toFixed(1)} ms`;
					const loads = order.map((path) => results[path].load.toFixed(1)).join('-');
					roundRows.push(`| ${round + 1}, ${instance.tree} | ${loads} | ${PATHS.map(cell).join(' | ')} |`);
					process.stdout.write(`${roundRows[roundRows.length - 1]}\n`);
				}
			}

			const summary = Object.fromEntries(TREES.map((tree) => [tree, Object.fromEntries(PATHS.map((path) => [path, summarise(runs[tree][path])]))])) as Record<
				Tree,
				Record<DeliveryPath, ReturnType<typeof summarise>>
			>;
			const statuses = (refused: Record<string, number>) => Object.entries(refused).map(([status, count]) => `${count} x ${status === '0' ? 'no answer' : status}`).join(', ');
			const rows = [
				`| n8n ${version}, ${ROUNDS} rounds of ${perRound} per path and tree, concurrency ${CONCURRENCY} | tree | sent | answered 200 | executed | accepted/s | p50 | p99 | vs Webhook node (totals) | median of the rounds' ratios (range) | n8n CPU per delivery | Webhook node's CPU / this | load (1 min) |`,
				'|---|---|---|---|---|---|---|---|---|---|---|---|---|',
			];
			const roundRatios = (tree: Tree, path: DeliveryPath) =>
				runs[tree][path].map((result, round) => rate(result) / rate(runs[tree].webhook[round])).sort((a, b) => a - b);
			const median = (values: number[]) => (values.length % 2 === 1 ? values[(values.length - 1) / 2] : (values[values.length / 2 - 1] + values[values.length / 2]) / 2);
			for (const path of PATHS) {
				for (const tree of TREES) {
					const figures = summary[tree][path];
					const ratio = path === 'webhook' ? '' : `${(figures.perSecond / summary[tree].webhook.perSecond).toFixed(2)}x`;
					const ratios = roundRatios(tree, path);
					const spread = path === 'webhook' ? '' : `${median(ratios).toFixed(2)}x (${ratios[0].toFixed(2)}-${ratios[ratios.length - 1].toFixed(2)})`;
					const others = statuses(figures.refused);
					rows.push(
						`| ${LABEL[path]} | ${tree} | ${figures.sent} | ${figures.accepted}${others ? ` (${others})` : ''} | ${figures.executed} | ${figures.perSecond.toFixed(1)} | ${figures.p50.toFixed(0)} ms | ${figures.p99.toFixed(0)} ms | ${ratio} | ${spread} | ${figures.cpuMsPerDelivery.toFixed(1)} ms | ${path === 'webhook' ? '' : `${(summary[tree].webhook.cpuMsPerDelivery / figures.cpuMsPerDelivery).toFixed(2)}x`} | ${Math.min(...figures.loads).toFixed(1)}-${Math.max(...figures.loads).toFixed(1)} |`,
					);
				}
			}
			process.stdout.write(`\nPer round (accepted/s, against the Webhook node in the same n8n and round, and n8n's CPU per delivery):\n${roundRows.join('\n')}\n\nAll rounds:\n${rows.join('\n')}\n`);
			// Counts only: every path answered something, and a repeat started no execution.
			for (const tree of TREES) {
				for (const path of PATHS) expect(summary[tree][path].accepted).toBeGreaterThan(0);
				expect(summary[tree].repeat.executed).toBe(0);
			}
		} finally {
			for (const instance of instances) await instance.n8n.stop();
		}
	});
});
