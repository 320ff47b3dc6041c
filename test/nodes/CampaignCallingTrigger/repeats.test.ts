/**
 * Ignore Repeats, through n8n-core's real WebhookContext: which deliveries are repeats, what the key
 * is, what is kept in the node's static data (and how much), and what happens when n8n handles two
 * deliveries at once or restarts.
 */
import type { IDataObject } from 'n8n-workflow';

import type { CampaignCallingTrigger as TriggerType } from '../../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { REMEMBERED_KEYS, readRepeatKeyPath, repeatKeyHash } from '../../../nodes/CampaignCallingTrigger/repeats';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness, WEBHOOK_BASE_URL, moduleSecret, type DeliveryOutcome } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

const credentials = () => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });

async function activeTrigger(options: IDataObject = { ignoreRepeats: true }, events = ['call.started', 'call.ended']) {
	const trigger = new TriggerHarness({ events, options }, credentials());
	await trigger.activate();
	const secret = moduleSecret(simulator, trigger.webhookUrl);
	const send = async (body: unknown, mode?: 'manual') => await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body, mode });
	return { trigger, secret, send };
}

/** With Ignore Repeats the node answers the delivery itself (so n8n saves the keys before the execution starts). */
function answeredByNode(outcome: DeliveryOutcome) {
	expect(outcome.statusCode).toBe(200);
	expect(outcome.result.noWebhookResponse).toBe(true);
	expect(outcome.result.webhookResponse).toBeUndefined();
	return outcome.json;
}

/** The delivered events that started the workflow (undefined: no execution). */
const started = (outcome: DeliveryOutcome) => outcome.result.workflowData?.[0].map((item) => item.json);

const ended = (data: IDataObject, extra: IDataObject = {}) => ({ event_type: 'call.ended', data, ...extra });

