/**
 * Ignore Repeats, through n8n-core's real WebhookContext and ExecuteContext: which deliveries are
 * repeats, what the key is, what n8n's deduplication store holds (and how much), when the answer
 * leaves, and what happens when n8n handles deliveries at the same time, cannot record, or restarts.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { CampaignCallingTrigger as TriggerType } from '../../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { readRepeatKeyPath } from '../../../nodes/CampaignCallingTrigger/parameters';
import { answerRecordedAllAsNew } from '../../../nodes/CampaignCallingTrigger/inFlight';
import { isRecordedRepeat } from '../../../nodes/CampaignCallingTrigger/inFlight';
import { REMEMBERED_KEYS, REREAD_DELAY_MS, checkAndRecordKeys, repeatKeyHash, type KeyStore } from '../../../nodes/CampaignCallingTrigger/repeats';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { processedDataStore } from '../../helpers/processedData.ts';
import { TriggerHarness, WEBHOOK_BASE_URL, moduleSecret, type DeliveryOutcome } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

/** How long this process caches a recorded key (docs/trigger-reference.md, "Ignoring repeated deliveries in detail"). */
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;

const credentials = () => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });

async function activeTrigger(options: IDataObject = { ignoreRepeats: true }, events = ['call.started', 'call.ended']) {
	const trigger = new TriggerHarness({ events, options }, credentials());
	await trigger.activate();
	const secret = moduleSecret(simulator, trigger.webhookUrl);
	const send = async (body: unknown, mode?: 'manual') => await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body, mode });
	return { trigger, secret, send };
}

/** The answer the sender got: always 200 for a genuine delivery. */
function answer(outcome: DeliveryOutcome) {
	expect(outcome.statusCode).toBe(200);
	return outcome.json;
}

/** The delivered events the trigger passed to the next node (undefined: none, so no downstream node runs). */
const started = (outcome: DeliveryOutcome) => (outcome.output?.length ? outcome.output.map((item) => item.json) : undefined);

/**
 * What n8n's deduplication store holds for a trigger: undefined when it recorded nothing. Two entries per
 * event: its key, and the companion naming the execution that recorded it.
 */
const recorded = (trigger: TriggerHarness) => processedDataStore().rows.get(`${trigger.workflow.id} n:${trigger.node.id}`);

const ended = (data: IDataObject, extra: IDataObject = {}) => ({ event_type: 'call.ended', data, ...extra });

