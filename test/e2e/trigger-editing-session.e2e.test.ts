/**
 * How many webhook modules an editing session leaves at the service, in real n8n: "Listen for test
 * event" three times (each answered by a test delivery), n8n restarted on the same database, one more
 * listen, then activation; counted at the simulator, which outlives n8n as the service would. And the
 * way that registers nothing: the docs' sample event pinned as the trigger's output.
 *
 * E2E_PACKAGE_ROOT=<another checkout, built> measures that checkout's trigger in the same session.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { SECRET_HEADER, sendDelivery, untilServed } from './harness/deliveries.ts';
import { createUserFolder, nodeOutput, simulatorCredential, startN8n, type N8nInstance } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, triggerWorkflow, type CredentialRef, type WorkflowNode } from './harness/workflows.ts';

const EVENTS = ['call.ended', 'call.failed'];
/** n8n's start on a loaded machine can take minutes. */
const READY_TIMEOUT_MS = 300_000;

interface RunAnswer {
	data?: { executionId?: string; waitingForWebhook?: boolean };
}

/** The sample event docs/trigger.md gives for pinning, read from the page itself so the two cannot drift apart. */
function documentedSample(): Record<string, unknown> {
	const page = readFileSync(join(process.cwd(), 'docs', 'trigger.md'), 'utf8');
	const section = page.slice(page.indexOf('## Seeing an item without registering anything'));
	const sample = /```json\n([\s\S]*?)\n```/.exec(section);
	if (!sample) throw new Error('docs/trigger.md has no JSON sample under "Seeing an item without registering anything"');
	return JSON.parse(sample[1]) as Record<string, unknown>;
}

