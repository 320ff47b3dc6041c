/**
 * Benchmarks 1 and 2 in real n8n 2.41.1 against the simulator. Prints markdown tables; asserts
 * only counts (requests sent, items out), never timings.
 *
 * n8n 2.41.1 unless BENCH_N8N_VERSION names another installed line (1.123.81).
 *
 * 1. Add Contacts over N items: this node (Map Each Field with {{ $json.x }}, with an expression
 *    the fast path cannot take, and Auto-Map) vs n8n's HTTP Request node posting one contact per
 *    item, vs the floor: the same batches posted by plain Node HTTP outside n8n; plus n8n's Set
 *    node evaluating the same non-trivial expressions. Memory per case: n8n's RSS before it, the
 *    peak within it (VmHWM reset just before), and the difference.
 * 2. Trigger: deliveries at a fixed concurrency to this trigger (Ignore Repeats off; on with new
 *    events; on with every delivery a repeat) vs n8n's Webhook node.
 * 3. The same comparison on 2.41.1's default engine under each expression-engine setting a user
 *    can choose (a fresh n8n per setting), with n8n's resident memory idle, after the run, and its
 *    peak during the run.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

import { DEMO, startSimulator, type Simulator } from '../test/simulator/server.ts';
import { type Execution, executionError, type N8nInstance, simulatorCredential, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nVersion } from '../test/e2e/harness/runtime.ts';
import {
	CREDENTIAL_TYPE,
	campaignCallingNode,
	campaignCallingTriggerNode,
	node,
	setNode,
	splitOutNode,
	triggerWorkflow,
	webhookDriven,
	workflow,
	type CredentialRef,
	type WorkflowNode,
} from '../test/e2e/harness/workflows.ts';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,50000').split(',').map(Number);
/** One request per item is slow by nature; past this size it is left out. */
const HTTP_NODE_MAX = Number(process.env.BENCH_HTTP_NODE_MAX ?? 10000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const VERSION = (process.env.BENCH_N8N_VERSION ?? '2.41.1') as N8nVersion;
const SETTING_DELIVERIES = Number(process.env.BENCH_SETTING_DELIVERIES ?? 1000);
const BATCH = 100;

let simulator: Simulator;
let n8n: N8nInstance;
let credential: CredentialRef;
let counter = 0;

beforeAll(async () => {
	simulator = await startSimulator({ recordBodies: false });
	// BENCH_EXPRESSION_ENGINE=legacy runs 2.x without its expression sandbox, to show what the sandbox costs.
	const engine: Record<string, string> = process.env.BENCH_EXPRESSION_ENGINE ? { N8N_EXPRESSION_ENGINE: process.env.BENCH_EXPRESSION_ENGINE } : {};
	// A generous wait for readiness: on a shared machine n8n's migrations alone can take minutes.
	n8n = await startN8n({ version: VERSION, withPackage: true, extraEnv: { N8N_PAYLOAD_SIZE_MAX: '64', ...engine }, readyTimeoutMs: 300_000 });
	credential = await simulatorCredential(n8n.api, simulator.url, 'bench');
});

afterAll(async () => {
	await n8n?.stop();
	await simulator?.close();
});

function leads(count: number) {
	return Array.from({ length: count }, (_, i) => ({
		x: `Lead${i}`,
		firstname: `Lead${i}`,
		lastname: 'Doe',
		phone_number: `+1415${String(i).padStart(7, '0')}`,
		f: `  Lead${i}  `,
	}));
}

/** The pid of the n8n process serving `instance` (its main process, where the node and the isolates run). */
function n8nPid(instance: N8nInstance): string | undefined {
	for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
		try {
			const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
			if (!environ.includes(`N8N_USER_FOLDER=${instance.userFolder}\0`)) continue;
			if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('n8n')) return pid;
		} catch {
			// A process that ended or is not ours.
		}
	}
	return undefined;
}

/**
 * Resident memory (VmRSS) of the n8n process serving `instance`, and its peak (VmHWM) since the last
 * `resetPeakRss`, in MiB. Without a reset, VmHWM is the peak over the process's whole life.
 */
