/**
 * Routine changes lose nothing (issue 61), in real n8n, counted at the simulator, which outlives n8n as the
 * service does. One company holds two keys (DEMO.apiKey, DEMO.rotatedApiKey), a second company a third.
 * Every trigger here registers its modules with Timeout 1 s and Retry Limit 0, so a replaced module's retry
 * window is (0 + 1) × 1 s + 60 s: the cases after that window share one wait. Each case logs its counts
 * (modules per company, answers, events run, error executions) and the trigger's log lines.
 *
 * Written against the code before issue 61, the cases marked so in their titles failed there (docs/trigger.md,
 * "After you change something", gives the rule they check).
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { DOWNSTREAM, allExecutions, untilServed } from './harness/deliveries.ts';
import { type HeldModule, deliverThrough, editCredential, eventThrough, heldModules, logLineWith, perCompany, runsOf, triggerLogLines } from './harness/modules.ts';
import { createUserFolder, startN8n, type N8nInstance } from './harness/n8n.ts';
import { freePort, log, sleep } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { CREDENTIAL_TYPE, TRIGGER_NODE_NAME, campaignCallingTriggerNode, setNode, triggerWorkflow, type CredentialRef, type WorkflowJson, type WorkflowNode } from './harness/workflows.ts';

/** n8n's start on a loaded machine can take minutes. */
const READY_TIMEOUT_MS = 300_000;
/** The retry window of a module registered with SHORT_WINDOW: (Retry Limit 0 + 1) × Timeout 1 s, and a minute. */
const WINDOW_MS = 61_000;
const SHORT_WINDOW = { timeout: 1, retryLimit: 0, repeatKey: 'data.call_id' };

const quoted = (lines: string[]) => (lines.length === 0 ? '(none)' : lines.map((line) => `\n    ${line.trim()}`).join(''));

