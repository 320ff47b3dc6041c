import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { jsonParse, sleep } from 'n8n-workflow';

import { BoundedMap } from './boundedMap';

/*
 * Ignore Repeats' key cache: keys an execution here recorded as new and answered 2xx, so that a delivery
 * made only of these is answered without an execution (docs/trigger-reference.md, "Ignoring repeated deliveries in detail").
 */

/** Half the keys n8n's store keeps per trigger (REMEMBERED_KEYS): the store forgets a trigger's oldest keys first. */
const CACHED_KEYS_PER_TRIGGER = 5_000;
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;
/** Bounds the cache as a whole, so the keys of a deactivated or deleted trigger age out. */
const MAX_CACHED_KEYS = 50_000;

/** Per trigger, its cached keys and when each was cached, oldest first; the trigger that cached last goes last. */
const cachedKeys = new Map<string, Map<string, number>>();
/** Cached keys over all triggers. */
let cachedCount = 0;

function forgetKey(triggerKey: string, hash: string): void {
	const keys = cachedKeys.get(triggerKey);
	if (keys?.delete(hash) === true) cachedCount -= 1;
	if (keys?.size === 0) cachedKeys.delete(triggerKey);
}

export function isRecordedRepeat(triggerKey: string, hash: string): boolean {
	const cachedAt = cachedKeys.get(triggerKey)?.get(hash);
	if (cachedAt === undefined) return false;
	if (Date.now() - cachedAt < CACHED_KEY_LIFETIME_MS) return true;
	forgetKey(triggerKey, hash);
	return false;
}

/** Caches the keys of an answer that recorded every key as new. */
export function cacheRecordedKeys(triggerKey: string, hashes: string[]): void {
	for (const hash of hashes) {
		// A key cached already keeps its place, as it keeps its place in the store.
		if (isRecordedRepeat(triggerKey, hash)) continue;
		const keys = cachedKeys.get(triggerKey) ?? new Map<string, number>();
		// Past the bound over all triggers, the trigger that cached longest ago loses its oldest key: a deleted one's go first.
		cachedKeys.delete(triggerKey);
		cachedKeys.set(triggerKey, keys.set(hash, Date.now()));
		cachedCount += 1;
		if (keys.size > CACHED_KEYS_PER_TRIGGER) ageCachedKeys(triggerKey, 1);
		if (cachedCount > MAX_CACHED_KEYS) ageCachedKeys(cachedKeys.keys().next().value as string, 1);
	}
}

/** An answer that found keys recorded ages as many of the trigger's oldest cached keys, as the store ages them. */
export function ageCachedKeys(triggerKey: string, count: number): void {
	for (let aged = 0; aged < count; aged++) {
		const oldest = cachedKeys.get(triggerKey)?.keys().next().value;
		if (oldest !== undefined) forgetKey(triggerKey, oldest);
	}
}

/*
 * The in-flight tie: events handed to n8n whose delivery is not answered yet, and the retries that wait
 * for that answer instead of starting an execution (docs/trigger-reference.md, "When n8n's queue is full, in detail").
 */

/** The Timeout (seconds) and Retry Limit of the module a delivery came through. */
export type DeliveryWindow = { timeout: number; retryLimit: number };

interface InFlightEvent {
	/** Resolves with whether n8n answered the delivery 2xx. */
	answered: Promise<boolean>;
	/** Deliveries of the event this process took since the first: the sender's attempt number of the latest. */
	attempts: number;
	/** When the first of them came. */
	since: number;
	window: DeliveryWindow;
}

/** The sender's window, (Retry Limit + 1) × Timeout, and a minute for its pauses between attempts. */
export const inFlightLifetimeMs = ({ timeout, retryLimit }: DeliveryWindow) => (retryLimit + 1) * timeout * 1000 + 60_000;

/** Keyed by eventKey; bounded so that a flood cannot grow it without end. */
const inFlightEvents = new BoundedMap<string, InFlightEvent>(50_000);

const eventKey = (triggerKey: string, hash: string) => `${triggerKey}\n${hash}`;

export function inFlightEvent(triggerKey: string, hash: string): InFlightEvent | undefined {
	const key = eventKey(triggerKey, hash);
	const event = inFlightEvents.get(key);
	if (event === undefined || Date.now() < event.since + inFlightLifetimeMs(event.window)) return event;
	inFlightEvents.delete(key);
	return undefined;
}

type DeliveryResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

/**
 * Which events to run, or HUNG_UP: while they are in flight here the delivery waits for their earlier
 * answers (not again for one that failed), then marks those it runs in flight.
 */