function n8nMemoryMiB(instance: N8nInstance): { rss?: number; peak?: number } {
	const pid = n8nPid(instance);
	if (!pid) return {};
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
	return { rss: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

/** Resets the process's VmHWM to its current RSS (Linux `clear_refs` 5), so the next peak is the case's own. */
function resetPeakRss(instance: N8nInstance): void {
	const pid = n8nPid(instance);
	if (!pid) throw new Error(`no n8n process found for ${instance.userFolder}`);
	writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

function nodeTime(execution: Execution, name: string): number {
	const run = (execution.data?.resultData.runData[name] ?? [])[0] as { executionTime?: number } | undefined;
	return run?.executionTime ?? NaN;
}

/** Runs a webhook-driven workflow once over `count` leads; returns the node's time and requests. */
async function runCase(label: string, nodes: WorkflowNode[], measured: string, count: number) {
	const path = `bench-${++counter}`;
	const created = await n8n.api.createWorkflow(webhookDriven(path, [splitOutNode('Leads', 'body.leads'), ...nodes]));
	try {
		await n8n.api.activate(created.id);
		// Every case starts from the same service state: the contacts earlier cases added would
		// otherwise grow the simulator's heap (it runs in this process) and slow later cases.
		simulator.reset();
		// n8n's heap cannot be collected from outside, so "before" holds whatever earlier cases left;
		// the peak is this case's own (reset just before it), and peak − before is its growth.
		resetPeakRss(n8n);
		const before = n8nMemoryMiB(n8n).rss;
		const reply = await n8n.api.callWebhook(path, { leads: leads(count) });
		const [execution] = await n8n.api.waitForExecutions(created.id, 1, 600_000);
		const { peak } = n8nMemoryMiB(n8n);
		// A failed run is a finding to print, not a reason to lose the other figures.
		const failure = execution.status === 'success' ? undefined : (executionError(execution)?.message ?? execution.status);
		if (!failure) expect(Array.isArray(reply.body) ? reply.body.length : 0).toBe(count);
		const shownLabel = failure ? `${label} — FAILED: ${failure.slice(0, 120)}` : label;
		return { label: shownLabel, count, ms: nodeTime(execution, measured), requests: simulator.requests.length, before, peak, failed: !!failure };
	} finally {
		await n8n.api.deleteWorkflow(created.id);
	}
}

/** The floor: the same contacts in the same batches, posted by plain Node HTTP, one at a time. */
async function floor(count: number) {
	const contacts = leads(count).map(({ firstname, lastname, phone_number }) => ({ firstname, lastname, phone_number }));
	simulator.reset();
	const started = performance.now();
	for (let start = 0; start < contacts.length; start += BATCH) {
		const response = await fetch(`${simulator.url}/compaign/v1/contacts/addToCampaign/${DEMO.campaignId}`, {
			method: 'POST',
			headers: { authorization: `Bearer ${DEMO.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify(contacts.slice(start, start + BATCH)),
		});
		await response.json();
	}
	return { ms: performance.now() - started, requests: simulator.requests.length };
}

const addContacts = (parameters: Record<string, unknown>) =>
	campaignCallingNode('Campaign Calling', { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, ...parameters }, credential);

const httpRequestPerItem = () =>
	node('HTTP Request', 'n8n-nodes-base.httpRequest', 4.2, {
		method: 'POST',
		url: `${simulator.url}/compaign/v1/contacts/addToCampaign/${DEMO.campaignId}`,
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${DEMO.apiKey}` }] },
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify([{ firstname: $json.x, lastname: $json.lastname, phone_number: $json.phone_number }]) }}',
		options: {},
	});

const rate = (count: number, ms: number) => Math.round((count / ms) * 1000).toLocaleString('en-US');

test('1. Add Contacts: this node vs HTTP Request per item vs plain HTTP', async () => {
	const rows = [
		'| N | case | node time | requests | items/s | n8n RSS before | peak in case | growth | vs HTTP Request node | vs floor |',
		'|---|---|---|---|---|---|---|---|---|---|',
	];
	for (const count of SIZES) {
		const base = await floor(count);
		expect(base.requests).toBe(Math.ceil(count / BATCH));
		const fields = await runCase(
			'node, Map Each Field `{{ $json.x }}`',
			[addContacts({ firstName: '={{ $json.x }}', lastName: '={{ $json.lastname }}', phoneNumber: '={{ $json.phone_number }}' })],
			'Campaign Calling',
			count,
		);
		const autoMap = await runCase('node, Auto-Map', [addContacts({ inputMode: 'autoMap' })], 'Campaign Calling', count);
		// Not the default (the service documents no rate limits): what the option buys when allowed.
		const autoMapParallel = await runCase(
			'node, Auto-Map, Requests in Parallel 2',
			[addContacts({ inputMode: 'autoMap', options: { parallelRequests: 2 } })],
			'Campaign Calling',
			count,
		);
		const trimmed = await runCase(
			'node, `{{ $json.f.trim() }}` (no fast path)',
			[addContacts({ firstName: '={{ $json.f.trim() }}', lastName: '={{ $json.lastname.trim() }}', phoneNumber: '={{ $json.phone_number.trim() }}' })],
			'Campaign Calling',
			count,
		);
		const setOnly = await runCase(
			'Set node, same three `.trim()` expressions',
			[setNode('Set', { firstname: '={{ $json.f.trim() }}', lastname: '={{ $json.lastname.trim() }}', phone_number: '={{ $json.phone_number.trim() }}' })],
			'Set',
			count,
		);
		for (const result of [fields, autoMap, autoMapParallel, trimmed]) if (!result.failed) expect(result.requests).toBe(Math.ceil(count / BATCH));
		const http = count <= HTTP_NODE_MAX ? await runCase('HTTP Request node, one POST per item', [httpRequestPerItem()], 'HTTP Request', count) : undefined;
		if (http && !http.failed) expect(http.requests).toBe(count);

		const memory = (result: { before?: number; peak?: number }) =>
			result.before === undefined || result.peak === undefined
				? '? | ? | ?'
				: `${result.before} MiB | ${result.peak} MiB | +${result.peak - result.before} MiB`;
		const row = (result: { label: string; ms: number; requests: number; before?: number; peak?: number }, extra = '') =>
			`| ${count} | ${result.label} | ${Math.round(result.ms)} ms | ${result.requests} | ${rate(count, result.ms)} | ${memory(result)} | ${
				http && result !== http ? `${(http.ms / result.ms).toFixed(1)}x faster` : ''
			} | ${(result.ms / base.ms).toFixed(2)}x${extra} |`;
		rows.push(row(fields), row(autoMap), row(autoMapParallel), row(trimmed, ` (Set + floor: ${((setOnly.ms + base.ms) / base.ms).toFixed(2)}x)`), row(setOnly));
		if (http) rows.push(row(http));
		rows.push(`| ${count} | floor: plain Node HTTP, batches of ${BATCH} | ${Math.round(base.ms)} ms | ${base.requests} | ${rate(count, base.ms)} | | | | | 1.00x |`);
		// Printed as each size completes, so a long run shows its figures as it goes.
		process.stdout.write(`\n${rows.join('\n')}\n`);
		rows.splice(2);
	}
});

interface FloodResult {
	accepted: number;
	elapsedMs: number;
	latencies: number[];
}

/**
 * Sends `total` deliveries with at most `concurrency` in flight, the n-th carrying `data.n` = first + n;
 * returns what was accepted, how fast, and each latency.
 */
async function flood(url: string, headers: Record<string, string>, total: number, concurrency: number, first = 0): Promise<FloodResult> {
	const latencies: number[] = [];
	let next = 0;
	let accepted = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < total) {
			const index = next++;
			const sent = performance.now();
			try {
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...headers },
					body: JSON.stringify({ event_type: 'call.ended', data: { n: first + index } }),
				});
				await response.arrayBuffer();
				if (response.status === 200) accepted++;
			} catch {
				// A dropped connection (n8n overloaded) is a delivery not accepted; its latency still counts.
			}
			latencies.push(performance.now() - sent);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	return { accepted, elapsedMs: performance.now() - started, latencies };
}

