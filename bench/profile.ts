/**
 * Profiles one benchmark case inside real n8n 2.41.1: starts n8n with V8's CPU profiler, runs the
 * case, stops n8n (which writes the profile) and prints where n8n's main process spent its time,
 * by self time and by inclusive time.
 *
 *   npm run bench:profile -- <case> [count]
 *
 * Cases: fields ({{ $json.x }}), automap (Auto-Map), trim ({{ $json.f.trim() }}), set (Set node, the same .trim()),
 * http (HTTP Request node per item), trigger (deliveries to this trigger), webhook (to n8n's Webhook node).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO, startSimulator } from '../test/simulator/server.ts';
import { simulatorCredential, startN8n } from '../test/e2e/harness/n8n.ts';
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

const CASES = ['fields', 'automap', 'trim', 'set', 'http', 'trigger', 'webhook'] as const;
type Case = (typeof CASES)[number];

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

async function main(): Promise<void> {
	const chosen = process.argv[2] as Case;
	const count = Number(process.argv[3] ?? (chosen === 'trigger' || chosen === 'webhook' ? 500 : 10_000));
	if (!CASES.includes(chosen)) throw new Error(`Name a case: ${CASES.join(', ')}`);

	const profileDir = mkdtempSync(join(tmpdir(), 'campaign-calling-profile-'));
	const simulator = await startSimulator({ recordBodies: false });
	const n8n = await startN8n({
		version: '2.41.1',
		withPackage: true,
		extraEnv: { N8N_PAYLOAD_SIZE_MAX: '64', NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` },
	});
	try {
		const credential = await simulatorCredential(n8n.api, simulator.url, 'profile');
		const started = performance.now();
		if (chosen === 'trigger' || chosen === 'webhook') {
			const trigger = campaignCallingTriggerNode(['call.ended'], credential);
			const webhook = node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: 'profile', responseMode: 'onReceived', options: {} }, { webhookId: 'b0000000-0000-4000-8000-000000000002' });
			const target = await n8n.api.createWorkflow(chosen === 'trigger' ? triggerWorkflow('profile', trigger) : workflow('profile', [webhook], {}));
			await n8n.api.activate(target.id);
			const module = [...simulator.state.webhookModules.values()].map((owned) => owned.record).find((record) => record.event_type === 'call.ended');
			const headers = chosen === 'trigger' ? ((module?.settings.headers ?? {}) as Record<string, string>) : {};
			const url = chosen === 'trigger' ? `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook` : `${n8n.webhookUrl}webhook/profile`;
			let next = 0;
			const send = async () => {
				while (next < count) {
					next++;
					const response = await fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json', ...headers },
						body: JSON.stringify({ event_type: 'call.ended', data: { n: next } }),
					});
					await response.arrayBuffer();
				}
			};
			await Promise.all(Array.from({ length: 16 }, send));
			// Deliveries are answered before their executions run; give those time to finish.
			await new Promise((resolve) => setTimeout(resolve, 10_000));
		} else {
			const nodes: Record<Exclude<Case, 'trigger' | 'webhook'>, WorkflowNode> = {
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
			const target = await n8n.api.createWorkflow(webhookDriven('profile', [splitOutNode('Leads', 'body.leads'), nodes[chosen]]));
			await n8n.api.activate(target.id);
			const leads = Array.from({ length: count }, (_, i) => ({ x: `Lead${i}`, firstname: `Lead${i}`, lastname: 'Doe', phone_number: `+1415${String(i).padStart(7, '0')}`, f: `  Lead${i}  ` }));
			await n8n.api.callWebhook('profile', { leads });
		}
		process.stdout.write(`${chosen} x ${count}: ${Math.round(performance.now() - started)} ms wall\n`);
	} finally {
		await n8n.stop();
		await simulator.close();
	}
	printProfile(largestProfile(profileDir));
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

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 1;
});