describeEachVersion('routine changes to a published trigger, in n8n %s (issue 61)', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let userFolder: string;
	/** When the newest replacing module was registered: the cases after the window wait from here. */
	let lastReplacement = 0;

	beforeAll(async () => {
		simulator = await startSimulator();
		userFolder = createUserFolder(`routine-changes-${version}`);
		n8n = await startN8n({ version, userFolder, port: await freePort(), withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS });
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (userFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	});

	const productionUrl = (trigger: WorkflowNode) => `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
	const testUrl = (trigger: WorkflowNode) => `${n8n.webhookUrl}webhook-test/${trigger.webhookId}/webhook`;

	async function credentialFor(label: string, apiKey: string, baseUrl = `${simulator.url}/`): Promise<CredentialRef> {
		const created = await n8n.api.createCredential(`${label} ${version}`, CREDENTIAL_TYPE, { baseUrl, apiKey });
		return { id: created.id, name: created.name };
	}

	/** A published workflow: the trigger (call.ended, SHORT_WINDOW and `options`) then a Set node. */
	async function published(label: string, credential: CredentialRef, options: Record<string, unknown> = {}) {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, { ...SHORT_WINDOW, ...options });
		const definition = triggerWorkflow(`${label} ${version}`, trigger, [setNode(DOWNSTREAM, { ran: true })]);
		const { id } = await n8n.api.createWorkflow(definition);
		await n8n.api.activate(id);
		return { id, trigger, definition, url: productionUrl(trigger) };
	}

	/** Unpublish, then publish (1.x: deactivate, then activate): what the docs ask after a change n8n does not republish for. */
	async function publishAgain(workflowId: string) {
		await n8n.api.deactivate(workflowId);
		await n8n.api.activate(workflowId);
	}

	/** Saves `changes` into the trigger's options, then publishes again. */
	async function withOptions(workflow: { id: string; definition: WorkflowJson; trigger: WorkflowNode }, options: Record<string, unknown>) {
		const changed = {
			...workflow.definition,
			nodes: workflow.definition.nodes.map((node) => (node.name === workflow.trigger.name ? { ...node, parameters: { ...node.parameters, options: { ...SHORT_WINDOW, ...options } } } : node)),
		};
		await n8n.api.deactivate(workflow.id);
		expect((await n8n.api.publicApi('PUT', `/workflows/${workflow.id}`, changed)).status).toBe(200);
		await n8n.api.activate(workflow.id);
	}

	/** One event through a module (its own marker and call), and the HTTP status it got. */
	async function statusThrough(module: HeldModule, label: string): Promise<{ marker: string; status: number }> {
		const marker = `${label}-${randomUUID()}`;
		return { marker, status: (await deliverThrough(module, eventThrough(module, marker))).status };
	}

	/** How often each marker ran; none when every module given refuses (the code before issue 61 did), so the counts still log. */
	async function runsThrough(workflowId: string, modules: HeldModule[], markers: string[]) {
		try {
			return await runsOf(n8n, workflowId, modules, markers);
		} catch (error) {
			if (!String(error).includes('No module accepted a settle delivery')) throw error;
			return { executions: Number.NaN, runs: Object.fromEntries(markers.map((marker) => [marker, 0])) };
		}
	}

	const errorExecutions = async (workflowId: string) => (await allExecutions(n8n, workflowId)).filter((execution) => execution.status === 'error').length;
	const noteReplacement = () => {
		lastReplacement = Date.now();
	};

	// (1) The key rotated at the same company, not published.
	it('(1) the key rotated at the same company, not published: the module\'s deliveries are answered 200 and run (before issue 61: 401, lost), and the log says once, at error level, to publish again', async () => {
		const credential = await credentialFor('rotated, not published', DEMO.apiKey);
		const rotated = await published('key rotated, not published', credential);
		const since = n8n.logs().length;
		await editCredential(n8n, credential, { baseUrl: `${simulator.url}/`, apiKey: DEMO.rotatedApiKey });
		// The publish's read of the credential serves deliveries for 5 s: the edit shows in the log after that.
		await sleep(5_000);
		const [module] = heldModules(simulator, rotated.url);
		const deliveries = [await statusThrough(module, 'rotated-1'), await statusThrough(module, 'rotated-2')];
		const { executions, runs } = await runsThrough(rotated.id, [module], deliveries.map(({ marker }) => marker));
		const warning = await logLineWith(n8n, since, `webhook module ${module.id} (call.ended) was registered at another account`);
		const observed = { modules: perCompany(heldModules(simulator, rotated.url)), answers: deliveries.map(({ status }) => status), runs: Object.values(runs), warning };
		log(`n8n ${version}, (1) key rotated, not published: ${JSON.stringify(observed)} (executions ${executions}); the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`);
		expect(observed).toEqual({ modules: { A: 1 }, answers: [200, 200], runs: [1, 1], warning: expect.stringContaining('To register at the credential\'s account, publish the workflow again') });
	});

	// (2) The key rotated and published: the old module keeps its window.
	let republished: { id: string; url: string; old: HeldModule; current: HeldModule };
	it('(2) the key rotated and published: a module with the new key; one event through the old and the new module runs once; a retry through the old module inside its window runs (before issue 61: 401, lost)', async () => {
		const credential = await credentialFor('rotated, published', DEMO.apiKey);
		const workflow = await published('key rotated, published', credential);
		await editCredential(n8n, credential, { baseUrl: `${simulator.url}/`, apiKey: DEMO.rotatedApiKey });
		const since = n8n.logs().length;
		await publishAgain(workflow.id);
		noteReplacement();
		const [old, current] = heldModules(simulator, workflow.url);
		republished = { ...workflow, old, current };

		// The service sends one event through both modules, each copy with its own event_id, the same call.
		const both = eventThrough(old, `rotated-both-${randomUUID()}`);
		const throughBoth = [(await deliverThrough(old, both)).status, (await deliverThrough(current, { ...both, event_id: randomUUID() })).status];
		const retry = await statusThrough(old, 'rotated-retry-in-window');
		const markers = [String((both.data as { marker: string }).marker), retry.marker];
		const { executions, runs } = await runsThrough(workflow.id, [current], markers);
		const observed = { modules: perCompany(heldModules(simulator, workflow.url)), throughBoth, runsOfBoth: runs[markers[0]], retryInWindow: retry.status, runsOfRetry: runs[markers[1]] };
		log(`n8n ${version}, (2) key rotated, published: ${JSON.stringify(observed)} (executions ${executions}); the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`);
		expect(observed).toEqual({ modules: { A: 2 }, throughBoth: [200, 200], runsOfBoth: 1, retryInWindow: 200, runsOfRetry: 1 });
	});

	// (3) The credential deleted while published.
	let deleted: { id: string; url: string; module: HeldModule };
	it('(3) the credential deleted while published: deliveries are answered 200 and run, no error execution (before issue 61: 500 and an error execution each)', async () => {
		const credential = await credentialFor('deleted', DEMO.apiKey);
		const workflow = await published('credential deleted', credential);
		const [module] = heldModules(simulator, workflow.url);
		deleted = { ...workflow, module };
		const since = n8n.logs().length;
		await n8n.api.deleteCredential(credential.id);
		const deliveries = [await statusThrough(module, 'deleted-1'), await statusThrough(module, 'deleted-2')];
		const { executions, runs } = await runsThrough(workflow.id, [module], deliveries.map(({ marker }) => marker));
		const observed = { answers: deliveries.map(({ status }) => status), runs: Object.values(runs), errorExecutions: await errorExecutions(workflow.id) };
		log(`n8n ${version}, (3) credential deleted while published: ${JSON.stringify(observed)} (executions ${executions}); the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`);
		expect(observed).toEqual({ answers: [200, 200], runs: [1, 1], errorExecutions: 0 });
	});

	// (4) The Base URL's case changed.
	it("(4) the Base URL's case changed, then published: nothing registered again, the module's deliveries run (before issue 61: a new module, the first refused)", async () => {
		const baseUrl = simulator.url.replace('127.0.0.1', 'localhost');
		const credential = await credentialFor('Base URL case', DEMO.apiKey, `${baseUrl}/`);
		const workflow = await published('Base URL case changed', credential);
		const since = n8n.logs().length;
		await editCredential(n8n, credential, { baseUrl: `${baseUrl.replace('http://localhost', 'HTTP://LocalHost')}/`, apiKey: DEMO.apiKey });
		await publishAgain(workflow.id);
		const modules = heldModules(simulator, workflow.url);
		const delivery = await statusThrough(modules[0], 'base-url-case');
		const { runs } = await runsThrough(workflow.id, [...modules].reverse(), [delivery.marker]);
		const observed = { modules: modules.length, answer: delivery.status, runs: runs[delivery.marker] };
		log(`n8n ${version}, (4) Base URL case changed, published: ${JSON.stringify(observed)}; the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`);
		expect(observed).toEqual({ modules: 1, answer: 200, runs: 1 });
	});

	// (5) Another company, published.
	let switched: { id: string; url: string; old: HeldModule; current: HeldModule };
	it('(5) another company\'s key, published: a module at that company; the old company\'s module runs inside its window', async () => {
		const credential = await credentialFor('company switched', DEMO.apiKey);
		const workflow = await published('company switched', credential);
		await editCredential(n8n, credential, { baseUrl: `${simulator.url}/`, apiKey: DEMO.otherApiKey });
		await publishAgain(workflow.id);
		noteReplacement();
		const [old, current] = heldModules(simulator, workflow.url);
		switched = { ...workflow, old, current };
		const inWindow = await statusThrough(old, 'switched-in-window');
		const { runs } = await runsThrough(workflow.id, [current], [inWindow.marker]);
		const observed = { modules: perCompany(heldModules(simulator, workflow.url)), inWindow: inWindow.status, runs: runs[inWindow.marker] };
		log(`n8n ${version}, (5) company switched, published: ${JSON.stringify(observed)}`);
		expect(observed).toEqual({ modules: { A: 1, B: 1 }, inWindow: 200, runs: 1 });
	});

	// (6) Timeout changed and published, then the key rotated without publishing.
	let timeoutThenKey: { id: string; url: string; older: HeldModule; newer: HeldModule };
	it('(6) Timeout changed and published, then the key rotated without publishing: both modules run inside the older one\'s window', async () => {
		const credential = await credentialFor('timeout then key', DEMO.apiKey);
		const workflow = await published('Timeout changed, then key rotated', credential);
		await withOptions(workflow, { timeout: 2 });
		noteReplacement();
		await editCredential(n8n, credential, { baseUrl: `${simulator.url}/`, apiKey: DEMO.rotatedApiKey });
		const [older, newer] = heldModules(simulator, workflow.url);
		timeoutThenKey = { ...workflow, older, newer };
		const answers = [(await statusThrough(older, 'timeout-older')).status, (await statusThrough(newer, 'timeout-newer')).status];
		log(`n8n ${version}, (6) Timeout changed and published, then the key rotated: modules ${JSON.stringify(heldModules(simulator, workflow.url).map((module) => module.timeout))}, answers inside the window ${JSON.stringify(answers)}`);
		expect(answers).toEqual([200, 200]);
	});

	// (7) A listen, a publish, then a listen again after the window.
	let listened: { id: string; trigger: WorkflowNode; module: HeldModule };
	/** "Listen for test event", as the editor starts it; resolves once n8n waits for the test delivery. */
	async function listen(workflowId: string) {
		const saved = await n8n.api.rest<{ data: Record<string, unknown> }>('GET', `/workflows/${workflowId}`);
		const answer = await n8n.api.rest<{ data?: { waitingForWebhook?: boolean } }>('POST', `/workflows/${workflowId}/run`, {
			workflowData: saved.body.data,
			triggerToStartFrom: { name: TRIGGER_NODE_NAME },
		});
		expect([answer.status, answer.body.data?.waitingForWebhook]).toEqual([200, true]);
	}
	it('(7) "Listen for test event", then the workflow published: the listen\'s module received, and the publish registered its own', async () => {
		const credential = await credentialFor('listen', DEMO.apiKey);
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, SHORT_WINDOW);
		const created = await n8n.api.rest<{ data: { id: string } }>('POST', '/workflows', { active: false, ...triggerWorkflow(`listen, publish, listen ${version}`, trigger) });
		const id = created.body.data.id;
		await listen(id);
		const [module] = heldModules(simulator, testUrl(trigger));
		listened = { id, trigger, module };
		const first = (await deliverThrough(module, eventThrough(module, `listen-1-${randomUUID()}`))).status;
		await n8n.api.activate(id);
		noteReplacement();
		const observed = { first, testModules: heldModules(simulator, testUrl(trigger)).length, productionModules: heldModules(simulator, productionUrl(trigger)).length };
		log(`n8n ${version}, (7) listen, then publish: ${JSON.stringify(observed)}`);
		expect(observed).toEqual({ first: 200, testModules: 1, productionModules: 1 });
	});

	it("after the replaced modules' window: (2) the rotated key's old module is refused 401 and the new one runs; (5) the old company's module is refused; (6) only the newer module runs; (7) a listen again reuses its module and receives (before issue 61: (6) refused both, losing every event)", async () => {
		await sleep(Math.max(0, lastReplacement + WINDOW_MS + 2_000 - Date.now()));
		const since = n8n.logs().length;
		const rotatedKey = [(await statusThrough(republished.old, 'rotated-after')).status, (await statusThrough(republished.current, 'rotated-after')).status];
		const company = [(await statusThrough(switched.old, 'switched-after')).status, (await statusThrough(switched.current, 'switched-after')).status];
		const newerOnly = [await statusThrough(timeoutThenKey.older, 'older-after'), await statusThrough(timeoutThenKey.newer, 'newer-after')];
		const { runs } = await runsThrough(timeoutThenKey.id, [timeoutThenKey.newer], newerOnly.map(({ marker }) => marker));
		await listen(listened.id);
		const listenAgain = {
			modules: heldModules(simulator, testUrl(listened.trigger)).length,
			answer: (await deliverThrough(listened.module, eventThrough(listened.module, `listen-2-${randomUUID()}`))).status,
		};
		const observed = { rotatedKey, company, timeoutThenKey: newerOnly.map(({ status }) => status), timeoutThenKeyRuns: Object.values(runs), listenAgain };
		log(`n8n ${version}, after the window: ${JSON.stringify(observed)}; the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`);
		expect(observed).toEqual({ rotatedKey: [401, 200], company: [401, 200], timeoutThenKey: [401, 200], timeoutThenKeyRuns: [0, 1], listenAgain: { modules: 1, answer: 200 } });
	});

	it('(3) after n8n restarts with the credential still deleted: the workflow\'s webhook is served and its module\'s deliveries run (before issue 61 on 1.x: checkExists threw, n8n left the webhook unregistered)', async () => {
		const since = n8n.logs().length;
		const { port } = n8n;
		await n8n.stop();
		n8n = await startN8n({ version, userFolder, port, readyTimeoutMs: READY_TIMEOUT_MS });
		// 1.x activates its active workflows a moment after it answers: the webhook is then served.
		const served = await Promise.race([untilServed(deleted.url).then(() => true), sleep(60_000).then(() => false)]);
		const delivery = await statusThrough(deleted.module, 'deleted-after-restart');
		const runs = delivery.status === 200 ? (await runsThrough(deleted.id, [deleted.module], [delivery.marker])).runs[delivery.marker] : 0;
		const observed = { served, answer: delivery.status, runs, errorExecutions: await errorExecutions(deleted.id) };
		log(`n8n ${version}, (3) restarted with the credential deleted: ${JSON.stringify(observed)}; the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`);
		expect(observed).toEqual({ served: true, answer: 200, runs: 1, errorExecutions: 0 });
	});
});
