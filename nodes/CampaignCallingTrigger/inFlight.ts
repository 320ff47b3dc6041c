import type { IWebhookFunctions } from 'n8n-workflow';

import { answerRecordedAllAsNew, cacheRecordedKeys, triggerEventKey } from './repeats';

type DeliveryResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Events this process handed to n8n whose execution has not answered its delivery yet: it waits for
 * a slot (n8n's concurrency limit) or for a queue-mode worker. The service retries a delivery whose
 * answer takes longer than the module's Timeout; such a retry waits for the first execution's answer
 * instead of queueing an execution of its own, so a full queue does not fill up with retries.
 */
const inFlight = new Map<string, { since: number; answered: Promise<boolean> }>();

/**
 * n8n answers every delivery it took, when the execution answers, fails or is cancelled. This bounds
 * how long a retry relies on that all the same (a queue-mode job that n8n lost, say); after it, a
 * retry starts an execution, whose Ignore Repeats check still lets the event run only once.
 */
export const IN_FLIGHT_LIMIT_MS = 60 * 60_000;
/** Bounds the map as the recorded-key cache is bounded; the oldest entries go first. */
const MAX_IN_FLIGHT = 50_000;

/** The answer to the earlier delivery of this event that n8n is still running, if there is one here. */
export function earlierAnswer(trigger: string, hash: string): Promise<boolean> | undefined {
	const key = triggerEventKey(trigger, hash);
	const entry = inFlight.get(key);
	if (entry === undefined) return undefined;
	if (Date.now() - entry.since > IN_FLIGHT_LIMIT_MS) {
		inFlight.delete(key);
		return undefined;
	}
	return entry.answered;
}

/**
 * Marks the delivery's events as in flight until n8n answers it. A 2xx answer comes only from the
 * trigger's execute() once n8n's deduplication store holds the events; when it says the execution
 * found none of them there (its repeats are the `knownRepeats` webhook() counted), they are cached as
 * recorded here too (in queue mode this webhook process learns of them without running execute()),
 * else they age the trigger's cached keys as the store's.
 */
export function trackAnswer(trigger: string, hashes: string[], response: DeliveryResponse, knownRepeats = 0): void {
	if (hashes.length === 0) return;
	const answer = whenAnswered(response);
	const answered = answer.then(({ accepted }) => accepted);
	const since = Date.now();
	for (const hash of hashes) {
		inFlight.set(triggerEventKey(trigger, hash), { since, answered });
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

/**
 * Waits for the answers to the earlier deliveries: true when all were accepted, false when one
 * failed, undefined when this delivery's sender hung up first (it sends the event again).
 */
export async function awaitEarlierAnswers(
	answers: Array<Promise<boolean>>,
	response: DeliveryResponse,
): Promise<boolean | undefined> {
	if (response.closed) return undefined;
	let hangUp = () => {};
	const hungUp = new Promise<undefined>((resolve) => {
		hangUp = () => resolve(undefined);
		response.once('close', hangUp);
	});
	try {
		return await Promise.race([Promise.all(answers).then((accepted) => accepted.every(Boolean)), hungUp]);
	} finally {
		response.off('close', hangUp);
	}
}

/** How many events are in flight in this process (for tests). */
export function inFlightCount(): number {
	return inFlight.size;
}