describe('Ignore Repeats', () => {
	it('is off by default: the same event twice runs twice, and nothing is stored', async () => {
		const { trigger, send } = await activeTrigger({});
		const body = ended({ call_id: 'c-1' });
		expect(started(await send(body))).toEqual([body]);
		const again = await send(body);
		expect(started(again)).toEqual([body]);
		expect(again.result.webhookResponse).toEqual({ status: 'ok', received: 1, accepted: 1 });
		expect(trigger.staticData.repeatKeys).toBeUndefined();
	});

	it('with an empty key, a repeat of the whole event is acknowledged with 200 and starts nothing', async () => {
		const { send } = await activeTrigger();
		const body = ended({ call_id: 'c-1', duration: 42 }, { event_id: 'e-1' });
		const first = await send(body);
		expect(started(first)).toEqual([body]);
		expect(answeredByNode(first)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });

		const again = await send(body);
		expect(again.result).toEqual({ noWebhookResponse: true });
		expect(answeredByNode(again)).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 1 });
		// The same fields in another order are the same event.
		expect(started(await send({ event_id: 'e-1', data: { duration: 42, call_id: 'c-1' }, event_type: 'call.ended' }))).toBeUndefined();
		// One field different is another event.
		expect(started(await send(ended({ call_id: 'c-1', duration: 43 }, { event_id: 'e-1' })))).toHaveLength(1);
	});

	it('with a key path, events sharing the value are repeats whatever else differs', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		expect(started(await send(ended({ call_id: 'c-1', attempt: 1 })))).toHaveLength(1);
		expect(started(await send(ended({ call_id: 'c-1', attempt: 2 })))).toBeUndefined();
		expect(started(await send(ended({ call_id: 'c-2', attempt: 1 })))).toHaveLength(1);
	});

	it('compares keys within one event type: call.started and call.ended of one call both run', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		expect(started(await send({ event_type: 'call.started', data: { call_id: 'c-1' } }))).toHaveLength(1);
		expect(started(await send({ event_type: 'call.ended', data: { call_id: 'c-1' } }))).toHaveLength(1);
		expect(started(await send({ event_type: 'call.ended', data: { call_id: 'c-1' } }))).toBeUndefined();
	});

	it.each([
		['the path is missing', 'data.call_id', ended({ other: 1 })],
		['a parent on the path is missing', 'data.call_id', { event_type: 'call.ended' }],
		['a parent on the path is not an object', 'data.call_id', ended('text' as unknown as IDataObject)],
		['the value is null', 'data.call_id', ended({ call_id: null })],
		['the value is an empty string', 'data.call_id', ended({ call_id: '' })],
		['the path names an inherited property', 'data.constructor', ended({ call_id: 'c-1' })],
	])('never treats an event as a repeat when %s', async (_label, repeatKey, body) => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey });
		expect(started(await send(body))).toHaveLength(1);
		const again = await send(body);
		expect(started(again)).toHaveLength(1);
		expect(answeredByNode(again)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		expect(trigger.staticData.repeatKeys).toBeUndefined();
	});

	it('follows nested paths, array indexes included', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: ' data.legs.0.id ' });
		const body = (id: string, leg2: string) => ended({ legs: [{ id }, { id: leg2 }] });
		expect(started(await send(body('leg-a', 'x')))).toHaveLength(1);
		expect(started(await send(body('leg-a', 'y')))).toBeUndefined();
		expect(started(await send(body('leg-b', 'x')))).toHaveLength(1);
	});

	it('keys on non-string values by their JSON: 42 and "42" differ, objects compare by content', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.key' });
		expect(started(await send(ended({ key: 42 })))).toHaveLength(1);
		expect(started(await send(ended({ key: '42' })))).toHaveLength(1);
		expect(started(await send(ended({ key: 42 })))).toBeUndefined();
		expect(started(await send(ended({ key: true })))).toHaveLength(1);
		expect(started(await send(ended({ key: false })))).toHaveLength(1);
		expect(started(await send(ended({ key: 0 })))).toHaveLength(1);
		expect(started(await send(ended({ key: { a: 1, b: [1, 2] } })))).toHaveLength(1);
		expect(started(await send(ended({ key: { b: [1, 2], a: 1 } })))).toBeUndefined();
		expect(started(await send(ended({ key: { a: 1, b: [2, 1] } })))).toHaveLength(1);
	});

	it('checks each event of an array body, a repeat inside the same body included', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		await send(ended({ call_id: 'c-1' }));
		const outcome = await send([ended({ call_id: 'c-1' }), ended({ call_id: 'c-2' }), ended({ call_id: 'c-2' }), ended({ other: 1 })]);
		expect(started(outcome)).toEqual([ended({ call_id: 'c-2' }), ended({ other: 1 })]);
		expect(answeredByNode(outcome)).toEqual({ status: 'ok', received: 4, accepted: 2, repeats: 2 });
	});

	it('remembers only accepted deliveries: forged ones and events not selected record nothing', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true }, ['call.ended']);
		const body = ended({ call_id: 'c-1' });
		const forged = await trigger.deliver({ headers: { [SECRET_HEADER]: 'x'.repeat(64) }, body });
		expect(forged.statusCode).toBe(401);
		expect(started(await send({ event_type: 'campaign.paused', data: {} }))).toBeUndefined();
		expect(trigger.staticData.repeatKeys).toBeUndefined();
		expect(started(await send(body))).toHaveLength(1);
	});

	it('leaves test deliveries (the editor\'s "Listen for test event") alone: not checked, not remembered', async () => {
		const { trigger, send } = await activeTrigger();
		const body = ended({ call_id: 'c-1' });
		expect(started(await send(body, 'manual'))).toHaveLength(1);
		const test = await send(body, 'manual');
		expect(started(test)).toHaveLength(1);
		expect(test.result.webhookResponse).toEqual({ status: 'ok', received: 1, accepted: 1 });
		expect(trigger.staticData.repeatKeys).toBeUndefined();
		expect(started(await send(body))).toHaveLength(1);
	});

	it('stores a short hash per key, never the event or the key itself', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.phone' });
		await send(ended({ phone: '+14155550123', name: 'Ada Lovelace' }));
		const stored = trigger.staticData.repeatKeys as string[];
		expect(stored).toHaveLength(1);
		expect(stored[0]).toMatch(/^[A-Za-z0-9_-]{16}[0-9a-z]+$/);
		const saved = JSON.stringify(trigger.savedStaticData());
		for (const text of ['4155550123', 'Ada Lovelace']) expect(saved).not.toContain(text);
	});

	it(`keeps exactly the last ${REMEMBERED_KEYS.toLocaleString('en-US')} keys: the oldest is forgotten first`, async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.n' });
		const events = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => ended({ n: from + index }));
		expect(started(await send(events(0, REMEMBERED_KEYS)))).toHaveLength(REMEMBERED_KEYS);
		expect(trigger.staticData.repeatKeys).toHaveLength(REMEMBERED_KEYS);
		expect(started(await send(ended({ n: 0 })))).toBeUndefined();

		expect(started(await send(events(REMEMBERED_KEYS, REMEMBERED_KEYS + 2)))).toHaveLength(2);
		expect(trigger.staticData.repeatKeys).toHaveLength(REMEMBERED_KEYS);
		// 0 and 1 were the oldest two; 2 is still known, in this process and in what n8n saves.
		expect(started(await send(ended({ n: 2 })))).toBeUndefined();
		const restarted = restartedTrigger(trigger);
		expect(started(await restarted.send(ended({ n: 2 })))).toBeUndefined();
		expect(started(await restarted.send(ended({ n: 1 })))).toHaveLength(1);
		expect(restarted.trigger.staticData.repeatKeys).toHaveLength(REMEMBERED_KEYS);
	});

	it('two deliveries of one key handled at the same time start one execution', async () => {
		const { trigger, secret } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const request = { headers: { [SECRET_HEADER]: secret }, body: ended({ call_id: 'c-1' }) };
		// Both load the static data before either saves, as two concurrent requests in n8n do.
		const first = trigger.prepareDelivery(request);
		const second = trigger.prepareDelivery(request);
		expect(started(await first.run())).toHaveLength(1);
		expect(started(await second.run())).toBeUndefined();
	});

	it('keys recorded by concurrent deliveries all survive, although each save overwrites the other', async () => {
		const { trigger, secret } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const request = (callId: string) => ({ headers: { [SECRET_HEADER]: secret }, body: ended({ call_id: callId }) });
		const pending = ['c-1', 'c-2', 'c-3'].map((callId) => trigger.prepareDelivery(request(callId)));
		for (const delivery of pending) expect(started(await delivery.run())).toHaveLength(1);
		// The last save began from data without c-1 and c-2, and still holds them.
		expect(trigger.staticData.repeatKeys).toHaveLength(3);
		const restarted = restartedTrigger(trigger);
		for (const callId of ['c-1', 'c-2', 'c-3']) {
			expect(started(await restarted.send(ended({ call_id: callId })))).toBeUndefined();
		}
	});

	it('remembers across a restart of n8n: a fresh process knows the keys from the saved static data', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		await send(ended({ call_id: 'c-1' }));
		const restarted = restartedTrigger(trigger);
		expect(started(await restarted.send(ended({ call_id: 'c-1' })))).toBeUndefined();
		expect(started(await restarted.send(ended({ call_id: 'c-2' })))).toHaveLength(1);
	});

	it('keeps the keys of another trigger apart', async () => {
		const one = await activeTrigger();
		const two = await activeTrigger();
		const body = ended({ call_id: 'c-1' });
		expect(started(await one.send(body))).toHaveLength(1);
		expect(started(await two.send(body))).toHaveLength(1);
	});

	it('refuses a Repeat Key that is not a dot path when the workflow is activated', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: { ignoreRepeats: true, repeatKey: 'data..call_id' } }, credentials());
		await expect(trigger.activate()).rejects.toThrow('Options → Repeat Key is not a dot path: "data..call_id"');
		const unused = new TriggerHarness({ events: ['call.ended'], options: { ignoreRepeats: false, repeatKey: 'data..call_id' } }, credentials());
		await expect(unused.activate()).resolves.toBeUndefined();
	});
});