describe('Ignore Repeats', () => {
	it('is on by default, comparing whole events: the same event twice runs once, and is recorded', async () => {
		const { trigger, send } = await activeTrigger({});
		const body = ended({ call_id: 'c-1', duration: 42 }, { event_id: 'e-1' });
		expect(started(await send(body))).toEqual([body]);
		const again = await send(body);
		expect(again.executed).toBe(false);
		expect(answer(again)).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 1 });
		// Whole events: the same ids with one other field different are another event, which runs.
		const changed = ended({ call_id: 'c-1', duration: 43 }, { event_id: 'e-1' });
		expect(started(await send(changed))).toEqual([changed]);
		// n8n's store holds a hash of each whole event: its type and every field, keys sorted (computed here apart from the code).
		const recordedAs = (canonical: string) => {
			const key = createHash('sha256').update(`call.ended\n${canonical}`).digest('base64url').slice(0, 16);
			return createHash('md5').update(key).digest('base64');
		};
		expect(recorded(trigger)).toEqual([
			expect.any(String),
			recordedAs('{"data":{"call_id":"c-1","duration":42},"event_id":"e-1","event_type":"call.ended"}'),
			expect.any(String),
			recordedAs('{"data":{"call_id":"c-1","duration":43},"event_id":"e-1","event_type":"call.ended"}'),
		]);
	});

	it('turned off, the same event twice runs twice, and nothing is recorded', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: false });
		const body = ended({ call_id: 'c-1' });
		expect(started(await send(body))).toEqual([body]);
		const again = await send(body);
		expect(started(again)).toEqual([body]);
		// No repeats field at all, not one left undefined: the answer says nothing of repeats.
		expect(Object.keys(answer(again) as IDataObject)).toEqual(['status', 'received', 'accepted']);
		expect(recorded(trigger)).toBeUndefined();
	});

	it('answers from the execution, once n8n recorded the event: webhook() answers nothing for a new event', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const body = ended({ call_id: 'c-1' });
		const outcome = await send(body);
		expect(outcome.result.webhookResponse).toBeUndefined();
		expect(outcome.result.noWebhookResponse).toBeUndefined();
		expect(outcome.executed).toBe(true);
		expect(recorded(trigger)).toHaveLength(2 * 1);
		expect(answer(outcome)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		// What execute() passes on is the event alone: what webhook() handed over to it stays behind.
		expect(started(outcome)).toEqual([body]);
	});

	it('with an empty key, a repeat of the whole event is acknowledged with 200 and starts nothing', async () => {
		const { send } = await activeTrigger();
		const body = ended({ call_id: 'c-1', duration: 42 }, { event_id: 'e-1' });
		const first = await send(body);
		expect(started(first)).toEqual([body]);
		expect(answer(first)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });

		const again = await send(body);
		// Known to this process once recorded: answered at once, no execution.
		expect(again.executed).toBe(false);
		expect(answer(again)).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 1 });
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
		expect(answer(again)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		expect(recorded(trigger)).toBeUndefined();
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

	it('checks each event of an array body, a repeat inside the same body included, each output item paired to its input', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		await send(ended({ call_id: 'c-1' }));
		const outcome = await send([ended({ call_id: 'c-1' }), ended({ call_id: 'c-2' }), ended({ call_id: 'c-2' }), ended({ other: 1 })]);
		expect(started(outcome)).toEqual([ended({ call_id: 'c-2' }), ended({ other: 1 })]);
		expect(outcome.output?.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(answer(outcome)).toEqual({ status: 'ok', received: 4, accepted: 2, repeats: 2 });
	});

	it('remembers only accepted deliveries: forged ones and events not selected record nothing', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true }, ['call.ended']);
		const body = ended({ call_id: 'c-1' });
		const forged = await trigger.deliver({ headers: { [SECRET_HEADER]: 'x'.repeat(64) }, body });
		expect([forged.statusCode, forged.executed]).toEqual([401, false]);
		const unselected = await send({ event_type: 'campaign.paused', data: {} });
		expect([unselected.executed, answer(unselected)]).toEqual([false, { status: 'ok', received: 1, accepted: 0, repeats: 0 }]);
		expect(recorded(trigger)).toBeUndefined();
		expect(started(await send(body))).toHaveLength(1);
	});

	it('leaves test deliveries (the editor\'s "Listen for test event") alone: not checked, not remembered', async () => {
		const { trigger, send } = await activeTrigger();
		const body = ended({ call_id: 'c-1' });
		expect(started(await send(body, 'manual'))).toHaveLength(1);
		const test = await send(body, 'manual');
		expect(started(test)).toHaveLength(1);
		expect(answer(test)).toEqual({ status: 'ok', received: 1, accepted: 1 });
		expect(recorded(trigger)).toBeUndefined();
		expect(started(await send(body))).toHaveLength(1);
	});

	it('records a hash per key in n8n\'s store, never the event or the key itself, and nothing in static data', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.phone' });
		const staticBefore = JSON.stringify(trigger.savedStaticData());
		await send(ended({ phone: '+14155550123', name: 'Ada Lovelace' }));
		expect(recorded(trigger)).toHaveLength(2 * 1);
		const stored = JSON.stringify(recorded(trigger));
		for (const text of ['4155550123', 'Ada Lovelace']) expect(stored).not.toContain(text);
		expect(JSON.stringify(trigger.savedStaticData())).toBe(staticBefore);
	});

	it(`keeps exactly the last ${REMEMBERED_KEYS.toLocaleString('en-US')} keys: the oldest is forgotten first`, async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.n' });
		const events = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => ended({ n: from + index }));
		expect(started(await send(events(0, REMEMBERED_KEYS)))).toHaveLength(REMEMBERED_KEYS);
		expect(recorded(trigger)).toHaveLength(2 * REMEMBERED_KEYS);
		// The oldest is still a repeat: the companion its check adds for a moment pushes out a companion, not its key.
		expect(started(await send(ended({ n: 0 })))).toBeUndefined();

		expect(started(await send(events(REMEMBERED_KEYS, REMEMBERED_KEYS + 2)))).toHaveLength(2);
		expect(recorded(trigger)).toHaveLength(2 * REMEMBERED_KEYS);
		// 0 and 1 were the oldest two; 2 is still known, in this process and in n8n's store.
		expect(started(await send(ended({ n: 2 })))).toBeUndefined();
		const restarted = restartedTrigger(trigger);
		const known = await restarted.send(ended({ n: 2 }));
		expect([known.executed, started(known), answer(known)]).toEqual([true, undefined, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
		expect(started(await restarted.send(ended({ n: 1 })))).toHaveLength(1);
	});

	it('two deliveries of one key handled at the same time start one downstream run, and both are answered 200', async () => {
		const { send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const outcomes = await Promise.all([send(ended({ call_id: 'c-1' })), send(ended({ call_id: 'c-1' }))]);
		expect(outcomes.map((outcome) => started(outcome)?.length ?? 0).sort()).toEqual([0, 1]);
		expect(outcomes.map((outcome) => (answer(outcome) as IDataObject).repeats).sort()).toEqual([0, 1]);
	});

	it('keys recorded by concurrent deliveries all survive, although n8n\'s store rewrites its whole list each time', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const outcomes = await Promise.all(['c-1', 'c-2', 'c-3'].map((callId) => send(ended({ call_id: callId }))));
		for (const outcome of outcomes) expect(started(outcome)).toHaveLength(1);
		expect(recorded(trigger)).toHaveLength(2 * 3);
		const restarted = restartedTrigger(trigger);
		for (const callId of ['c-1', 'c-2', 'c-3']) {
			expect(started(await restarted.send(ended({ call_id: callId })))).toBeUndefined();
		}
	});

	it("a new trigger's first events recorded by two workers at once are both answered 200 and recorded, though n8n's store creates its row with an unlocked insert", async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const otherWorker = restartedTrigger(trigger);
		const outcomes = await Promise.all([send(ended({ call_id: 'c-1' })), otherWorker.send(ended({ call_id: 'c-2' }))]);
		for (const outcome of outcomes) {
			expect(answer(outcome)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
			expect(started(outcome)).toHaveLength(1);
		}
		expect(recorded(trigger)).toHaveLength(2 * 2);
	});

	it('when n8n cannot record the event, the execution fails before any answer (n8n then answers 500), and the retry is not a repeat', async () => {
		const { trigger, secret } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		processedDataStore().failNextWrite = new Error('LockAcquireTimeoutError: Timeout waiting for lock SqliteWriteConnectionMutex');
		const taken = await trigger.take({ headers: { [SECRET_HEADER]: secret }, body: ended({ call_id: 'c-1' }) });
		const failure = taken.run();
		await expect(failure).rejects.toThrow('SqliteWriteConnectionMutex');
		await expect(failure).rejects.toMatchObject({ description: expect.stringContaining('could not record the event') });
		// The execution sent no answer of its own, before or after the failed write: the sender got n8n's 500.
		expect(trigger.events).toEqual(['recording failed', 'n8n answered 500']);
		expect([taken.response.statusCode, taken.response.body]).toEqual([500, { message: 'Error in workflow' }]);
		expect(recorded(trigger)).toBeUndefined();
		const send = async (body: unknown) => await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body });
		const retry = await send(ended({ call_id: 'c-1' }));
		expect(started(retry)).toHaveLength(1);
		expect(answer(retry)).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
	});

	it('remembers across a restart of n8n: a fresh process finds the keys in n8n\'s store, and passes nothing on', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		await send(ended({ call_id: 'c-1' }));
		const restarted = restartedTrigger(trigger);
		expect(started(await restarted.send(ended({ call_id: 'c-1' })))).toBeUndefined();
		// Found there, not recorded by this process: where it sits in the store is unknown, so the next
		// copy asks the store again rather than this process's cache.
		const again = await restarted.send(ended({ call_id: 'c-1' }));
		expect([again.executed, started(again)]).toEqual([true, undefined]);
		expect(started(await restarted.send(ended({ call_id: 'c-2' })))).toHaveLength(1);
	});

	it('keeps the keys of another trigger apart', async () => {
		const one = await activeTrigger();
		const two = await activeTrigger();
		const body = ended({ call_id: 'c-1' });
		expect(started(await one.send(body))).toHaveLength(1);
		expect(started(await two.send(body))).toHaveLength(1);
	});

	it('refuses a Repeat Key that is not a dot path at activation, Ignore Repeats left at its default', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: { repeatKey: 'data..call_id' } }, credentials());
		await expect(trigger.activate()).rejects.toThrow('Options → Repeat Key is not a dot path: "data..call_id"');
	});

	it('refuses a Repeat Key that is not a dot path when the workflow is activated', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: { ignoreRepeats: true, repeatKey: 'data..call_id' } }, credentials());
		const refused = trigger.activate();
		await expect(refused).rejects.toThrow('Options → Repeat Key is not a dot path: "data..call_id"');
		await expect(refused).rejects.toMatchObject({ description: expect.stringContaining('for example data.call_id or event_id') });
		const unused = new TriggerHarness({ events: ['call.ended'], options: { ignoreRepeats: false, repeatKey: 'data..call_id' } }, credentials());
		await expect(unused.activate()).resolves.toBeUndefined();
	});
});

