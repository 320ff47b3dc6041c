/**
 * Who answers a delivery. The trigger declares responseMode 'responseNode': n8n then leaves the
 * answer to the execution (execute()'s sendResponse), so the sender gets its 200 only once the
 * execution exists. With 'onReceived', n8n would answer as soon as it created the execution, and on
 * 1.x before it had saved it. test/helpers/triggerContext.ts answers as n8n does for the declared
 * mode, which the last case here checks on a copy of the node switched to 'onReceived'.
 *
 * And execute() on items no delivery brought: a manual run that runs the trigger again on its last
 * output (the editor's triggerToStartFrom.data; proven in real n8n by test/e2e/trigger-manual.e2e.test.ts).
 * Nothing waits for an answer, so the items pass on and no answer is sent.
 */
import { SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { CampaignCallingTrigger } from '../../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness, moduleSecret, restartedTrigger } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

const event = { event_type: 'call.ended', data: { contact_id: DEMO.completedContactId } };

async function deliverOnce(nodeType = new CampaignCallingTrigger()) {
	const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, { baseUrl: simulator.url, apiKey: DEMO.apiKey }, undefined, {
		workflowId: `response-mode-${nodeType.description.webhooks?.[0]?.responseMode}`,
		staticData: {},
		nodeType,
	});
	await trigger.activate();
	return await trigger.deliver({ headers: { [SECRET_HEADER]: moduleSecret(simulator, trigger.webhookUrl) }, body: event });
}

describe('the answer to a delivery', () => {
	it("is the execution's: the webhook declares responseMode 'responseNode', and the acknowledgement comes from execute()", async () => {
		expect(new CampaignCallingTrigger().description.webhooks?.map((webhook) => webhook.responseMode)).toEqual(['responseNode']);
		const outcome = await deliverOnce();
		expect(outcome.result.webhookResponse).toBeUndefined();
		expect([outcome.statusCode, outcome.json, outcome.executed]).toEqual([200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }, true]);
	});

	it("goes out only once n8n's store holds the event (Ignore Repeats on): the keys are recorded first, then the execution answers", async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: { ignoreRepeats: true } }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
		await trigger.activate();
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: moduleSecret(simulator, trigger.webhookUrl) }, body: event });
		expect(outcome.statusCode).toBe(200);
		expect(trigger.events).toEqual(['keys recorded', 'execution answered 200']);
	});

	it("would be n8n's own 'Workflow was started' with 'onReceived' (the harness follows the declared mode)", async () => {
		const switched = new CampaignCallingTrigger();
		switched.description = {
			...switched.description,
			webhooks: switched.description.webhooks?.map((webhook) => ({ ...webhook, responseMode: 'onReceived' })),
		};
		const outcome = await deliverOnce(switched);
		expect([outcome.statusCode, outcome.json, outcome.executed]).toEqual([200, { message: 'Workflow was started' }, true]);
	});
});

describe('the trigger run on items without a delivery', () => {
	it.each([
		['Ignore Repeats off', { ignoreRepeats: false }],
		['Ignore Repeats on', { ignoreRepeats: true, repeatKey: 'event_id' }],
	])('passes them on, paired, and answers nothing (%s)', async (_label, options) => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
		const items = [{ json: { event_type: 'call.ended', event_id: 'e-1' } }, { json: { event_type: 'call.ended', event_id: 'e-2' } }];
		const { answer, output } = await trigger.execute(items, 'manual');
		expect(output).toEqual([
			{ json: items[0].json, pairedItem: { item: 0 } },
			{ json: items[1].json, pairedItem: { item: 1 } },
		]);
		expect(answer).toEqual({});
	});
});

describe('Include Headers', () => {
	async function deliverWithHeaders(body: unknown) {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: { includeHeaders: true, ignoreRepeats: false } }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
		await trigger.activate();
		const secret = moduleSecret(simulator, trigger.webhookUrl);
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret, 'x-request-id': 'r-1' }, body });
		return { outcome, secret, items: outcome.output?.map((item) => item.json) ?? [] };
	}

	it("never replaces the event's own headers field: that event keeps it, and its item carries no delivery headers", async () => {
		const own = { event_type: 'call.ended', headers: { from: '+14155550123', sip: ['a', 'b'] } };
		const plain = { event_type: 'call.ended', data: { call_id: 'c-1' } };
		const { outcome, secret, items } = await deliverWithHeaders([own, plain]);
		expect(outcome.statusCode).toBe(200);
		expect(items[0]).toEqual(own);
		// The event without one gets the delivery's headers there, without the secret.
		expect(items[1]).toMatchObject({ ...plain, headers: { 'x-request-id': 'r-1' } });
		expect(JSON.stringify(items)).not.toContain(secret);
	});

	it('keeps a headers field the event has even when it is null', async () => {
		const own = { event_type: 'call.ended', headers: null };
		const { items } = await deliverWithHeaders(own);
		expect(items).toEqual([own]);
	});
});

// Issue 66, point 4: static data is the user's workflow; a record outside the trigger's own limits is ignored.
describe('static data edited or damaged', () => {
	it("gives no 5xx: a record for the current URL dated before any date (-1e17) is ignored, and the module's delivery runs (before: 500)", async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, { baseUrl: simulator.url, apiKey: DEMO.apiKey }, 'http://127.0.0.1:5678/webhook', {
			workflowId: 'damaged-static-data',
			staticData: {},
			nodeType: new CampaignCallingTrigger(),
		});
		await trigger.activate();
		const secret = moduleSecret(simulator, trigger.webhookUrl);
		// n8n's URL changed since; the damaged record claims a module for the new URL, registered "long ago".
		const saved = trigger.savedStaticData() as { global: Record<string, { modules: Record<string, Record<string, unknown>> }> };
		const [storeKey] = Object.keys(saved.global);
		const { modules } = saved.global[storeKey];
		const [record] = Object.values(modules);
		const movedUrl = 'http://127.0.0.1:5679/webhook';
		const damaged = { ...record, url: `${movedUrl}/${trigger.webhookUrl.split('/webhook/')[1]}`, verifier: 'd'.repeat(43), registeredAt: -1e17 };
		// The module itself registered long ago: a module for the current URL would have replaced it for good.
		const registeredLongAgo = { ...record, registeredAt: 1_000 };
		const restarted = restartedTrigger(trigger, {
			webhookBaseUrl: movedUrl,
			staticData: { global: { [storeKey]: { modules: { [record.verifier as string]: registeredLongAgo, [damaged.verifier]: damaged } } } },
		});
		const outcome = await restarted.deliver({ headers: { [SECRET_HEADER]: secret }, body: event });
		expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
	});
});