describe('repeat keys', () => {
	it('reads a dot path, empty meaning the whole event', () => {
		expect(readRepeatKeyPath(undefined)).toEqual([]);
		expect(readRepeatKeyPath('  ')).toEqual([]);
		expect(readRepeatKeyPath('data.call_id')).toEqual(['data', 'call_id']);
		expect(() => readRepeatKeyPath('.data')).toThrow(/not a dot path/);
		expect(() => readRepeatKeyPath(5)).toThrow(/must be text/);
	});

	it('hashes to 16 URL-safe characters, the event type included', () => {
		const hash = repeatKeyHash({ id: 'a' }, ['id'], 'call.ended');
		expect(hash).toMatch(/^[A-Za-z0-9_-]{16}$/);
		expect(repeatKeyHash({ id: 'a' }, ['id'], 'call.ended')).toBe(hash);
		expect(repeatKeyHash({ id: 'a' }, ['id'], 'call.started')).not.toBe(hash);
		expect(repeatKeyHash({ id: 'a' }, ['missing'], 'call.ended')).toBeUndefined();
	});
});

/**
 * The same trigger in a restarted n8n: the node module loaded afresh (nothing kept in memory) and
 * the workflow's static data as n8n saved it.
 */
function restartedTrigger(trigger: TriggerHarness) {
	let nodeType: TriggerType | undefined;
	jest.isolateModules(() => {
		const loaded = require('../../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node') as { CampaignCallingTrigger: typeof TriggerType };
		nodeType = new loaded.CampaignCallingTrigger();
	});
	const restarted = new TriggerHarness({ ...trigger.node.parameters }, credentials(), WEBHOOK_BASE_URL, {
		workflowId: trigger.workflow.id as string,
		staticData: trigger.savedStaticData(),
		nodeType: nodeType!,
	});
	const secret = moduleSecret(simulator, restarted.webhookUrl);
	return {
		trigger: restarted,
		send: async (body: unknown) => await restarted.deliver({ headers: { [SECRET_HEADER]: secret }, body }),
	};
}