describe('one trigger\'s updates of n8n\'s store', () => {
	const settle = async () => await new Promise((resolve) => setImmediate(resolve));

	it('run one at a time, also one that arrives while the second of two runs', async () => {
		let running = 0;
		let mostAtOnce = 0;
		const release: Array<() => void> = [];
		const store: KeyStore = {
			record: async (hashes) => {
				running++;
				mostAtOnce = Math.max(mostAtOnce, running);
				await new Promise<void>((resolve) => release.push(resolve));
				running--;
				return { new: hashes };
			},
			remove: async () => {},
		};
		const update = async (key: string) => await checkAndRecordKeys(store, 'one-at-a-time:node', `execution-${key}`, [key], () => false);
		const first = update('a');
		const second = update('b');
		await settle();
		release.shift()!();
		await first;
		await settle();
		const third = update('c');
		await settle();
		release.shift()!();
		await second;
		await settle();
		release.shift()!();
		await expect(third).resolves.toEqual([false]);
		expect(mostAtOnce).toBe(1);
	});

	it('record nothing for an execution n8n cancelled while it waited for the trigger\'s earlier update', async () => {
		const recorded: string[][] = [];
		let releaseFirst = () => {};
		const store: KeyStore = {
			record: async (hashes) => {
				recorded.push(hashes);
				if (recorded.length === 1) await new Promise<void>((resolve) => (releaseFirst = resolve));
				return { new: hashes };
			},
			remove: async () => {},
		};
		let cancelled = false;
		const first = checkAndRecordKeys(store, 'cancelled-waiting:node', 'execution-1', ['a'], () => false);
		const second = checkAndRecordKeys(store, 'cancelled-waiting:node', 'execution-2', ['b'], () => cancelled);
		await settle();
		cancelled = true;
		releaseFirst();
		await expect(first).resolves.toEqual([false]);
		await expect(second).resolves.toBeUndefined();
		expect(recorded).toEqual([[companion('a', 'execution-1'), 'a']]);
	});

	it('pass on whatever n8n\'s store threw, even no error at all', async () => {
		const store: KeyStore = { record: async () => await Promise.reject(undefined), remove: async () => {} };
		await expect(checkAndRecordKeys(store, 'throws-nothing:node', 'execution-1', ['k'], () => false)).rejects.toBeUndefined();
	});

	it('record again once when n8n\'s store refuses the first insert of the row another worker inserted, and only then', async () => {
		const calls: string[][] = [];
		const refusing = (message: string): KeyStore => ({
			record: async (hashes) => {
				calls.push(hashes);
				if (calls.length === 1) throw new Error(message);
				return { new: hashes };
			},
			remove: async () => {},
		});
		await expect(checkAndRecordKeys(refusing('duplicate key value violates unique constraint "PK_ca04b9d8dc72de268fe07a65773"'), 'insert:node', 'execution-1', ['k'], () => false)).resolves.toEqual([false]);
		expect(calls).toEqual([
			[companion('k', 'execution-1'), 'k'],
			[companion('k', 'execution-1'), 'k'],
		]);
		calls.length = 0;
		await expect(checkAndRecordKeys(refusing('Connection terminated unexpectedly'), 'insert:node', 'execution-1', ['k'], () => false)).rejects.toThrow('Connection terminated');
		expect(calls).toEqual([[companion('k', 'execution-1'), 'k']]);
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

	it('takes no Repeat Key (null included) as the whole event, and trims each segment', () => {
		expect(readRepeatKeyPath(null)).toEqual([]);
		expect(readRepeatKeyPath(' data . call_id ')).toEqual(['data', 'call_id']);
		expect(() => readRepeatKeyPath('data. .call_id')).toThrow(/not a dot path/);
	});

	it('hashes the same event to the same key in every release: SHA-256 of the event type and the event as sorted JSON', () => {
		// Keys recorded in n8n's store before an upgrade must still match after it. Computed independently:
		// base64url(sha256('call.ended\n{"data":{"call_id":"c-1","scores":[1,23],"tags":["a","b"]},"event_type":"call.ended"}'))[0..16]
		const event = { event_type: 'call.ended', data: { tags: ['a', 'b'], scores: [1, 23], call_id: 'c-1' } };
		expect(repeatKeyHash(event, [], 'call.ended')).toBe('7aHYcMz-uEdAjU34');
		expect(repeatKeyHash({ ...event, note: undefined }, [], 'call.ended')).toBe('7aHYcMz-uEdAjU34');
	});

	it('finds no key through a value that is not an object: a text\'s length or a null field', () => {
		expect(repeatKeyHash({ data: 'abc' }, ['data', 'length'], 'call.ended')).toBeUndefined();
		expect(repeatKeyHash({ data: null }, ['data', 'call_id'], 'call.ended')).toBeUndefined();
	});

	it('hashes to 16 URL-safe characters, the event type included', () => {
		const hash = repeatKeyHash({ id: 'a' }, ['id'], 'call.ended');
		expect(hash).toMatch(/^[A-Za-z0-9_-]{16}$/);
		expect(repeatKeyHash({ id: 'a' }, ['id'], 'call.ended')).toBe(hash);
		expect(repeatKeyHash({ id: 'a' }, ['id'], 'call.started')).not.toBe(hash);
		expect(repeatKeyHash({ id: 'a' }, ['missing'], 'call.ended')).toBeUndefined();
	});
});

describe('the repeat window: this process never calls an event a repeat that n8n\'s store would run', () => {
	afterEach(() => jest.restoreAllMocks());

	it(`one process: an event recorded ${REMEMBERED_KEYS.toLocaleString('en-US')} keys ago, forgotten by the store, runs again here too`, async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.n' });
		expect(started(await send(ended({ n: -1 })))).toHaveLength(1);
		const newer = Array.from({ length: REMEMBERED_KEYS }, (_, index) => ended({ n: index }));
		expect(started(await send(newer))).toHaveLength(REMEMBERED_KEYS);
		expect(recorded(trigger)).toHaveLength(2 * REMEMBERED_KEYS);
		const again = await send(ended({ n: -1 }));
		expect([again.executed, started(again)]).toEqual([true, [ended({ n: -1 })]]);
	});

	it(`two processes: a key cached here is dropped after ${CACHED_KEY_LIFETIME_MS / 60_000} minutes, so keys another process recorded meanwhile cannot outdate it`, async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.n' });
		const otherProcess = restartedTrigger(trigger);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		expect(started(await send(ended({ n: -1 })))).toHaveLength(1);
		// Still within the window: a repeat answered here, without an execution.
		clock.mockReturnValue(start + CACHED_KEY_LIFETIME_MS - 1);
		expect((await send(ended({ n: -1 }))).executed).toBe(false);
		// The other process records a trigger's worth of keys; n8n's store forgets -1.
		clock.mockReturnValue(start + CACHED_KEY_LIFETIME_MS);
		expect(started(await otherProcess.send(Array.from({ length: REMEMBERED_KEYS }, (_, index) => ended({ n: index }))))).toHaveLength(REMEMBERED_KEYS);
		const again = await send(ended({ n: -1 }));
		expect([again.executed, started(again)]).toEqual([true, [ended({ n: -1 })]]);
	});

	it('caches only keys its execution recorded as new: one found in the store may be the next it forgets', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const otherProcess = restartedTrigger(trigger);
		await otherProcess.send(ended({ call_id: 'c-1' }));
		// Found in the store: answered as a repeat, not cached, so the next copy asks the store again.
		for (let copy = 0; copy < 2; copy++) {
			const outcome = await send(ended({ call_id: 'c-1' }));
			expect([outcome.executed, started(outcome), answer(outcome)]).toEqual([true, undefined, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
		}
		// Recorded as new by this process: cached.
		await send(ended({ call_id: 'c-2' }));
		expect((await send(ended({ call_id: 'c-2' }))).executed).toBe(false);
	});

	it('caches nothing of a delivery whose execution found one of its events in the store, and ages older keys by its size', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		await restartedTrigger(trigger).send(ended({ call_id: 'c-1' }));
		await send(ended({ call_id: 'c-0' }));
		const c0Cached = () => isRecordedRepeat(`${trigger.workflow.id}:${trigger.node.id}`, repeatKeyHash(ended({ call_id: 'c-0' }), ['data', 'call_id'], 'call.ended')!);
		expect(c0Cached()).toBe(true);
		expect(started(await send([ended({ call_id: 'c-1' }), ended({ call_id: 'c-2' })]))).toEqual([ended({ call_id: 'c-2' })]);
		expect((await send(ended({ call_id: 'c-2' }))).executed).toBe(true);
		// c-2 was recorded as new in the store all the same: c-0, cached before it, counts as one key older.
		expect(c0Cached()).toBe(false);
	});
});

