import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { cacheRecordedKeys, inFlightEvents, inFlightLifetimeMs, isRecordedRepeat, triggerEventKey } from './processState';
import type { SenderWindow } from './processState';
import { answerRecordedAllAsNew } from './repeats';

/** A delivery's answer, from in flight to answered, failed or taken back: docs/trigger.md, "When n8n's queue is full". */
type DeliveryResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Holds a delivery while its events are in flight here, until their earlier answers come, then marks
 * those it runs in flight. HUNG_UP when its sender hung up; a failed earlier answer is not waited for again.
 */
export async function claimEvents(
	trigger: string,
	keys: Array<string | undefined>,
	response: DeliveryResponse,
	sender: SenderWindow,
): Promise<typeof HUNG_UP | { toRun: boolean[]; takesOver: string[] }> {
	const limitMs = countRetry(trigger, keys.filter((key): key is string => key !== undefined));
	// Answers not waited for again: seen failing, or waited for as long as this attempt may.
	const givenUp = new Set<Promise<boolean>>();
	const openAnswer = (key: string | undefined) => {
		const answer = key === undefined ? undefined : inFlightEvents.get(triggerEventKey(trigger, key))?.answered;
		return answer === undefined || givenUp.has(answer) ? undefined : answer;
	};
	const unrecorded = () => keys.map((key) => key === undefined || !isRecordedRepeat(trigger, key));
	/** The open answers of the events to run, or undefined when one of them has none to wait for. */
	const awaited = (runs: boolean[]) => {
		const answers = keys.filter((_, index) => runs[index]).map(openAnswer);
		return answers.every((answer) => answer !== undefined) ? answers : undefined;
	};
	let runs = unrecorded();
	let earlier = awaited(runs);
	while (runs.some(Boolean) && earlier !== undefined) {
		const outcome = await awaitEarlierAnswers(earlier, response, limitMs);
		if (outcome === HUNG_UP) return HUNG_UP;
		if (outcome === true) return { toRun: keys.map(() => false), takesOver: [] };
		for (const answer of earlier) givenUp.add(answer);
		if (outcome === WAITED_LONG_ENOUGH) break;
		runs = unrecorded();
		earlier = awaited(runs);
	}
	const takesOver = keys.filter((key, index): key is string => runs[index] && key !== undefined && openAnswer(key) === undefined);
	// No await between the look above and this mark: a copy taken meanwhile would run the event too.
	trackAnswer(trigger, takesOver, response, sender, runs.filter((run) => !run).length);
	return { toRun: runs, takesOver };
}

/** Counts this delivery as the next attempt of its events in flight; only the sender's last attempt waits a limited time. */
function countRetry(trigger: string, hashes: string[]): number | undefined {
	let limitMs: number | undefined;
	for (const hash of hashes) {
		const entry = inFlightEvents.get(triggerEventKey(trigger, hash));
		if (entry === undefined) continue;
		entry.attempts += 1;
		const { timeout, retryLimit } = entry.window;
		const last = entry.attempts > retryLimit || Date.now() - entry.since >= retryLimit * timeout * 1000;
		// Half its Timeout: the other half leaves an execution of its own time to answer.
		if (last) limitMs = Math.min(limitMs ?? Infinity, (timeout * 1000) / 2);
	}
	return limitMs;
}

/**
 * Marks the events in flight until n8n answers the delivery. A 2xx answer that recorded every event as
 * new caches their keys (a queue-mode webhook process learns it from the worker's answer).
 */
function trackAnswer(trigger: string, hashes: string[], response: DeliveryResponse, window: SenderWindow, knownRepeats = 0): void {
	if (hashes.length === 0) return;
	const answer = whenAnswered(response);
	const answered = answer.then(({ accepted }) => accepted);
	const now = Date.now();
	for (const hash of hashes) {
		const key = triggerEventKey(trigger, hash);
		const earlier = inFlightEvents.get(key);
		const record = { answered, attempts: earlier?.attempts ?? 1, since: earlier?.since ?? now, window: earlier?.window ?? window };
		inFlightEvents.set(key, record, record.since, inFlightLifetimeMs(record.window));
	}
	void answer.then(({ accepted, body }) => {
		for (const hash of hashes) {
			const key = triggerEventKey(trigger, hash);
			if (inFlightEvents.get(key)?.answered === answered) inFlightEvents.delete(key);
		}
		if (accepted) cacheRecordedKeys(trigger, hashes, answerRecordedAllAsNew(body, knownRepeats));
	});
}

/** Resolves with n8n's answer to the delivery: end() is patched as n8n ends a response whose sender left without 'finish'. */
function whenAnswered(response: DeliveryResponse): Promise<{ accepted: boolean; body: unknown }> {
	return new Promise((resolve) => {
		const end = response.end;
		response.end = function (this: DeliveryResponse, ...args: unknown[]) {
			response.end = end;
			resolve({ accepted: response.statusCode >= 200 && response.statusCode < 300, body: args[0] });
			return (end as (...endArgs: unknown[]) => DeliveryResponse).apply(this, args);
		} as DeliveryResponse['end'];
	});
}

/** Why a retry stopped waiting for the earlier answers without one of them failing. */
export const HUNG_UP = 'hung up';
const WAITED_LONG_ENOUGH = 'waited long enough';

/** true when all earlier answers were accepted, false when one failed, or why it stopped waiting first. */
async function awaitEarlierAnswers(
	answers: Array<Promise<boolean>>,
	response: DeliveryResponse,
	limitMs?: number,
): Promise<boolean | typeof HUNG_UP | typeof WAITED_LONG_ENOUGH> {
	if (response.closed) return HUNG_UP;
	let hangUp = () => {};
	const hungUp = new Promise<typeof HUNG_UP>((resolve) => {
		hangUp = () => resolve(HUNG_UP);
		response.once('close', hangUp);
	});
	const waits: Array<Promise<boolean | typeof HUNG_UP | typeof WAITED_LONG_ENOUGH>> = [
		Promise.all(answers).then((accepted) => accepted.every(Boolean)),
		hungUp,
	];
	if (limitMs !== undefined) waits.push(sleep(limitMs).then(() => WAITED_LONG_ENOUGH));
	try {
		return await Promise.race(waits);
	} finally {
		response.off('close', hangUp);
	}
}