/** Several floods' totals: deliveries accepted per second over their summed time, and latency percentiles. */
function summarise(results: FloodResult[]) {
	const accepted = results.reduce((sum, result) => sum + result.accepted, 0);
	const elapsedMs = results.reduce((sum, result) => sum + result.elapsedMs, 0);
	const latencies = results.flatMap((result) => result.latencies).sort((a, b) => a - b);
	const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
	return { accepted, perSecond: (accepted / elapsedMs) * 1000, p50: percentile(50), p99: percentile(99) };
}

interface Comparison {
	deliveries: number;
	ours: ReturnType<typeof summarise>;
	theirs: ReturnType<typeof summarise>;
}

/** The paths a delivery can take, each timed in the same alternating rounds. */
const PATHS = ['off', 'on', 'repeat', 'webhook'] as const;
type DeliveryPath = (typeof PATHS)[number];

/**
 * Floods this trigger and a Webhook node (all in `instance`) with `total` deliveries per path, in
 * rounds whose order turns each time, so no path gains from running first on a fresh database or
 * loses to the executions another left behind. Paths: the trigger with Ignore Repeats off; on, with
 * every event new; on, with every delivery a repeat of an event recorded before; n8n's Webhook node.
 */
async function deliveryPaths(instance: N8nInstance, credentialRef: CredentialRef, total: number, paths: readonly DeliveryPath[] = PATHS) {
	const off = campaignCallingTriggerNode(['call.ended'], credentialRef, { ignoreRepeats: false }, 'Trigger off');
	const on = campaignCallingTriggerNode(['call.ended'], credentialRef, { ignoreRepeats: true, repeatKey: 'data.n' }, 'Trigger on');
	const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: 'bench-webhook', responseMode: 'onReceived', options: {} }, { webhookId: 'b0000000-0000-4000-8000-000000000001' });
	const created = [
		await instance.api.createWorkflow(triggerWorkflow('bench trigger off', off)),
		await instance.api.createWorkflow(triggerWorkflow('bench trigger on', on)),
		await instance.api.createWorkflow(workflow('bench webhook node', [webhook], {})),
	];
	try {
		for (const each of created) await instance.api.activate(each.id);
		const target = (trigger: WorkflowNode) => {
			const url = `${instance.webhookUrl}webhook/${trigger.webhookId}/webhook`;
			const module = [...simulator.state.webhookModules.values()].map((owned) => owned.record).find((record) => record.settings.url === url);
			return { url, headers: (module?.settings.headers ?? {}) as Record<string, string> };
		};
		const targets: Record<DeliveryPath, { url: string; headers: Record<string, string> }> = {
			off: target(off),
			on: target(on),
			repeat: target(on),
			webhook: { url: `${instance.webhookUrl}webhook/bench-webhook`, headers: {} },
		};
		const rounds = 4;
		const perRound = Math.ceil(total / rounds);
		// New events of the 'on' path are numbered from 1,000,000 up; 'repeat' resends 0..perRound-1, recorded here.
		let nextNew = 1_000_000;
		// A short warm-up of each, so none pays for first-request costs in its figures.
		for (const path of paths) await flood(targets[path].url, targets[path].headers, 50, 4, path === 'on' ? (nextNew += 50) - 50 : 0);
		if (paths.includes('repeat')) await flood(targets.repeat.url, targets.repeat.headers, perRound, CONCURRENCY, 0);
		const runs = Object.fromEntries(paths.map((path) => [path, [] as FloodResult[]])) as Record<DeliveryPath, FloodResult[]>;
		for (let round = 0; round < rounds; round++) {
			const order = round % 2 === 0 ? paths : [...paths].reverse();
			for (const path of order) {
				const first = path === 'on' ? nextNew : 0;
				if (path === 'on') nextNew += perRound;
				runs[path].push(await flood(targets[path].url, targets[path].headers, perRound, CONCURRENCY, first));
			}
		}
		const results = Object.fromEntries(paths.map((path) => [path, summarise(runs[path])])) as Record<DeliveryPath, ReturnType<typeof summarise>>;
		return { deliveries: perRound * rounds, results };
	} finally {
		for (const each of created) await instance.api.deleteWorkflow(each.id);
	}
}