/** The entry the trigger records beside a key for one execution (repeats.ts): the first 16 characters of SHA-256(key, execution). */
const companion = (key: string, execution: string) => createHash('sha256').update(`${key}\n${execution}`).digest('base64url').slice(0, 16);

/** n8n's store as processes share it (`keys`); `during` runs while the caller waits to read again. */
function sharedStore(during: (keys: Set<string>) => void = () => {}, keys = new Set<string>()) {
	const calls: string[] = [];
	const store: KeyStore = {
		record: async (hashes) => {
			calls.push(`record ${hashes.join(',')}`);
			const fresh = hashes.filter((hash) => !keys.has(hash));
			fresh.forEach((hash) => keys.add(hash));
			return { new: fresh };
		},
		remove: async (hashes) => {
			calls.push(`remove ${hashes.join(',')}`);
			hashes.forEach((hash) => keys.delete(hash));
		},
		settle: async () => {
			calls.push('settle');
			during(keys);
		},
	};
	return { keys, calls, store };
}

describe('a key another process\'s cancelled execution takes back', () => {
	/** The companion of `key` for execution `execution`, as the store's calls name it: cA for A in execution-1. */
	const named = (calls: string[]) => calls.map((call) => call.replace(/[\w-]{16}/g, (hash) => companionNames.get(hash) ?? hash));
	const companionNames = new Map(['A', 'B'].flatMap((key) => [1, 2].map((run) => [companion(key, `execution-${run}`), `c${key}${run}`] as const)));

	it('is found gone when the copy that found it reads again, and the copy runs the event', async () => {
		// Another process's execution recorded A, then n8n cancelled it: it takes A back while this copy waits.
		const { keys, calls, store } = sharedStore((stored) => stored.delete('A'));
		keys.add('A');
		await expect(checkAndRecordKeys(store, 'take-back:node', 'execution-1', ['A'], () => false)).resolves.toEqual([false]);
		expect(named(calls)).toEqual(['record cA1,A', 'remove cA1', 'settle', 'record cA1,A']);
		expect(named([...keys])).toEqual(['cA1', 'A']);
	});

	it('a key still there when read again is a repeat; the new keys are taken back for the wait and recorded again', async () => {
		const { keys, calls, store } = sharedStore();
		keys.add('A');
		await expect(checkAndRecordKeys(store, 'kept:node', 'execution-1', ['B', 'A', 'B'], () => false)).resolves.toEqual([false, true, true]);
		expect(named(calls)).toEqual(['record cB1,B,cA1,A', 'remove cA1,cB1,B', 'settle', 'record cB1,B,cA1,A', 'remove cA1']);
		expect(named([...keys])).toEqual(['A', 'cB1', 'B']);
	});

	it('a process that dies while it waits leaves none of the delivery\'s new keys recorded, so the retry runs them', async () => {
		const died = new Error('n8n stopped');
		let duringWait: string[] = [];
		const { keys, store } = sharedStore((stored) => {
			duringWait = [...stored];
			throw died;
		});
		keys.add('A');
		await expect(checkAndRecordKeys(store, 'dies-waiting:node', 'execution-1', ['B', 'A'], () => false)).rejects.toBe(died);
		expect(duringWait).toEqual(['A']);
		await expect(checkAndRecordKeys(sharedStore(undefined, keys).store, 'dies-waiting:node', 'execution-2', ['B'], () => false)).resolves.toEqual([false]);
	});

	it('a delivery of new keys only is not held: no second read, no wait', async () => {
		const { calls, store } = sharedStore();
		await expect(checkAndRecordKeys(store, 'all-new:node', 'execution-1', ['A', 'B'], () => false)).resolves.toEqual([false, false]);
		expect(named(calls)).toEqual(['record cA1,A,cB1,B']);
	});

	it('when n8n cancels this execution while it waits to read again, it records nothing more: its new keys were taken back already', async () => {
		let cancelled = false;
		const { keys, calls, store } = sharedStore(() => (cancelled = true));
		keys.add('A');
		await expect(checkAndRecordKeys(store, 'cancelled-settling:node', 'execution-1', ['B', 'A'], () => cancelled)).resolves.toBeUndefined();
		expect(named(calls)).toEqual(['record cB1,B,cA1,A', 'remove cA1,cB1,B', 'settle']);
		expect([...keys]).toEqual(['A']);
	});

	it('when n8n cancels it during its own store update, what that update recorded is taken back in the same turn', async () => {
		let cancelled = false;
		const { keys, calls, store } = sharedStore();
		const recordAll = store.record;
		store.record = async (hashes) => {
			const answer = await recordAll(hashes);
			cancelled = true;
			return answer;
		};
		await expect(checkAndRecordKeys(store, 'cancelled-recording:node', 'execution-1', ['A'], () => cancelled)).resolves.toBeUndefined();
		expect(named(calls)).toEqual(['record cA1,A', 'remove cA1,A']);
		expect([...keys]).toEqual([]);
	});
});

