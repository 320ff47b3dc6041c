/**
 * The trigger in the editor's runs, in real n8n, each started as the editor starts it
 * (POST /rest/workflows/:id/run with triggerToStartFrom):
 * - with pinned data on the trigger: n8n puts the pinned items out in place of running the node;
 * - the trigger run again on its last test event's output (triggerToStartFrom.data): execute() gets
 *   items no delivery brought, so there is nothing to answer;
 * - an event delivered to the production URL, then sent again to the test URL while n8n listens for a
 *   test event (docs/trigger.md: test deliveries are neither checked for repeats nor recorded).
 */
import { randomUUID } from 'node:crypto';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { SECRET_HEADER, registeredSecret, sendDelivery, triggerUrl, type DeliveryAnswer } from './harness/deliveries.ts';
import { type Execution, type N8nInstance, executionError, nodeOutput, simulatorCredential } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, setNode, triggerWorkflow, type CredentialRef, type WorkflowNode } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const DOWNSTREAM = 'Downstream';

interface RunAnswer {
	data?: { executionId?: string; waitingForWebhook?: boolean };
}

const event = (marker: string) => ({ event_type: 'call.ended', event_id: randomUUID(), data: { contact_id: DEMO.completedContactId, marker } });

describeEachVersion("the trigger in the editor's runs, n8n %s", (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let credential: CredentialRef;

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await sharedN8n(version);
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		await simulator?.close();
	});

	/** The trigger then a Set node that reads each item's marker, saved through the editor's REST API (with pinned data, if any). */
	async function savedWorkflow(name: string, trigger: WorkflowNode, pinData?: Record<string, Array<{ json: Record<string, unknown> }>>) {
		const downstream = setNode(DOWNSTREAM, { marker: '={{ $json.data.marker }}' });
		// The editor sends `active` with a new workflow; 1.x's database column has no default.
		const body = { active: false, ...triggerWorkflow(name, trigger, [downstream]), ...(pinData ? { pinData } : {}) };
		const created = await n8n.api.rest<{ data: { id: string } }>('POST', '/workflows', body);
		if (created.status !== 200) throw new Error(`POST /rest/workflows: HTTP ${created.status} ${JSON.stringify(created.body).slice(0, 500)}`);
		return created.body.data.id;
	}

	/**
	 * "Execute workflow" from the trigger, as the editor sends it (1.x reads workflowData from the request,
	 * 2.x from its database). With `lastRun`, the trigger runs again on that run's output instead of
	 * waiting for an event (the editor's triggerToStartFrom.data).
	 */
	async function runFromTrigger(workflowId: string, lastRun?: unknown): Promise<RunAnswer['data']> {
		const saved = await n8n.api.rest<{ data: Record<string, unknown> }>('GET', `/workflows/${workflowId}`);
		const answer = await n8n.api.rest<RunAnswer>('POST', `/workflows/${workflowId}/run`, {
			workflowData: saved.body.data,
			triggerToStartFrom: { name: TRIGGER_NODE_NAME, ...(lastRun === undefined ? {} : { data: lastRun }) },
		});
		expect(answer.status).toBe(200);
		return answer.body.data;
	}

	const finished = async (workflowId: string, count: number) => await n8n.api.waitForExecutions(workflowId, count, 60_000);
	const downstreamMarkers = (execution: Execution) => nodeOutput(execution, DOWNSTREAM).map((json) => json.marker);
	const deliver = async (url: string, secret: string, body: unknown): Promise<DeliveryAnswer> =>
		await sendDelivery(url, { headers: [['content-type', 'application/json'], [SECRET_HEADER, secret]], body: JSON.stringify(body) });
	const modulesFor = (url: string) => [...simulator.state.webhookModules.values()].filter(({ record }) => record.settings.url === url);

	it('a manual run of a workflow whose trigger has pinned data starts at once (no test event awaited), passes the pinned items on and registers nothing at the service', async () => {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: true, repeatKey: 'event_id' });
		const pinned = [event('pinned-1'), event('pinned-2')];
		const workflowId = await savedWorkflow('manual run: pinned data', trigger, { [TRIGGER_NODE_NAME]: pinned.map((json) => ({ json })) });
		simulator.reset();

		const started = await runFromTrigger(workflowId);
		expect(started?.waitingForWebhook).toBeUndefined();
		expect(started?.executionId).toEqual(expect.any(String));

		const [execution] = await finished(workflowId, 1);
		expect([execution.mode, execution.status, executionError(execution)]).toEqual(['manual', 'success', undefined]);
		expect(nodeOutput(execution, TRIGGER_NODE_NAME)).toEqual(pinned);
		expect(downstreamMarkers(execution)).toEqual(['pinned-1', 'pinned-2']);
		// No test webhook was needed: nothing registered at the service, nothing listening at the test URL.
		expect(simulator.requests.map((request) => `${request.method} ${request.path}`)).toEqual([]);
		await n8n.api.deleteWorkflow(workflowId);
	});

	it("a manual run that runs the trigger again on its last test event's output passes those items on, with no delivery to answer", async () => {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: true, repeatKey: 'event_id' });
		const workflowId = await savedWorkflow('manual run: the trigger again on its last output', trigger);
		expect(await runFromTrigger(workflowId)).toEqual({ waitingForWebhook: true });
		const testUrl = `${n8n.webhookUrl}webhook-test/${trigger.webhookId}/webhook`;
		const tested = event('tested');
		const test = await deliver(testUrl, registeredSecret(simulator, testUrl), tested);
		expect([test.status, JSON.parse(test.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 1 }]);
		const [testRun] = await finished(workflowId, 1);
		const lastRun = testRun.data?.resultData.runData[TRIGGER_NODE_NAME]?.[0];
		expect(nodeOutput(testRun, TRIGGER_NODE_NAME)).toEqual([tested]);

		// The trigger's execute() now gets items that no delivery brought: nothing waits for an answer.
		const rerun = await runFromTrigger(workflowId, lastRun);
		expect(rerun?.executionId).toEqual(expect.any(String));
		const [, secondRun] = await finished(workflowId, 2);
		expect([secondRun.mode, secondRun.status, executionError(secondRun)]).toEqual(['manual', 'success', undefined]);
		expect(nodeOutput(secondRun, TRIGGER_NODE_NAME)).toEqual([tested]);
		expect(downstreamMarkers(secondRun)).toEqual(['tested']);
		await n8n.api.deleteWorkflow(workflowId);
	});

	it('a production delivery, then the same event on the test URL ("Listen for test event"): the test run gets it and is answered, the production run and its repeat memory are unchanged', async () => {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: true, repeatKey: 'event_id' });
		const workflowId = await savedWorkflow('production, then test URL', trigger);
		await n8n.api.activate(workflowId);
		const productionUrl = triggerUrl(n8n, trigger);
		const productionSecret = registeredSecret(simulator, productionUrl);
		const delivered = event('delivered-twice');

		const production = await deliver(productionUrl, productionSecret, delivered);
		expect([production.status, JSON.parse(production.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }]);
		const [productionRun] = await finished(workflowId, 1);
		expect([productionRun.mode, productionRun.status, downstreamMarkers(productionRun)]).toEqual(['webhook', 'success', ['delivered-twice']]);

		// "Listen for test event": n8n waits for a delivery to the test URL, for which the trigger registers its own modules.
		expect(await runFromTrigger(workflowId)).toEqual({ waitingForWebhook: true });
		const testUrl = `${n8n.webhookUrl}webhook-test/${trigger.webhookId}/webhook`;
		expect(modulesFor(testUrl).map(({ record }) => record.event_type)).toEqual(['call.ended']);
		const testSecret = registeredSecret(simulator, testUrl);
		expect(testSecret).not.toBe(productionSecret);

		// A test delivery is not checked against the events production recorded: the same event is accepted, not a repeat.
		const test = await deliver(testUrl, testSecret, delivered);
		expect([test.status, JSON.parse(test.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 1 }]);
		const [, testRun] = await finished(workflowId, 2);
		expect([testRun.mode, testRun.status, executionError(testRun)]).toEqual(['manual', 'success', undefined]);
		expect(nodeOutput(testRun, TRIGGER_NODE_NAME)).toEqual([delivered]);
		expect(downstreamMarkers(testRun)).toEqual(['delivered-twice']);

		// Production is as before: its run unchanged, the event still known there as a repeat, starting nothing.
		const again = await deliver(productionUrl, productionSecret, delivered);
		expect([again.status, JSON.parse(again.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
		const all = await finished(workflowId, 2);
		expect(all.map((execution) => [execution.id, execution.mode])).toEqual([
			[productionRun.id, 'webhook'],
			[testRun.id, 'manual'],
		]);
		expect(downstreamMarkers(all[0])).toEqual(['delivered-twice']);
		await n8n.api.deleteWorkflow(workflowId);
	});
});