/** This trigger (Ignore Repeats off) against the Webhook node, for the per-setting table. */
async function triggerAgainstWebhookNode(instance: N8nInstance, credentialRef: CredentialRef, total: number): Promise<Comparison> {
	const { deliveries, results } = await deliveryPaths(instance, credentialRef, total, ['off', 'webhook']);
	expect([results.off.accepted, results.webhook.accepted]).toEqual([deliveries, deliveries]);
	return { deliveries, ours: results.off, theirs: results.webhook };
}

const figures = (result: ReturnType<typeof summarise>) =>
	`${result.perSecond.toFixed(0)}/s, p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms`;

test('2. Trigger throughput and answer latency per path: Ignore Repeats off, on, a repeat, and n8n\'s Webhook node', async () => {
	const { deliveries, results } = await deliveryPaths(n8n, credential, DELIVERIES);
	const label: Record<DeliveryPath, string> = {
		off: 'Campaign Calling Trigger, Ignore Repeats off',
		on: 'Campaign Calling Trigger, Ignore Repeats on, new events',
		repeat: 'Campaign Calling Trigger, Ignore Repeats on, every delivery a repeat',
		webhook: 'n8n Webhook node (Respond Immediately)',
	};
	const rows = [
		`| n8n ${VERSION}: ${deliveries} deliveries per path, concurrency ${CONCURRENCY} | accepted | accepted/s | p50 | p99 | vs Webhook node |`,
		'|---|---|---|---|---|---|',
		...PATHS.map(
			(path) =>
				`| ${label[path]} | ${results[path].accepted} | ${results[path].perSecond.toFixed(1)} | ${results[path].p50.toFixed(1)} ms | ${results[path].p99.toFixed(1)} ms | ${(results[path].perSecond / results.webhook.perSecond).toFixed(2)}x |`,
		),
	];
	process.stdout.write(`\n${rows.join('\n')}\n`);
	// Printed first: on a loaded machine a path may answer some deliveries with 500 (n8n could not create the execution), which the table shows.
	for (const path of PATHS) expect(results[path].accepted).toBeGreaterThan(0);
});

