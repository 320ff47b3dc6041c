/**
 * Profiles one benchmark case inside real n8n 2.41.1: starts n8n with V8's CPU profiler, runs the
 * case, stops n8n (which writes the profile) and prints where n8n's main process spent its time,
 * by self time and by inclusive time.
 *
 *   npm run bench:profile -- <case> [count]
 *
 * Cases: fields ({{ $json.x }}), automap (Auto-Map), trim ({{ $json.f.trim() }}), set (Set node, the same .trim()),
 * http (HTTP Request node per item), trigger (deliveries to this trigger), webhook (to n8n's Webhook node),
 * new (this trigger with Ignore Repeats on and Repeat Key data.n, every event new), repeat (the same, every
 * delivery a repeat of an event recorded before the measured deliveries, answered without an execution).
 *
 * BENCH_N8N_VERSION picks the n8n line (default 2.41.1); E2E_PACKAGE_ROOT another built checkout of the package.
 * For the delivery cases, a second part covers only the measured deliveries (after a warm-up of 50, and for
 * repeat after recording the events): n8n's CPU in that window divided by the deliveries, by frame, and split
 * into this package's code, n8n's expression isolates and the rest of n8n.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO, startSimulator } from '../test/simulator/server.ts';
import { simulatorCredential, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nVersion } from '../test/e2e/harness/runtime.ts';
import {
	campaignCallingNode,
	campaignCallingTriggerNode,
	node,
	setNode,
	splitOutNode,
	triggerWorkflow,
	webhookDriven,
	workflow,
	type WorkflowNode,
} from '../test/e2e/harness/workflows.ts';

const CASES = ['fields', 'automap', 'trim', 'set', 'http', 'trigger', 'webhook', 'new', 'repeat'] as const;
type Case = (typeof CASES)[number];
const DELIVERY_CASES: readonly Case[] = ['trigger', 'webhook', 'new', 'repeat'];
const VERSION = (process.env.BENCH_N8N_VERSION ?? '2.41.1') as N8nVersion;

/** The measured deliveries' window on the monotonic clock V8's profiles use (microseconds), and their number. */
interface Window {
	fromMicros: number;
	toMicros: number;
	deliveries: number;
}
const PACKAGE_NAME = 'n8n-nodes-campaign-calling';
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
}