describe('an execution n8n runs again (n8n 1.x in queue mode re-runs a stalled job: its worker died after answering)', () => {
	it('runs the keys it recorded itself in its first run, without a wait; another execution finds them repeats', async () => {
		const keys = new Set<string>();
		const store = sharedStore(undefined, keys).store;
		await expect(checkAndRecordKeys(store, 'rerun:node', 'execution-1', ['A', 'B'], () => false)).resolves.toEqual([false, false]);
		const settled = jest.fn();
		await expect(checkAndRecordKeys({ ...store, settle: settled }, 'rerun:node', 'execution-1', ['A', 'B'], () => false)).resolves.toEqual([false, false]);
		expect(settled).not.toHaveBeenCalled();
		await expect(checkAndRecordKeys(store, 'rerun:node', 'execution-2', ['A', 'B'], () => false)).resolves.toEqual([true, true]);
		// The other execution's companions are not left behind to take the store's room.
		expect(keys.size).toBe(4);
	});

	it('a key another execution recorded stays a repeat when another process\'s write undoes the removal of the companion this execution added', async () => {
		// n8n's store has no lock across processes: a write made from a read before the removal puts the companion back.
		const { keys, store } = sharedStore();
		keys.add('A');
		const removeLost: KeyStore = { ...store, remove: async () => {} };
		await expect(checkAndRecordKeys(removeLost, 'lost-removal:node', 'execution-2', ['A'], () => false)).resolves.toEqual([true]);
	});

	it('in a real execution: the same execution id run again passes the event on, a new execution does not', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		const first = await trigger.take({ headers: { [SECRET_HEADER]: moduleSecret(simulator, trigger.webhookUrl) }, body: ended({ call_id: 'c-1' }) });
		const items = first.result.workflowData![0];
		const answerSender = ({ statusCode, json }: { statusCode: number; json: unknown }) => first.response.status(statusCode).json(json);
		const { output } = await trigger.execute(items, 'webhook', undefined, answerSender, 'execution-stalled');
		expect(output.map((item) => item.json)).toEqual([ended({ call_id: 'c-1' })]);
		const rerun = await trigger.execute(items, 'webhook', undefined, undefined, 'execution-stalled');
		expect(rerun.output.map((item) => item.json)).toEqual([ended({ call_id: 'c-1' })]);
		const copy = await send(ended({ call_id: 'c-1' }));
		expect(started(copy)).toBeUndefined();
	});
});

