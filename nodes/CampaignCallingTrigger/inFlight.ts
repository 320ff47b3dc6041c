import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { ModuleRecord } from './registrations';
import { answerRecordedAllAsNew, cacheRecordedKeys, triggerEventKey } from './repeats';

type DeliveryResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/** The delivering module's settings: how long its sender waits per attempt (seconds) and how often it retries. */
export type SenderWindow = Pick<ModuleRecord, 'timeout' | 'retryLimit'>;

interface InFlightEvent {
	answered: Promise<boolean>;
	/** Deliveries of the event this process took since the first: the sender's attempt number of the latest. */
	attempts: number;
	/** When the first of them came. */
	since: number;
	window: SenderWindow;
}

/**
 * Events this process handed to n8n whose execution has not answered its delivery yet: it waits for
 * a slot (n8n's concurrency limit) or for a queue-mode worker. The service retries a delivery whose
 * answer takes longer than the module's Timeout; such a retry waits for the first execution's answer
 * instead of queueing an execution of its own, so a full queue does not fill up with retries.
 */
const inFlight = new Map<string, InFlightEvent>();

/**
 * How long a record outlives the sender's window, (Retry Limit + 1) × Timeout from the first delivery:
 * room for the service's pauses between attempts, which its interface does not show.
 */
export const IN_FLIGHT_MARGIN_MS = 60_000;
/** Bounds the map as the recorded-key cache is bounded; the oldest entries go first. */
const MAX_IN_FLIGHT = 50_000;

const senderWindowMs = ({ timeout, retryLimit }: SenderWindow) => (retryLimit + 1) * timeout * 1000;

function liveRecord(key: string): InFlightEvent | undefined {
	const entry = inFlight.get(key);
	if (entry === undefined) return undefined;
	if (Date.now() - entry.since > senderWindowMs(entry.window) + IN_FLIGHT_MARGIN_MS) {
		inFlight.delete(key);
		return undefined;
	}
	return entry;
}

/** The answer to the earlier delivery of this event that n8n is still running, if there is one here. */
export function earlierAnswer(trigger: string, hash: string): Promise<boolean> | undefined {
	return liveRecord(triggerEventKey(trigger, hash))?.answered;
}

/**
 * Counts this delivery as the next attempt of each of its events in flight here, and says how long it
 * may wait for their earlier answers: undefined (until its sender hangs up) unless it is the sender's
 * last attempt, by count (Retry Limit + 1) or by time (Retry Limit × Timeout after the first).
 */
export function countRetry(trigger: string, hashes: string[]): number | undefined {
	let limitMs: number | undefined;
	for (const hash of hashes) {
		const entry = liveRecord(triggerEventKey(trigger, hash));
		if (entry === undefined) continue;
		entry.attempts += 1;
		const { timeout, retryLimit } = entry.window;
		const last = entry.attempts > retryLimit || Date.now() - entry.since >= retryLimit * timeout * 1000;
		if (last) limitMs = Math.min(limitMs ?? Infinity, lastAttemptWaitMs(entry.window));
	}
	return limitMs;
}

/**
 * How long the sender's last attempt waits for an earlier execution's answer: half its Timeout. n8n may
 * never answer (a queued execution the user stopped), so the other half is left for an execution of
 * its own to start and answer before the sender gives up for good.
 */
function lastAttemptWaitMs(window: SenderWindow): number {
	return (window.timeout * 1000) / 2;
}

/**
 * Marks the delivery's events as in flight until n8n answers it, in place of any earlier delivery's
 * record of them (whose attempts and first time it keeps: the sender's window runs from its first
 * attempt). A 2xx answer comes only from the trigger's execute() once n8n's deduplication store holds
 * the events; when it says the execution found none of them there (its repeats are the `knownRepeats`
 * webhook() counted), they are cached as recorded here too (in queue mode this webhook process learns
 * of them without running execute()), else they age the trigger's cached keys as the store's.
 */
export function trackAnswer(trigger: string, hashes: string[], response: DeliveryResponse, window: SenderWindow, knownRepeats = 0): void {
	if (hashes.length === 0) return;
	const answer = whenAnswered(response);
	const answered = answer.then(({ accepted }) => accepted);
	const now = Date.now();
	for (const hash of hashes) {
		const key = triggerEventKey(trigger, hash);
		const earlier = liveRecord(key);
		inFlight.delete(key);
		inFlight.set(key, { answered, attempts: earlier?.attempts ?? 1, since: earlier?.since ?? now, window: earlier?.window ?? window });
		if (inFlight.size > MAX_IN_FLIGHT) inFlight.delete(inFlight.keys().next().value as string);
	}
	void answer.then(({ accepted, body }) => {
		for (const hash of hashes) {
			const key = triggerEventKey(trigger, hash);
			if (inFlight.get(key)?.answered === answered) inFlight.delete(key);
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
export const WAITED_LONG_ENOUGH = 'waited long enough';

/**
 * Waits for the answers to the earlier deliveries: true when all were accepted, false when one
 * failed; HUNG_UP when this delivery's sender hung up first (it sends the event again), and
 * WAITED_LONG_ENOUGH after `limitMs` (countRetry's), when this delivery starts an execution itself.
 */
export async function awaitEarlierAnswers(
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

/** How many events are in flight in this process (for tests). */
export function inFlightCount(): number {
	return inFlight.size;
}