async function main(): Promise<void> {
	if (process.argv[2] === '--reprint') {
		const dir = process.argv[3];
		printWindow(largestProfile(dir), JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as Window);
		return;
	}
	const chosen = process.argv[2] as Case;
	const count = Number(process.argv[3] ?? (DELIVERY_CASES.includes(chosen) ? 500 : 10_000));
	if (!CASES.includes(chosen)) throw new Error(`Name a case: ${CASES.join(', ')}`);

	const profileDir = mkdtempSync(join(tmpdir(), 'campaign-calling-profile-'));
	const simulator = await startSimulator({ recordBodies: false });
	const n8n = await startN8n({
		version: VERSION,
		withPackage: true,
		// Node 20 (n8n 1.x) refuses --cpu-prof in NODE_OPTIONS: a preload starts the same profiler there.
		extraEnv: VERSION.startsWith('1.')
			? { N8N_PAYLOAD_SIZE_MAX: '64', NODE_OPTIONS: `--require ${join(import.meta.dirname, 'cpuProfilePreload.cjs')}`, CPU_PROFILE_DIR: profileDir }
			: { N8N_PAYLOAD_SIZE_MAX: '64', NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` },
	});
	let window: Window | undefined;
	try {
		const credential = await simulatorCredential(n8n.api, simulator.url, 'profile');
		const started = performance.now();
		if (DELIVERY_CASES.includes(chosen)) {
			const options = chosen === 'new' || chosen === 'repeat' ? { ignoreRepeats: true, repeatKey: 'data.n' } : {};
			const trigger = campaignCallingTriggerNode(['call.ended'], credential, options);
			const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: 'profile', responseMode: 'onReceived', options: {} }, { webhookId: 'b0000000-0000-4000-8000-000000000002' });
			const target = await n8n.api.createWorkflow(chosen === 'webhook' ? workflow('profile', [webhook], {}) : triggerWorkflow('profile', trigger));
			await n8n.api.activate(target.id);
			const module = [...simulator.state.webhookModules.values()].map((owned) => owned.record).find((record) => record.event_type === 'call.ended');
			const headers = chosen === 'webhook' ? {} : ((module?.settings.headers ?? {}) as Record<string, string>);
			const url = chosen === 'webhook' ? `${n8n.webhookUrl}webhook/profile` : `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
			const deliver = async (total: number, concurrency: number, first: number) => {
				let next = 0;
				const send = async () => {
					while (next < total) {
						const n = first + next++;
						const response = await fetch(url, {
							method: 'POST',
							headers: { 'content-type': 'application/json', ...headers },
							body: JSON.stringify({ event_type: 'call.ended', data: { n } }),
						});
						await response.arrayBuffer();
					}
				};
				await Promise.all(Array.from({ length: concurrency }, send));
			};
			const settle = () => new Promise((resolve) => setTimeout(resolve, 10_000));
			// Outside the measured window: a warm-up, and for repeat the events its deliveries resend.
			await deliver(50, 4, 1_000_000);
			if (chosen === 'repeat') await deliver(count, 16, 1);
			await settle();
			const fromMicros = monotonicMicros();
			await deliver(count, 16, 1);
			// Deliveries are answered before their executions end; give those time to finish, inside the window.
			await settle();
			window = { fromMicros, toMicros: monotonicMicros(), deliveries: count };
		} else {
			const nodes: Record<Exclude<Case, 'trigger' | 'webhook' | 'new' | 'repeat'>, WorkflowNode> = {
				fields: campaignCallingNode('Measured', { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, firstName: '={{ $json.x }}', lastName: '={{ $json.lastname }}', phoneNumber: '={{ $json.phone_number }}' }, credential),
				automap: campaignCallingNode('Measured', { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' }, credential),
				trim: campaignCallingNode('Measured', { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, firstName: '={{ $json.f.trim() }}', lastName: '={{ $json.lastname.trim() }}', phoneNumber: '={{ $json.phone_number.trim() }}' }, credential),
				set: setNode('Measured', { firstname: '={{ $json.f.trim() }}', lastname: '={{ $json.lastname.trim() }}', phone_number: '={{ $json.phone_number.trim() }}' }),
				http: node('Measured', 'n8n-nodes-base.httpRequest', 4.2, {
					method: 'POST',
					url: `${simulator.url}/compaign/v1/contacts/addToCampaign/${DEMO.campaignId}`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify([{ firstname: $json.x, lastname: $json.lastname, phone_number: $json.phone_number }]) }}',
					options: {},
				}),
			};
			const target = await n8n.api.createWorkflow(webhookDriven('profile', [splitOutNode('Leads', 'body.leads'), nodes[chosen as keyof typeof nodes]]));
			await n8n.api.activate(target.id);
			const leads = Array.from({ length: count }, (_, i) => ({ x: `Lead${i}`, firstname: `Lead${i}`, lastname: 'Doe', phone_number: `+1415${String(i).padStart(7, '0')}`, f: `  Lead${i}  ` }));
			await n8n.api.callWebhook('profile', { leads });
		}
		process.stdout.write(`${chosen} x ${count}: ${Math.round(performance.now() - started)} ms wall\n`);
	} finally {
		await n8n.stop();
		await simulator.close();
	}
	const profile = largestProfile(profileDir);
	printProfile(profile);
	if (window) {
		writeFileSync(join(profileDir, 'window.json'), JSON.stringify(window));
		process.stdout.write(`\nprofile and window kept in ${profileDir} (reprint: node bench/profile.ts --reprint ${profileDir})\n`);
		printWindow(profile, window);
	}
}

/** n8n's task runners write profiles too; the main process's is by far the largest. */
function largestProfile(dir: string): CpuProfile {
	const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
	if (files.length === 0) throw new Error(`n8n wrote no profile into ${dir}`);
	const largest = files.map((file) => join(dir, file)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
	return JSON.parse(readFileSync(largest, 'utf8')) as CpuProfile;
}

function printProfile(profile: CpuProfile): void {
	const byId = new Map(profile.nodes.map((entry) => [entry.id, entry]));
	const parent = new Map<number, number>();
	for (const entry of profile.nodes) for (const child of entry.children ?? []) parent.set(child, entry.id);
	const label = (entry: ProfileNode) => {
		const file = entry.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\//, '');
		return `${entry.callFrame.functionName || '(anonymous)'} ${file}:${entry.callFrame.lineNumber + 1}`;
	};
	const callers = new Map<string, number>();
	const callersOf = process.env.PROFILE_CALLERS ? new RegExp(process.env.PROFILE_CALLERS) : undefined;
	const self = new Map<string, number>();
	const inclusive = new Map<string, number>();
	let total = 0;
	profile.samples.forEach((sample, index) => {
		const delta = profile.timeDeltas[index] ?? 0;
		total += delta;
		const leaf = byId.get(sample);
		if (!leaf) return;
		self.set(label(leaf), (self.get(label(leaf)) ?? 0) + delta);
		if (callersOf) {
			const stack: string[] = [];
			for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) stack.push(label(byId.get(id) as ProfileNode));
			const hit = stack.findIndex((name) => callersOf.test(name));
			if (hit >= 0) {
				const path = stack.slice(hit, hit + 12).join('\n      <- ');
				callers.set(path, (callers.get(path) ?? 0) + delta);
			}
		}
		const seen = new Set<string>();
		for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
			const name = label(byId.get(id) as ProfileNode);
			if (seen.has(name)) continue;
			seen.add(name);
			inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
		}
	});
	const top = (map: Map<string, number>, rows: number) =>
		[...map.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, rows)
			.map(([name, micros]) => `${(micros / 1000).toFixed(0).padStart(8)} ms ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
			.join('\n');
	process.stdout.write(`\nprofile: ${(total / 1000).toFixed(0)} ms sampled\n\nby self time:\n${top(self, 30)}\n\nby inclusive time:\n${top(inclusive, 60)}\n`);
	if (callersOf) process.stdout.write(`\ncallers of ${callersOf.source}:\n${top(callers, 8)}\n`);
	const focus = /n8n-nodes-campaign-calling|request-helper|credentials-helper|getCredentials|getNodeParameter|authenticate|expression/;
	const focused = new Map([...inclusive].filter(([name]) => focus.test(name)));
	process.stdout.write(`\nthis package, n8n's HTTP, credential and expression helpers, by inclusive time:\n${top(focused, 40)}\n`);
}

/** Where n8n spent its CPU during the measured deliveries, per delivery. */
function printWindow(profile: CpuProfile, window: Window): void {
	const byId = new Map(profile.nodes.map((entry) => [entry.id, entry]));
	const parent = new Map<number, number>();
	for (const entry of profile.nodes) for (const child of entry.children ?? []) parent.set(child, entry.id);
	const label = (entry: ProfileNode) => {
		const file = entry.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\//, '');
		return `${entry.callFrame.functionName || '(anonymous)'} ${file}:${entry.callFrame.lineNumber + 1}`;
	};
	const IDLE = new Set(['(idle)', '(program)']);
	const self = new Map<string, number>();
	const inclusive = new Map<string, number>();
	const parts = { package: 0, isolate: 0, gc: 0, program: 0, rest: 0 };
	let busy = 0;
	let idle = 0;
	let time = profile.startTime;
	profile.samples.forEach((sample, index) => {
		const delta = profile.timeDeltas[index] ?? 0;
		time += delta;
		if (time < window.fromMicros || time > window.toMicros) return;
		const leaf = byId.get(sample);
		if (!leaf) return;
		if (leaf.callFrame.functionName === '(idle)') {
			idle += delta;
			return;
		}
		busy += delta;
		self.set(label(leaf), (self.get(label(leaf)) ?? 0) + delta);
		const stack: ProfileNode[] = [];
		for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) stack.push(byId.get(id) as ProfileNode);
		const seen = new Set<string>();
		for (const entry of stack) {
			const name = label(entry);
			if (seen.has(name) || IDLE.has(entry.callFrame.functionName)) continue;
			seen.add(name);
			inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
		}
		// Labels start with the path under the last node_modules/: this package's is its installed copy in n8n's user folder.
		const files = stack.map((entry) => label(entry).replace(/^\S+ /, ''));
		if (files.some((file) => file.startsWith(PACKAGE_NAME + '/'))) parts.package += delta;
		else if (leaf.callFrame.functionName === '(garbage collector)') parts.gc += delta;
		// Native work V8 attributes to no JS function; with the inspector's profiler (n8n 1.x here) idle time too.
		else if (leaf.callFrame.functionName === '(program)') parts.program += delta;
		else if (files.some((file) => /^(isolated-vm|@n8n\/expression-runtime)\//.test(file))) parts.isolate += delta;
		else parts.rest += delta;
	});
	const perDelivery = (micros: number) => `${(micros / 1000 / window.deliveries).toFixed(2)} ms`;
	const top = (map: Map<string, number>, rows: number) =>
		[...map.entries()]
			.sort((a, b) => b[1] - a[1])
			.slice(0, rows)
			.map(([name, micros]) => `${perDelivery(micros).padStart(10)} ${((micros / busy) * 100).toFixed(1).padStart(5)}%  ${name}`)
			.join('\n');
	process.stdout.write(
		`\nmeasured window: ${window.deliveries} deliveries, ${((window.toMicros - window.fromMicros) / 1e6).toFixed(1)} s (10 s of it after the last answer), n8n busy ${(busy / 1000).toFixed(0)} ms of CPU, idle ${(idle / 1000).toFixed(0)} ms\n` +
			`per delivery: ${perDelivery(busy)} of n8n's CPU; this package's code (any frame of it on the stack) ${perDelivery(parts.package)}, n8n's expression isolates ${perDelivery(parts.isolate)}, garbage collection ${perDelivery(parts.gc)}, the rest of n8n ${perDelivery(parts.rest)}, (program) ${perDelivery(parts.program)}\n` +
			`(a sample counts the wall time since the one before: on a loaded machine the figures include time n8n waited for a core; (program) includes idle time when the profile came from the inspector, as on n8n 1.x)\n` +
			`\nper delivery, by self time:\n${top(self, 25)}\n\nper delivery, by inclusive time:\n${top(inclusive, 45)}\n`,
	);
	const own = new Map([...inclusive].filter(([name]) => name.replace(/^\S+ /, '').startsWith(PACKAGE_NAME + '/')));
	process.stdout.write(`\nthis package's frames, per delivery, by inclusive time:\n${top(own, 25)}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 1;
});
