/**
 * A full execution queue: n8n took a delivery (webhook() handed its event over) but has not run the
 * execution yet, so the sender times out and retries. Through n8n-core's real WebhookContext and
 * ExecuteContext; an execution is held back by not calling run() until the test says so.
 */
import type { IDataObject } from 'n8n-workflow';

import { HANDOVER_FIELD, SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { BoundedMap } from '../../../nodes/CampaignCallingTrigger/boundedMap';
import { HUNG_UP, claimEvents, inFlightEvent } from '../../../nodes/CampaignCallingTrigger/inFlight';
import { isRecordedRepeat } from '../../../nodes/CampaignCallingTrigger/inFlight';

import { repeatKeyHash } from '../../../nodes/CampaignCallingTrigger/repeats';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { processedDataStore } from '../../helpers/processedData.ts';
import { FakeResponse, TriggerHarness, moduleSecret } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

/** How long an in-flight record outlives the sender's window (docs/trigger-reference.md, "When n8n's queue is full, in detail"). */
const IN_FLIGHT_MARGIN_MS = 60_000;

/** The answer an in-flight event's retry would wait for, if the event is in flight. */
const earlierAnswer = (trigger: string, hash: string) => inFlightEvent(trigger, hash)?.answered;

const credentials = () => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });

async function activeTrigger(options: IDataObject = {}) {
	const trigger = new TriggerHarness({ events: ['call.ended'], options }, credentials());
	await trigger.activate();
	const secret = moduleSecret(simulator, trigger.webhookUrl);
	const take = (body: unknown, response?: FakeResponse) => trigger.take({ headers: { [SECRET_HEADER]: secret }, body }, response);
	return { trigger, take };
}

const ended = (callId: string) => ({ event_type: 'call.ended', event_id: `e-${callId}`, data: { call_id: callId } });

/** Whether a promise is still pending after the event loop had a chance to settle it. */
async function isPending(promise: Promise<unknown>): Promise<boolean> {
	const marker = Symbol('pending');
	return (await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))])) === marker;
}