export async function claimEvents(
	triggerKey: string,
	keys: Array<string | undefined>,
	response: DeliveryResponse,
	module: DeliveryWindow,
): Promise<typeof HUNG_UP | boolean[]> {
	const limitMs = countRetry(triggerKey, keys);
	// Answers not waited for again: seen failing, or waited for as long as this attempt may.
	const givenUp = new Set<Promise<boolean>>();
	const openAnswer = (key: string | undefined) => {
		const answer = key === undefined ? undefined : inFlightEvent(triggerKey, key)?.answered;
		return answer === undefined || givenUp.has(answer) ? undefined : answer;
	};
	let toRun: boolean[];
	for (;;) {
		toRun = keys.map((key) => key === undefined || !isRecordedRepeat(triggerKey, key));
		const earlier = keys.filter((_, index) => toRun[index]).map(openAnswer);
		// Nothing to run, or an event to run that has no answer to wait for.
		if (!toRun.some(Boolean) || !earlier.every((answer) => answer !== undefined)) break;
		const outcome = await awaitEarlierAnswers(earlier, response, limitMs);
		if (outcome === HUNG_UP) return HUNG_UP;
		if (outcome === true) return keys.map(() => false);
		for (const answer of earlier) givenUp.add(answer);
		if (outcome === WAITED_LONG_ENOUGH) break;
	}
	const takesOver = keys.filter((key, index): key is string => toRun[index] && key !== undefined && openAnswer(key) === undefined);
	// No await between the look above and this mark: a copy taken meanwhile would run the event too.
	trackAnswer(triggerKey, takesOver, response, module, toRun.filter((run) => !run).length);
	return toRun;
}

/** Counts this delivery as the next attempt of its events in flight; only the sender's last attempt waits a limited time. */
function countRetry(triggerKey: string, keys: Array<string | undefined>): number | undefined {
	let limitMs: number | undefined;
	for (const key of keys) {
		const entry = key === undefined ? undefined : inFlightEvent(triggerKey, key);
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
function trackAnswer(triggerKey: string, hashes: string[], response: DeliveryResponse, window: DeliveryWindow, knownRepeats: number): void {
	if (hashes.length === 0) return;
	const answered = whenAnswered(response, (accepted, body) => {
		for (const hash of hashes) {
			const key = eventKey(triggerKey, hash);
			if (inFlightEvents.get(key)?.answered === answered) inFlightEvents.delete(key);
		}
		if (!accepted) return;
		if (answerRecordedAllAsNew(body, knownRepeats)) cacheRecordedKeys(triggerKey, hashes);
		else ageCachedKeys(triggerKey, hashes.length);
	});
	const now = Date.now();
	for (const hash of hashes) {
		const earlier = inFlightEvent(triggerKey, hash);
		const record = { answered, attempts: earlier?.attempts ?? 1, since: earlier?.since ?? now, window: earlier?.window ?? window };
		inFlightEvents.set(eventKey(triggerKey, hash), record);
	}
}

/**
 * Resolves with whether n8n answered the delivery 2xx, at end(), which n8n calls even after its sender
 * left (ARCHITECTURE.md); `settle` sees the answer first, before anyone waiting for it resumes.
 */
function whenAnswered(response: DeliveryResponse, settle: (accepted: boolean, body: unknown) => void): Promise<boolean> {
	return new Promise((resolve) => {
		const end = response.end;
		response.end = function (this: DeliveryResponse, ...args: unknown[]) {
			response.end = end;
			const accepted = response.statusCode >= 200 && response.statusCode < 300;
			settle(accepted, args[0]);
			resolve(accepted);
			return (end as (...endArgs: unknown[]) => DeliveryResponse).apply(this, args);
		} as DeliveryResponse['end'];
	});
}

/** Whether an execution's answer (JSON, as text or parsed) says it recorded every event it was handed as new. */
export function answerRecordedAllAsNew(body: unknown, knownRepeats: number): boolean {
	const text = body instanceof Uint8Array ? new TextDecoder().decode(body) : body;
	const answer = typeof text === 'string' ? jsonParse<unknown>(text, { fallbackValue: null }) : text;
	return typeof answer === 'object' && answer !== null && (answer as IDataObject).repeats === knownRepeats;
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
	const waits: Array<Promise<boolean | typeof HUNG_UP | typeof WAITED_LONG_ENOUGH>> = [
		Promise.all(answers).then((accepted) => accepted.every(Boolean)),
		new Promise((resolve) => {
			hangUp = () => resolve(HUNG_UP);
			response.once('close', hangUp);
		}),
	];
	if (limitMs !== undefined) waits.push(sleep(limitMs).then(() => WAITED_LONG_ENOUGH));
	try {
		return await Promise.race(waits);
	} finally {
		response.off('close', hangUp);
	}
}