describe('the store\'s settle wait', () => {
	it('waits REREAD_DELAY_MS in an execution, through n8n\'s sleep, only for a delivery with a key found in the store', async () => {
		const { trigger, send } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.call_id' });
		await restartedTrigger(trigger).send(ended({ call_id: 'c-1' }));
		const timers = jest.spyOn(global, 'setTimeout');
		await send(ended({ call_id: 'c-2' }));
		expect(timers.mock.calls.filter(([, delay]) => delay === REREAD_DELAY_MS)).toHaveLength(0);
		await send(ended({ call_id: 'c-1' }));
		expect(timers.mock.calls.filter(([, delay]) => delay === REREAD_DELAY_MS)).toHaveLength(1);
		timers.mockRestore();
	});
});

describe('numeric keys beyond 2^53', () => {
	const big = (id: string) => `{"event_type":"call.ended","data":{"id":${id},"note":"x"}}`;

	it('ids that differ only in digits a double drops are different events', async () => {
		const { trigger } = await activeTrigger({ ignoreRepeats: true, repeatKey: 'data.id' });
		const secret = moduleSecret(simulator, trigger.webhookUrl);
		const deliver = async (raw: string) => await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, raw });
		expect(JSON.parse(big('12345678901234567891'))).toEqual(JSON.parse(big('12345678901234567892')));
		expect(started(await deliver(big('12345678901234567891')))).toHaveLength(1);
		expect(started(await deliver(big('12345678901234567892')))).toHaveLength(1);
		// The same id again, written another way, is the same event.
		expect(started(await deliver(big('12345678901234567891.0')))).toBeUndefined();
	});

	it('whole events too: a field beyond 2^53 tells two events apart', async () => {
		const { trigger } = await activeTrigger({});
		const secret = moduleSecret(simulator, trigger.webhookUrl);
		const deliver = async (raw: string) => await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, raw });
		expect(started(await deliver(big('9007199254740993')))).toHaveLength(1);
		expect(started(await deliver(big('9007199254740992')))).toHaveLength(1);
		expect(started(await deliver(big('9007199254740993')))).toBeUndefined();
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

describe('an execution\'s answer, read for whether it recorded every event as new', () => {
	it('says so when its repeats are the ones webhook() knew, as an object, text or bytes', () => {
		const answer = { status: 'ok', received: 2, accepted: 1, repeats: 1 };
		expect([answerRecordedAllAsNew(answer, 1), answerRecordedAllAsNew(JSON.stringify(answer), 1), answerRecordedAllAsNew(Buffer.from(JSON.stringify(answer)), 1), answerRecordedAllAsNew(new TextEncoder().encode(JSON.stringify(answer)), 1)]).toEqual([true, true, true, true]);
		expect(answerRecordedAllAsNew(answer, 0)).toBe(false);
	});

	it('does not when it is no JSON, or JSON that is no object', () => {
		expect([answerRecordedAllAsNew('<html>Workflow was started</html>', 0), answerRecordedAllAsNew('null', 0), answerRecordedAllAsNew(undefined, 0)]).toEqual([false, false, false]);
	});
});