describe('a retry while the first delivery\'s execution waits in n8n\'s queue', () => {
	it('starts no execution: it waits, and is answered 200 as a repeat when the first execution answers', async () => {
		const { take } = await activeTrigger();
		const first = await take(ended('c-1'));
		expect(first.executed).toBe(true);

		const retry = take(ended('c-1'));
		expect(await isPending(retry)).toBe(true);

		const run = await first.run();
		expect(run.output?.map((item) => item.json)).toEqual([ended('c-1')]);
		const answered = await retry;
		expect(answered.executed).toBe(false);
		expect([answered.response.statusCode, answered.response.body]).toEqual([200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
	});

	it('two copies taken at the same moment: the second waits for the first\'s execution, one execution in all', async () => {
		const { take } = await activeTrigger();
		const copies = [take(ended('c-same')), take(ended('c-same'))];
		const first = await copies[0];
		expect(first.executed).toBe(true);
		expect(await isPending(copies[1])).toBe(true);
		await first.run();
		const second = await copies[1];
		expect([second.executed, second.response.statusCode]).toEqual([false, 200]);
	});

	it('every retry of the event waits for the one execution: three retries, one execution, four answers 200', async () => {
		// Five retries allowed: none of these three is the sender's last attempt, whose wait has a limit.
		const { take } = await activeTrigger({ retryLimit: 5 });
		const first = await take(ended('c-2'));
		const retries = [take(ended('c-2')), take(ended('c-2')), take(ended('c-2'))];
		await first.run();
		const answers = await Promise.all(retries);
		expect(answers.map((taken) => [taken.executed, taken.response.statusCode])).toEqual([
			[false, 200],
			[false, 200],
			[false, 200],
		]);
		expect(first.response.statusCode).toBe(200);
	});

	it('other events are not held: a new event during the wait starts its own execution at once', async () => {
		const { take } = await activeTrigger();
		const first = await take(ended('c-3'));
		const other = await take(ended('c-4'));
		expect(other.executed).toBe(true);
		await Promise.all([first.run(), other.run()]);
	});

	it('a retry whose sender hangs up stops waiting without an answer; the next retry after the run is a recorded repeat', async () => {
		const { take } = await activeTrigger();
		const first = await take(ended('c-5'));
		const hungUp = new FakeResponse();
		const retry = take(ended('c-5'), hungUp);
		hungUp.hangUp();
		const gone = await retry;
		expect(gone.result).toEqual({ noWebhookResponse: true });
		expect(gone.response.writableEnded).toBe(false);

		await first.run();
		const later = await take(ended('c-5'));
		expect(later.executed).toBe(false);
		expect(later.response.body).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 1 });
	});

	it('when the first execution fails before it answers (n8n answers 500), a waiting retry starts an execution of its own', async () => {
		const { trigger, take } = await activeTrigger();
		const first = await take(ended('c-6'));
		const retry = take(ended('c-6'));
		const recordKeys = jest.spyOn(trigger.nodeType, 'execute').mockRejectedValueOnce(new Error('database is locked'));
		await expect(first.run()).rejects.toThrow('database is locked');
		recordKeys.mockRestore();
		expect(first.response.statusCode).toBe(500);

		const taken = await retry;
		expect(taken.executed).toBe(true);
		const run = await taken.run();
		expect(run.output?.map((item) => item.json)).toEqual([ended('c-6')]);
		expect(taken.response.statusCode).toBe(200);
	});

	it('the first answer is seen even when n8n gives it after the first sender hung up (Node then emits no finish)', async () => {
		const { trigger, take } = await activeTrigger();
		const firstResponse = new FakeResponse();
		const first = await take(ended('c-7'), firstResponse);
		firstResponse.hangUp();
		const retry = take(ended('c-7'));
		await first.run();
		expect((await retry).response.statusCode).toBe(200);
		expect(isRecordedRepeat(`${trigger.workflow.id}:${trigger.node.id}`, repeatKeyHash(ended('c-7'), [], 'call.ended')!)).toBe(true);
	});

	it('with Ignore Repeats off, a retry starts an execution as every delivery does', async () => {
		const { take } = await activeTrigger({ ignoreRepeats: false });
		const first = await take(ended('c-8'));
		const retry = await take(ended('c-8'));
		expect(retry.executed).toBe(true);
		await Promise.all([first.run(), retry.run()]);
	});

	it('a delivery of a repeat key in flight and a new one starts one execution holding both; the first is then a repeat there', async () => {
		const { take } = await activeTrigger();
		const first = await take(ended('c-10'));
		const mixed = await take([ended('c-10'), ended('c-11')]);
		expect(mixed.executed).toBe(true);
		await first.run();
		const run = await mixed.run();
		expect(run.output?.map((item) => item.json)).toEqual([ended('c-11')]);
		expect(mixed.response.body).toEqual({ status: 'ok', received: 2, accepted: 1, repeats: 1 });
	});

	it('a retry of the key in flight, after such a mixed delivery, waits for the first delivery\'s execution, not the mixed one\'s', async () => {
		const { take } = await activeTrigger();
		const first = await take(ended('c-13'));
		const mixed = await take([ended('c-13'), ended('c-14')]);
		const retry = take(ended('c-13'));
		await first.run();
		const answered = await retry;
		expect([answered.executed, answered.response.statusCode]).toEqual([false, 200]);
		await mixed.run();
	});

	it('leaves nothing in flight once the executions answered', async () => {
		const { trigger, take } = await activeTrigger();
		const first = await take(ended('c-12'));
		const inFlight = () => earlierAnswer(`${trigger.workflow.id}:${trigger.node.id}`, repeatKeyHash(ended('c-12'), [], 'call.ended')!);
		expect(inFlight()).toBeDefined();
		await first.run();
		expect(inFlight()).toBeUndefined();
	});
});

describe('an execution n8n cancels while it records the event (n8n 1.x at shutdown)', () => {
	it('takes the key back, so the service\'s retry runs the event instead of being answered as a repeat', async () => {
		const { trigger, take } = await activeTrigger({ repeatKey: 'event_id' });
		const first = await take(ended('c-cancel'));
		const store = processedDataStore();
		const record = store.checkProcessedAndRecord.bind(store);
		const cancelled = jest.spyOn(store, 'checkProcessedAndRecord').mockImplementationOnce(async (...args) => {
			const output = await record(...args);
			// n8n answers the sender 500 and aborts the execution while the store's write was under way.
			trigger.executionCancel.abort();
			return output;
		});
		const cancelledRun = first.run();
		await expect(cancelledRun).rejects.toThrow('n8n cancelled this execution before it answered the delivery');
		await expect(cancelledRun).rejects.toMatchObject({ description: 'The event was not recorded as received: the service sends it again.' });
		cancelled.mockRestore();
		expect(first.response.statusCode).toBe(500);

		trigger.executionCancel = new AbortController();
		const retry = await take(ended('c-cancel'));
		expect(retry.executed).toBe(true);
		const run = await retry.run();
		expect(run.output?.map((item) => item.json)).toEqual([ended('c-cancel')]);
		expect(retry.response.body).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
	});
});

