/**
 * Issue 66, point 2: no verdict depends on two processes' clocks agreeing. n8n in queue mode across hosts: the main
 * registers the modules (its clock stamps each record), the webhook process judges each delivery. Here the webhook
 * process runs with its Date.now 90 s ahead of, then 90 s behind, the main's (harness/clockOffset.cjs), as on
 * another host. The trigger registers with Timeout 1 s and Retry Limit 0, so a replaced module's window is
 * (0 + 1) × Timeout + 60 s. A change of Timeout, published, replaces the module; the old module then delivers:
 * - webhook process 90 s ahead: a retry right after the publish is inside the window (before issue 66 the webhook
 *   process compared the main's stamp with its own clock and refused it: 401, the event lost);
 * - webhook process 90 s behind: the old module is refused once the window has passed since the webhook process saw
 *   the replacement (before: it ran 90 s past its window).
 * The control in each case: the replacing module's delivery is answered 200 and runs once under the same offset.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { DOWNSTREAM } from './harness/deliveries.ts';
import { type HeldModule, deliverThrough, eventThrough, heldModules, perCompany, runsOf, triggerLogLines } from './harness/modules.ts';
import { log, sleep } from './harness/process.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { CREDENTIAL_TYPE, campaignCallingTriggerNode, setNode, triggerWorkflow, type WorkflowJson, type WorkflowNode } from './harness/workflows.ts';

const READY_TIMEOUT_MS = 300_000;
const OFFSET_MS = 90_000;
const clockOffset = (offsetMs: number) => ({ NODE_OPTIONS: `--require ${join(process.cwd(), 'test', 'e2e', 'harness', 'clockOffset.cjs')}`, E2E_CLOCK_OFFSET_MS: String(offsetMs) });
/** The replaced module's window, from its Timeout: (Retry Limit 0 + 1) × Timeout and a minute. */
const windowMs = (timeoutSeconds: number) => timeoutSeconds * 1000 + 60_000;

describeEachVersion('n8n %s in queue mode, the webhook process\'s clock apart from the main\'s (issue 66, point 2)', (version) => {
	let simulator: Simulator;
	let n8n: QueueN8nInstance;
	let workflow: { id: string; definition: WorkflowJson; trigger: WorkflowNode; url: string };

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await startQueueN8n({ version, readyTimeoutMs: READY_TIMEOUT_MS });
		const credential = await n8n.api.createCredential(`clocks ${version}`, CREDENTIAL_TYPE, { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		const trigger = campaignCallingTriggerNode(['call.ended'], { id: credential.id, name: credential.name }, { timeout: 1, retryLimit: 0, repeatKey: 'data.call_id' });
		const definition = triggerWorkflow(`clocks ${version}`, trigger, [setNode(DOWNSTREAM, { ran: true })]);
		const { id } = await n8n.api.createWorkflow(definition);
		await n8n.api.activate(id);
		workflow = { id, definition, trigger, url: `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook` };
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
	});

	/** Saves Options → Timeout, then publishes again (1.x: deactivate, activate): a new module replaces the current one. */
	async function publishTimeout(timeout: number): Promise<{ replaced: HeldModule; replacing: HeldModule }> {
		const [replaced] = heldModules(simulator, workflow.url).slice(-1);
		const changed = {
			...workflow.definition,
			nodes: workflow.definition.nodes.map((node) => (node.name === workflow.trigger.name ? { ...node, parameters: { ...node.parameters, options: { timeout, retryLimit: 0, repeatKey: 'data.call_id' } } } : node)),
		};
		await n8n.api.deactivate(workflow.id);
		expect((await n8n.api.publicApi('PUT', `/workflows/${workflow.id}`, changed)).status).toBe(200);
		await n8n.api.activate(workflow.id);
		const [replacing] = heldModules(simulator, workflow.url).slice(-1);
		expect(replacing.id).not.toBe(replaced.id);
		return { replaced, replacing };
	}

	async function deliver(module: HeldModule, label: string) {
		const marker = `${label}-${randomUUID()}`;
		return { marker, status: (await deliverThrough(module, eventThrough(module, marker))).status };
	}

	it('90 s ahead: a retry through the replaced module right after the publish is answered 200 and runs once (before: 401, the event lost)', async () => {
		await n8n.restart('webhook', { extraEnv: clockOffset(OFFSET_MS) });
		const since = n8n.logs().length;
		const { replaced, replacing } = await publishTimeout(2);
		const throughReplaced = await deliver(replaced, 'ahead-replaced');
		const throughReplacing = await deliver(replacing, 'ahead-replacing');
		const { executions, runs } = await runsOf(n8n, workflow.id, [replacing], [throughReplaced.marker, throughReplacing.marker]);
		const observed = { modules: perCompany(heldModules(simulator, workflow.url)), answers: [throughReplaced.status, throughReplacing.status], runs: Object.values(runs) };
		log(`n8n ${version} queue mode, webhook process ${OFFSET_MS / 1000} s ahead: ${JSON.stringify(observed)} (executions ${executions}); trigger log lines: ${triggerLogLines(n8n, since).join(' | ') || '(none)'}`);
		expect(observed).toEqual({ modules: { A: 2 }, answers: [200, 200], runs: [1, 1] });
	}, 8 * 60_000);

	it('90 s behind: the replaced module runs inside its window and is refused once the window has passed since the webhook process saw its replacement (before: 90 s longer)', async () => {
		await n8n.restart('webhook', { extraEnv: clockOffset(-OFFSET_MS) });
		const since = n8n.logs().length;
		const { replaced, replacing } = await publishTimeout(3);
		const seen = Date.now();
		const inside = await deliver(replaced, 'behind-inside');
		// Past the window by the webhook process's own clock, and well inside the 90 s the main's stamp would add.
		await sleep(Math.max(0, seen + windowMs(replaced.timeout) + 3_000 - Date.now()));
		const after = await deliver(replaced, 'behind-after');
		const throughReplacing = await deliver(replacing, 'behind-replacing');
		const { executions, runs } = await runsOf(n8n, workflow.id, [replacing], [inside.marker, after.marker, throughReplacing.marker]);
		const observed = { modules: perCompany(heldModules(simulator, workflow.url)), answers: [inside.status, after.status, throughReplacing.status], runs: Object.values(runs) };
		log(`n8n ${version} queue mode, webhook process ${OFFSET_MS / 1000} s behind: ${JSON.stringify(observed)} (executions ${executions}); trigger log lines: ${triggerLogLines(n8n, since).join(' | ') || '(none)'}`);
		expect(observed).toEqual({ modules: { A: 3 }, answers: [200, 401, 200], runs: [1, 0, 1] });
	}, 8 * 60_000);
});