describeEachVersion('an editing session with the trigger in n8n %s: the modules it leaves at the service', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let userFolder: string;
	let credential: CredentialRef;

	beforeAll(async () => {
		simulator = await startSimulator();
		userFolder = createUserFolder(`editing-session-${version}`);
		n8n = await startN8n({ version, userFolder, withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS });
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (userFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	});

	/** Stops n8n and starts it again on the same user folder (database, installed package) and port. */
	async function restart(): Promise<void> {
		const { port } = n8n;
		await n8n.stop();
		n8n = await startN8n({ version, userFolder, port, readyTimeoutMs: READY_TIMEOUT_MS });
	}

	/** Saved through the editor's REST API (the editor sends `active`; 1.x's column has no default). */
	async function savedWorkflow(name: string, trigger: WorkflowNode, pinData?: Record<string, Array<{ json: Record<string, unknown> }>>) {
		const body = { active: false, ...triggerWorkflow(name, trigger), ...(pinData ? { pinData } : {}) };
		const created = await n8n.api.rest<{ data: { id: string } }>('POST', '/workflows', body);
		if (created.status !== 200) throw new Error(`POST /rest/workflows: HTTP ${created.status} ${JSON.stringify(created.body).slice(0, 500)}`);
		return created.body.data.id;
	}

	/** "Execute step" on the trigger, as the editor sends it (1.x reads workflowData from the request, 2.x from its database). */
	async function runFromTrigger(workflowId: string): Promise<RunAnswer['data']> {
		const saved = await n8n.api.rest<{ data: Record<string, unknown> }>('GET', `/workflows/${workflowId}`);
		const answer = await n8n.api.rest<RunAnswer>('POST', `/workflows/${workflowId}/run`, {
			workflowData: saved.body.data,
			triggerToStartFrom: { name: TRIGGER_NODE_NAME },
		});
		expect(answer.status).toBe(200);
		return answer.body.data;
	}

	const modulesFor = (url: string) => [...simulator.state.webhookModules.values()].map(({ record }) => record).filter((record) => record.settings.url === url);

	/** One "Listen for test event", answered by a test delivery signed with the newest test module's secret. */
	async function listenOnce(workflowId: string, testUrl: string, executionsBefore: number): Promise<void> {
		expect(await runFromTrigger(workflowId)).toEqual({ waitingForWebhook: true });
		const newest = modulesFor(testUrl).at(-1);
		if (!newest) throw new Error(`No module at the simulator for ${testUrl}`);
		const marker = `listen-${executionsBefore + 1}`;
		const answer = await sendDelivery(testUrl, {
			headers: [['content-type', 'application/json'], [SECRET_HEADER, String(newest.settings.headers[SECRET_HEADER])]],
			body: JSON.stringify({ event_type: 'call.ended', event_id: randomUUID(), data: { contact_id: DEMO.completedContactId, marker } }),
		});
		expect([answer.status, JSON.parse(answer.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 1 }]);
		const executions = await n8n.api.waitForExecutions(workflowId, executionsBefore + 1, 60_000);
		expect(nodeOutput(executions.at(-1)!, TRIGGER_NODE_NAME).map((item) => (item.data as { marker?: string }).marker)).toEqual([marker]);
	}

	it('listen three times, restart n8n, listen again, activate: one test module per event per n8n process, one production module per event; after a restart with the workflow active, a listen registers nothing', async () => {
		const trigger = campaignCallingTriggerNode(EVENTS, credential);
		const workflowId = await savedWorkflow('editing session', trigger);
		const testUrl = `${n8n.webhookUrl}webhook-test/${trigger.webhookId}/webhook`;
		const productionUrl = `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
		simulator.reset();
		const counted = (stage: string) => {
			const counts = { test: modulesFor(testUrl).length, production: modulesFor(productionUrl).length, all: simulator.state.webhookModules.size };
			log(`n8n ${version} editing session (${EVENTS.length} events, package ${process.env.E2E_PACKAGE_ROOT ?? process.cwd()}), ${stage}: ${JSON.stringify(counts)}`);
			return counts;
		};

		for (let listen = 0; listen < 3; listen += 1) await listenOnce(workflowId, testUrl, listen);
		const afterThreeListens = counted('3 listens');
		await restart();
		await listenOnce(workflowId, testUrl, 3);
		const afterRestart = counted('restart, 4th listen');
		await n8n.api.activate(workflowId);
		const afterActivation = counted('activation');
		// The session as a user goes on: n8n restarts with the workflow active (it reactivates it), and a listen follows.
		await restart();
		await untilServed(productionUrl);
		await listenOnce(workflowId, testUrl, 4);
		const afterActiveRestart = counted('restart with the workflow active, 5th listen');

		// Within one n8n process the test modules are reused across listens. n8n gives a listen no stored
		// static data, so the first listen after a restart registers each event again, unless an activation
		// stored the test modules' records and n8n's reactivation at start read them back.
		expect(afterThreeListens).toEqual({ test: EVENTS.length, production: 0, all: EVENTS.length });
		expect(afterRestart).toEqual({ test: 2 * EVENTS.length, production: 0, all: 2 * EVENTS.length });
		expect(afterActivation).toEqual({ test: 2 * EVENTS.length, production: EVENTS.length, all: 3 * EVENTS.length });
		expect(afterActiveRestart).toEqual(afterActivation);
		await n8n.api.deleteWorkflow(workflowId);
	});

	it("the same session with the docs' sample event pinned instead of listening: each run gives the item at once, and only activation registers modules", async () => {
		const trigger = campaignCallingTriggerNode(EVENTS, credential);
		const sample = documentedSample();
		const workflowId = await savedWorkflow('editing session: sample pinned', trigger, { [TRIGGER_NODE_NAME]: [{ json: sample }] });
		const productionUrl = `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
		simulator.reset();

		const runWithSample = async (run: number) => {
			const started = await runFromTrigger(workflowId);
			expect(started?.waitingForWebhook).toBeUndefined();
			const executions = await n8n.api.waitForExecutions(workflowId, run, 60_000);
			expect(nodeOutput(executions.at(-1)!, TRIGGER_NODE_NAME)).toEqual([sample]);
		};
		for (let run = 1; run <= 3; run += 1) await runWithSample(run);
		await restart();
		await runWithSample(4);
		expect(simulator.requests.map((request) => `${request.method} ${request.path}`)).toEqual([]);

		await n8n.api.activate(workflowId);
		log(`n8n ${version} editing session with the sample pinned: ${simulator.state.webhookModules.size} modules in all`);
		expect(modulesFor(productionUrl).map((record) => record.event_type)).toEqual(EVENTS);
		expect(simulator.state.webhookModules.size).toBe(EVENTS.length);
		await n8n.api.deleteWorkflow(workflowId);
	});
});