describe('a retry that n8n runs while a cancelled execution takes its key back', () => {
	it('waits for that, and runs the event', async () => {
		const { trigger, take } = await activeTrigger({ repeatKey: 'event_id' });
		const event = ended('c-race');
		const first = await take(event);
		const store = processedDataStore();
		const record = store.checkProcessedAndRecord.bind(store);
		let retry: Promise<{ output: unknown[] }> | undefined;
		const cancelled = jest.spyOn(store, 'checkProcessedAndRecord').mockImplementationOnce(async (...args) => {
			const output = await record(...args);
			trigger.executionCancel.abort();
			// The service's retry, taken by the same n8n process while it stops, reaches the store now.
			const handover = { received: 1, repeats: 0, key: repeatKeyHash(event, ['event_id'], 'call.ended') };
			retry = trigger.execute([{ json: { ...event, [HANDOVER_FIELD]: handover } }], 'webhook', new AbortController().signal);
			return output;
		});
		await expect(first.run()).rejects.toThrow('n8n cancelled this execution');
		cancelled.mockRestore();
		const { output } = await retry!;
		expect(output).toEqual([{ json: event, pairedItem: { item: 0 } }]);
	});
});

describe('an execution n8n never runs (a queued one the user stopped): how long a retry relies on it', () => {
	// The module's settings: 6 s per attempt, 2 retries, so the third delivery is the sender's last.
	const WINDOW = { timeout: 6, retryLimit: 2 };
	const HALF_TIMEOUT_MS = 3000;

	afterEach(() => jest.useRealTimers());

	/** A retry whose sender gives up, as the service's attempts before the last do while the execution waits. */
	async function retryThatTimesOut(take: (body: unknown, response?: FakeResponse) => Promise<unknown>, body: unknown) {
		const response = new FakeResponse();
		const retry = take(body, response);
		expect(await isPending(retry)).toBe(true);
		response.hangUp();
		await retry;
	}

	it("the sender's last attempt (Retry Limit + 1) waits half its Timeout for the earlier answer, then starts its own execution, which runs the event", async () => {
		const { take } = await activeTrigger(WINDOW);
		const stopped = await take(ended('c-stop'));
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		await retryThatTimesOut(take, ended('c-stop'));
		const last = take(ended('c-stop'));
		await jest.advanceTimersByTimeAsync(HALF_TIMEOUT_MS - 1);
		expect(await isPending(last)).toBe(true);
		await jest.advanceTimersByTimeAsync(1);
		const taken = await last;
		expect(taken.executed).toBe(true);
		jest.useRealTimers();
		const run = await taken.run();
		expect(run.output?.map((item) => item.json)).toEqual([ended('c-stop')]);
		expect(taken.response.body).toEqual({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		// Had n8n run the first execution after all, Ignore Repeats lets the event run only once.
		expect((await stopped.run()).output).toEqual([]);
	});

	it('an answer that comes within that half releases the last attempt as a repeat, with no execution of its own', async () => {
		const { take } = await activeTrigger(WINDOW);
		const first = await take(ended('c-late'));
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		await retryThatTimesOut(take, ended('c-late'));
		const last = take(ended('c-late'));
		await jest.advanceTimersByTimeAsync(HALF_TIMEOUT_MS - 1);
		await first.run();
		const answered = await last;
		expect([answered.executed, answered.response.statusCode, answered.response.body]).toEqual([false, 200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
	});

	it('an attempt before the last waits for the earlier answer until its sender hangs up, however long that is', async () => {
		const { take } = await activeTrigger(WINDOW);
		const first = await take(ended('c-early'));
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		const retry = take(ended('c-early'));
		await jest.advanceTimersByTimeAsync(10 * 60_000);
		expect(await isPending(retry)).toBe(true);
		await first.run();
		expect((await retry).executed).toBe(false);
	});

	it('a delivery Retry Limit × Timeout after the first is the last attempt too, though it is only the second seen here', async () => {
		const { take } = await activeTrigger(WINDOW);
		// The clock is n8n's from the first delivery on, so the second comes exactly Retry Limit × Timeout later.
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		await take(ended('c-clock'));
		await jest.advanceTimersByTimeAsync(WINDOW.retryLimit * WINDOW.timeout * 1000);
		const last = take(ended('c-clock'));
		await jest.advanceTimersByTimeAsync(HALF_TIMEOUT_MS);
		expect(await isPending(last)).toBe(false);
		const taken = await last;
		expect(taken.executed).toBe(true);
		await taken.run();
	});

	it('a last attempt waits at most half its Timeout though another last attempt took the event over meanwhile; the event still runs once', async () => {
		const { take } = await activeTrigger(WINDOW);
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		const stopped = await take(ended('c-race'));
		await retryThatTimesOut(take, ended('c-race'));
		const earlierLast = take(ended('c-race'));
		await jest.advanceTimersByTimeAsync(1000);
		const laterLast = take(ended('c-race'));
		await jest.advanceTimersByTimeAsync(HALF_TIMEOUT_MS - 1000);
		const tookOver = await earlierLast;
		expect(tookOver.executed).toBe(true);
		await jest.advanceTimersByTimeAsync(1000);
		expect(await isPending(laterLast)).toBe(false);
		const alsoRan = await laterLast;
		jest.useRealTimers();
		const outputs = await Promise.all([tookOver, alsoRan, stopped].map(async (taken) => (await taken.run()).output ?? []));
		expect(outputs.flat().map((item) => item.json)).toEqual([ended('c-race')]);
	});

	it('a copy after the hand-over waits for the new execution, and for at most half its Timeout too', async () => {
		const { take } = await activeTrigger(WINDOW);
		await take(ended('c-after'));
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		await retryThatTimesOut(take, ended('c-after'));
		const last = take(ended('c-after'));
		await jest.advanceTimersByTimeAsync(HALF_TIMEOUT_MS);
		const handedOver = await last;
		const copy = take(ended('c-after'));
		await jest.advanceTimersByTimeAsync(HALF_TIMEOUT_MS - 1);
		await handedOver.run();
		expect((await copy).executed).toBe(false);
	});
});

describe('how long and how many in-flight events a retry relies on', () => {
	type Response = Parameters<typeof claimEvents>[2];
	const response = () => new FakeResponse() as unknown as Response;
	const WINDOW = { timeout: 6, retryLimit: 5 };

	it("an in-flight record lives the sender's window, (Retry Limit + 1) × Timeout, plus a minute from the first delivery, and is then dropped", () => {
		const since = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(since);
		try {
			void claimEvents('limit-trigger', ['expired-hash'], response(), WINDOW);
			clock.mockReturnValue(since + 36_000 + IN_FLIGHT_MARGIN_MS - 1);
			expect(earlierAnswer('limit-trigger', 'expired-hash')).toBeDefined();
			clock.mockReturnValue(since + 36_000 + IN_FLIGHT_MARGIN_MS);
			expect(earlierAnswer('limit-trigger', 'expired-hash')).toBeUndefined();
		} finally {
			clock.mockRestore();
		}
	});

	it('a retry after the record was dropped starts an execution at once', async () => {
		const { take } = await activeTrigger({ timeout: 6, retryLimit: 5 });
		await take(ended('c-9'));
		const now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 36_000 + IN_FLIGHT_MARGIN_MS + 1);
		try {
			const retry = await take(ended('c-9'));
			expect(retry.executed).toBe(true);
		} finally {
			clock.mockRestore();
		}
	});

	it('holds at most 50,000 in-flight events, forgetting the oldest first', () => {
		const hashes = Array.from({ length: 50_001 }, (_, index) => `bound-${index}`);
		const answering = new FakeResponse();
		void claimEvents('bound-trigger', hashes, answering as unknown as Response, WINDOW);
		// Any records of earlier tests went first, then the oldest of these.
		expect(['bound-0', 'bound-1', 'bound-50000'].map((hash) => Boolean(earlierAnswer('bound-trigger', hash)))).toEqual([false, true, true]);
		answering.end();
	});

	it('the answer to an earlier delivery of an event leaves a later delivery\'s in-flight record of it in place', async () => {
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		try {
			// Retry Limit 1: the second delivery is the sender's last attempt, which takes the event over after half its Timeout.
			const lastAttemptWindow = { timeout: 6, retryLimit: 1 };
			const earlier = new FakeResponse();
			const later = new FakeResponse();
			void claimEvents('replace-trigger', ['same-event'], earlier as unknown as Response, lastAttemptWindow);
			const earlierRecord = earlierAnswer('replace-trigger', 'same-event');
			const takingOver = claimEvents('replace-trigger', ['same-event'], later as unknown as Response, lastAttemptWindow);
			await jest.advanceTimersByTimeAsync(3000);
			await expect(takingOver).resolves.toEqual([true]);
			const laterAnswer = earlierAnswer('replace-trigger', 'same-event');
			expect(laterAnswer).toBeDefined();
			expect(laterAnswer).not.toBe(earlierRecord);
			earlier.status(500).end();
			await new Promise((resolve) => setImmediate(resolve));
			expect(earlierAnswer('replace-trigger', 'same-event')).toBe(laterAnswer);
			later.end();
		} finally {
			jest.useRealTimers();
		}
	});

	it("a later delivery's record keeps the first one's attempts: its sender's next attempt is counted after them, and is the last", async () => {
		jest.useFakeTimers({ doNotFake: ['setImmediate'] });
		try {
			void claimEvents('count-trigger', ['counted'], response(), WINDOW);
			for (let attempt = 2; attempt <= 5; attempt++) {
				const hangingUp = new FakeResponse();
				const retry = claimEvents('count-trigger', ['counted'], hangingUp as unknown as Response, WINDOW);
				// Longer than the last attempt's wait, well within Retry Limit × Timeout of the first.
				await jest.advanceTimersByTimeAsync(4000);
				expect(await isPending(retry)).toBe(true);
				hangingUp.hangUp();
				await expect(retry).resolves.toBe(HUNG_UP);
			}
			// The sender's last attempt takes the event over after half its Timeout; the next one is counted after it.
			const firstAnswer = earlierAnswer('count-trigger', 'counted');
			const last = claimEvents('count-trigger', ['counted'], response(), WINDOW);
			await jest.advanceTimersByTimeAsync(3000);
			await expect(last).resolves.toEqual([true]);
			const lastAnswer = earlierAnswer('count-trigger', 'counted');
			expect([lastAnswer === undefined, lastAnswer === firstAnswer]).toEqual([false, false]);
			const afterLast = claimEvents('count-trigger', ['counted'], response(), WINDOW);
			await jest.advanceTimersByTimeAsync(2999);
			expect(await isPending(afterLast)).toBe(true);
			await jest.advanceTimersByTimeAsync(1);
			await expect(afterLast).resolves.toEqual([true]);
			expect(earlierAnswer('count-trigger', 'counted')).not.toBe(lastAnswer);
		} finally {
			jest.useRealTimers();
		}
	});
});

describe('a retry waiting for earlier answers', () => {
	type Response = Parameters<typeof claimEvents>[2];
	const WINDOW = { timeout: 6, retryLimit: 5 };
	const waiting = () => new FakeResponse();
	/** A key recorded as an earlier delivery's execution records it: claimed, then answered 2xx as new. */
	const recordThroughAClaim = async (trigger: string, key: string) => {
		const answered = waiting();
		void claimEvents(trigger, [key], answered as unknown as Response, WINDOW);
		answered.json({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		await new Promise(setImmediate);
	};

	it('whose earlier deliveries were one accepted, one failed runs the failed one\'s event itself', async () => {
		const accepting = waiting();
		const failing = waiting();
		void claimEvents('mixed-trigger', ['accepted'], accepting as unknown as Response, WINDOW);
		void claimEvents('mixed-trigger', ['failed'], failing as unknown as Response, WINDOW);
		const retry = claimEvents('mixed-trigger', ['accepted', 'failed'], waiting() as unknown as Response, WINDOW);
		accepting.json({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		failing.status(500).end();
		await expect(retry).resolves.toStrictEqual([false, true]);
		// The failed event is in flight again, through the retry; the accepted one is done.
		expect([earlierAnswer('mixed-trigger', 'accepted'), earlierAnswer('mixed-trigger', 'failed')].map(Boolean)).toEqual([false, true]);
	});

	it('whose earlier deliveries were all accepted runs nothing', async () => {
		const accepting = waiting();
		void claimEvents('accepted-trigger', ['a', 'b'], accepting as unknown as Response, WINDOW);
		const retry = claimEvents('accepted-trigger', ['a', 'b'], waiting() as unknown as Response, WINDOW);
		accepting.json({ status: 'ok', received: 2, accepted: 2, repeats: 0 });
		await expect(retry).resolves.toStrictEqual([false, false]);
		expect([earlierAnswer('accepted-trigger', 'a'), earlierAnswer('accepted-trigger', 'b')]).toEqual([undefined, undefined]);
	});

	it('whose earlier delivery was accepted with its event found in n8n\'s store already runs nothing', async () => {
		const accepting = waiting();
		void claimEvents('stored-trigger', ['known'], accepting as unknown as Response, WINDOW);
		const retry = claimEvents('stored-trigger', ['known'], waiting() as unknown as Response, WINDOW);
		// An answer with a repeat webhook() did not know of: the key is not cached, yet the event was recorded.
		accepting.json({ status: 'ok', received: 1, accepted: 0, repeats: 1 });
		await expect(retry).resolves.toStrictEqual([false]);
		expect(earlierAnswer('stored-trigger', 'known')).toBeUndefined();
	});

	it('with an event that has no key, or none in flight, does not wait', async () => {
		const earlier = waiting();
		void claimEvents('keyless-trigger', ['held'], earlier as unknown as Response, WINDOW);
		const heldAnswer = earlierAnswer('keyless-trigger', 'held');
		await expect(claimEvents('keyless-trigger', ['held', undefined], waiting() as unknown as Response, WINDOW)).resolves.toStrictEqual([true, true]);
		await expect(claimEvents('keyless-trigger', ['held', 'other'], waiting() as unknown as Response, WINDOW)).resolves.toStrictEqual([true, true]);
		// The event in flight stays tied to its earlier delivery; only the other is marked in flight by the last.
		expect(earlierAnswer('keyless-trigger', 'held')).toBe(heldAnswer);
		expect(earlierAnswer('keyless-trigger', 'other')).toBeDefined();
		earlier.end();
	});

	it('with a recorded repeat beside an event in flight waits for that event\'s answer', async () => {
		await recordThroughAClaim('half-recorded-trigger', 'recorded');
		const held = waiting();
		void claimEvents('half-recorded-trigger', ['held'], held as unknown as Response, WINDOW);
		const retry = claimEvents('half-recorded-trigger', ['recorded', 'held'], waiting() as unknown as Response, WINDOW);
		expect(await isPending(retry)).toBe(true);
		held.json({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		await expect(retry).resolves.toStrictEqual([false, false]);
		expect(earlierAnswer('half-recorded-trigger', 'held')).toBeUndefined();
	});

	it('whose sender already hung up does not wait: no answer, whatever the earlier deliveries get', async () => {
		void claimEvents('hung-up-trigger', ['held'], waiting() as unknown as Response, WINDOW);
		const response = waiting();
		response.hangUp();
		await expect(claimEvents('hung-up-trigger', ['held'], response as unknown as Response, WINDOW)).resolves.toBe(HUNG_UP);
	});

	it('stops listening for its sender hanging up once the answers came', async () => {
		const earlier = waiting();
		void claimEvents('listening-trigger', ['held'], earlier as unknown as Response, WINDOW);
		const response = waiting();
		const retry = claimEvents('listening-trigger', ['held'], response as unknown as Response, WINDOW);
		expect(response.listenerCount('close')).toBe(1);
		earlier.json({ status: 'ok', received: 1, accepted: 1, repeats: 0 });
		await retry;
		expect(response.listenerCount('close')).toBe(0);
	});

	it('a delivery that runs only its new events caches them when its answer\'s repeats are the ones webhook() knew', async () => {
		await recordThroughAClaim('known-repeat-trigger', 'recorded');
		const mixed = waiting();
		await expect(claimEvents('known-repeat-trigger', ['recorded', 'new'], mixed as unknown as Response, WINDOW)).resolves.toStrictEqual([false, true]);
		expect([earlierAnswer('known-repeat-trigger', 'recorded'), earlierAnswer('known-repeat-trigger', 'new')].map(Boolean)).toEqual([false, true]);
		mixed.json({ status: 'ok', received: 2, accepted: 1, repeats: 1 });
		await new Promise(setImmediate);
		expect(isRecordedRepeat('known-repeat-trigger', 'new')).toBe(true);
	});

	it('a delivery with no event to track leaves its response as n8n made it', () => {
		const response = waiting();
		const end = response.end;
		void claimEvents('no-events-trigger', [], response as unknown as Response, { timeout: 30, retryLimit: 3 });
		expect(response.end).toBe(end);
	});
});

describe('a bounded map', () => {
	it('forgets its oldest entry first past its size limit; setting a key again makes it the newest', () => {
		const map = new BoundedMap<string, number>(2);
		map.set('a', 1);
		map.set('b', 2);
		map.set('a', 3);
		map.set('c', 4);
		expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
	});
});
