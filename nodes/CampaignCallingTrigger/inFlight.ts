import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { cacheRecordedKeys, inFlightEvents, inFlightLifetimeMs, isRecordedRepeat, triggerEventKey } from './processState';
import type { SenderWindow } from './processState';
import { answerRecordedAllAsNew } from './repeats';

/**
 * The lifecycle of a delivery's answer, for the events webhook() hands to n8n with Ignore Repeats on:
 * - **in flight**: trackAnswer() records each event (processState.ts, inFlightEvents) until n8n answers
 *   the delivery. A retry of an event in flight waits for that answer (claimEvents) instead
 *   of queueing an execution of its own, so a full execution queue does not fill up with retries; the
 *   sender's last attempt waits at most half its Timeout, since n8n may never run a queued execution
 *   the user stopped.
 * - **answered**: execute() recorded the events in n8n's deduplication store and answered 2xx. The record
 *   goes; the waiting retries are answered as repeats; when the execution found every event new, its keys
 *   are cached (processState.ts, recordedKeys) so later copies are answered at once.
 * - **failed**: n8n answered non-2xx (the execution failed, or n8n could not create it). The record goes,
 *   and a waiting retry starts an execution of its own.
 * - **taken back**: n8n cancelled the execution after it recorded an event (repeats.ts,
 *   checkAndRecordKeys): it removes the key from the store again, and its delivery is answered 500, so
 *   the service's retry finds the event new.
 * A record outlives none of this by more than the sender's retry window plus a minute.
 */
type DeliveryResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Claims a delivery's events: holds it while each of its events not seen recorded here is in flight,
 * until those earlier deliveries are answered, then marks the events it runs in flight (trackAnswer)
 * in the same step as its last look, so no other copy of them, taken meanwhile, claims them too.
 * Returns HUNG_UP when its sender hung up meanwhile, else the events its own execution runs (`runs`)
 * and those whose answer it now gives (`takesOver`). A failed earlier answer is not waited for again:
 * the delivery looks again, and runs the event unless another retry took it over.
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

/**
 * Counts this delivery as the next attempt of each of its events in flight here, and says how long it
 * may wait for their earlier answers: undefined (until its sender hangs up) unless it is the sender's
 * last attempt, by count (Retry Limit + 1) or by time (Retry Limit × Timeout after the first).
 */
function countRetry(trigger: string, hashes: string[]): number | undefined {
	let limitMs: number | undefined;
	for (const hash of hashes) {
		const entry = inFlightEvents.get(triggerEventKey(trigger, hash));
		if (entry === undefined) continue;
		entry.attempts += 1;
		const { timeout, retryLimit } = entry.window;
		const last = entry.attempts > retryLimit || Date.now() - entry.since >= retryLimit * timeout * 1000;
		// Half its Timeout: the other half leaves an execution of its own time to start and answer.
		if (last) limitMs = Math.min(limitMs ?? Infinity, (timeout * 1000) / 2);
	}
	return limitMs;
}

/**
 * Marks the delivery's events in flight until n8n answers it, in place of an earlier delivery's record
 * (whose attempts and first time it keeps). A 2xx answer whose repeats are only the `knownRepeats`
 * webhook() counted caches the keys as recorded (a queue-mode webhook process learns it from the
 * worker's answer), any other 2xx ages the trigger's cached keys as the store's.
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

/**
 * Resolves once n8n answers the delivery, with whether it was 2xx and the body it sent (Express's
 * res.json ends with it). n8n answers through the response's end() even after the sender stopped
 * waiting, when Node emits no 'finish' on it, so end() is where the answer is seen, in the process
 * that took the delivery (also when a queue-mode worker ran it).
 */
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