/** n8n 2.41.1's expression-engine settings (its @n8n/config expression-engine config), none set first. */
const ENGINE_SETTINGS: Array<{ label: string; env: Record<string, string> }> = [
	{ label: 'none (defaults: pool of 1, eager acquire)', env: {} },
	{ label: '`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`', env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } },
	{ label: '`N8N_EXPRESSION_ENGINE_POOL_SIZE=2`', env: { N8N_EXPRESSION_ENGINE_POOL_SIZE: '2' } },
	{ label: '`N8N_EXPRESSION_ENGINE_POOL_SIZE=4`', env: { N8N_EXPRESSION_ENGINE_POOL_SIZE: '4' } },
	{ label: '`N8N_EXPRESSION_ENGINE_COMPILE_CACHE=true`', env: { N8N_EXPRESSION_ENGINE_COMPILE_CACHE: 'true' } },
	{
		label: 'lazy acquire + compile cache',
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true', N8N_EXPRESSION_ENGINE_COMPILE_CACHE: 'true' },
	},
];

test('3. Trigger vs Webhook node on 2.41.1\'s default engine, per expression-engine setting', async () => {
	const only = process.env.BENCH_SETTINGS?.split(',').map(Number);
	const rows = [
		`| setting (${SETTING_DELIVERIES} deliveries each, concurrency ${CONCURRENCY}) | this trigger | n8n Webhook node | ratio | n8n RSS idle | after | peak during the run |`,
		'|---|---|---|---|---|---|---|',
	];
	for (const [index, setting] of ENGINE_SETTINGS.entries()) {
		if (only && !only.includes(index)) continue;
		const instance = await startN8n({ version: '2.41.1', withPackage: true, extraEnv: setting.env });
		try {
			const created = await instance.api.createCredential('bench', CREDENTIAL_TYPE, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
			const idle = n8nMemoryMiB(instance);
			resetPeakRss(instance);
			simulator.reset();
			const { ours, theirs } = await triggerAgainstWebhookNode(instance, { id: created.id, name: created.name }, SETTING_DELIVERIES);
			const after = n8nMemoryMiB(instance);
			rows.push(
				`| ${setting.label} | ${figures(ours)} | ${figures(theirs)} | ${(ours.perSecond / theirs.perSecond).toFixed(2)}x | ${idle.rss} MiB | ${after.rss} MiB | ${after.peak} MiB |`,
			);
			// Printed as each setting completes, so a long run shows its figures as it goes.
			process.stdout.write(`\n${rows[rows.length - 1]}\n`);
		} finally {
			await instance.stop();
		}
	}
	process.stdout.write(`\n${rows.join('\n')}\n`);
});
