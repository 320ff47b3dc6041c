import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { jsonParse, sleep } from 'n8n-workflow';

/*
 * What this process knows of its deliveries' events: those in flight (handed to n8n, not answered yet)
 * and those recorded here (answered 2xx). docs/trigger.md, "When n8n's queue is full".
 */

/** A Map whose oldest entries go first past a size limit. */
export class BoundedMap<K, V> extends Map<K, V> {
	private readonly maxEntries: number;

	constructor(maxEntries: number) {
		super();
		this.maxEntries = maxEntries;
	}

	/** Adds `key` as the newest entry, replacing any earlier one. */
	set(key: K, value: V): this {
		this.delete(key);
		super.set(key, value);
		if (this.size > this.maxEntries) this.delete(this.keys().next().value as K);
		return this;
	}
}

/**
 * Keys an execution here recorded as new and answered 2xx: a delivery made only of these is answered
 * without an execution. The store forgets a trigger's oldest keys first, so a key is cached in recording
 * order while fewer than half the store's keys were handed to executions here, for 10 minutes at most
 * (docs/trigger.md, "What a repeat costs").
 */
/** Half the keys n8n's store keeps per trigger (REMEMBERED_KEYS). */
const CACHED_KEYS_PER_TRIGGER = 5_000;
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;
/** Bounds the cache as a whole, so the keys of a deactivated or deleted trigger age out. */
const MAX_CACHED_KEYS = 50_000;

/** Per trigger, its cached keys and when each was cached, oldest first. */
const cachedKeys = new Map<string, Map<string, number>>();
/** Every trigger's cached keys, oldest first: the bound over all triggers. */
const cacheOrder = new Map<string, { trigger: string; hash: string }>();

/** One trigger's event key among all triggers' in this process. */
export const triggerEventKey = (trigger: string, hash: string) => `${trigger}\n${hash}`;

function forgetKey(trigger: string, hash: string): void {
	const keys = cachedKeys.get(trigger);
	keys?.delete(hash);
	if (keys?.size === 0) cachedKeys.delete(trigger);
	cacheOrder.delete(triggerEventKey(trigger, hash));
}

export function isRecordedRepeat(trigger: string, hash: string): boolean {
	const cachedAt = cachedKeys.get(trigger)?.get(hash);
	if (cachedAt === undefined) return false;
	if (Date.now() - cachedAt < CACHED_KEY_LIFETIME_MS) return true;
	forgetKey(trigger, hash);
	return false;
}

/**
 * Called once an execution answered 2xx. Only an answer that recorded every key as new caches them;
 * any other ages as many of the trigger's oldest cached keys, as the store ages them.
 */
export function cacheRecordedKeys(trigger: string, hashes: string[], recordedAsNew = true): void {
	for (const hash of hashes) {
		const keys = cachedKeys.get(trigger) ?? new Map<string, number>();
		const oldest = keys.keys().next().value;
		if (!recordedAsNew) {
			if (oldest !== undefined) forgetKey(trigger, oldest);
			continue;
		}
		// A key cached already keeps its place, as it keeps its place in the store.
		if (isRecordedRepeat(trigger, hash)) continue;
		cachedKeys.set(trigger, keys.set(hash, Date.now()));
		cacheOrder.set(triggerEventKey(trigger, hash), { trigger, hash });
		if (keys.size > CACHED_KEYS_PER_TRIGGER) forgetKey(trigger, oldest as string);
		if (cacheOrder.size > MAX_CACHED_KEYS) {
			const first = cacheOrder.values().next().value as { trigger: string; hash: string };
			forgetKey(first.trigger, first.hash);
		}
	}
}

/** The delivering module's settings: how long its sender waits per attempt (seconds) and how often it retries. */
export interface SenderWindow {
	timeout: number;
	retryLimit: number;
}

/** An event handed to n8n whose delivery is not answered yet. */
export interface InFlightEvent {
	/** Resolves with whether n8n answered the delivery 2xx. */
	answered: Promise<boolean>;
	/** Deliveries of the event this process took since the first: the sender's attempt number of the latest. */
	attempts: number;
	/** When the first of them came. */
	since: number;
	window: SenderWindow;
}

/** The sender's window, (Retry Limit + 1) × Timeout, and a minute for its pauses between attempts (not shown). */
export const inFlightLifetimeMs = ({ timeout, retryLimit }: SenderWindow) => (retryLimit + 1) * timeout * 1000 + 60_000;

/** Events handed to n8n whose execution, waiting for a slot or a queue-mode worker, has not answered yet. */
const inFlightEvents = new BoundedMap<string, InFlightEvent>(MAX_CACHED_KEYS);

export function inFlightEvent(key: string): InFlightEvent | undefined {
	const event = inFlightEvents.get(key);
	if (event === undefined || Date.now() < event.since + inFlightLifetimeMs(event.window)) return event;
	inFlightEvents.delete(key);
	return undefined;
}

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
		const answer = key === undefined ? undefined : inFlightEvent(triggerEventKey(trigger, key))?.answered;
		return answer === undefined || givenUp.has(answer) ? undefined : answer;
	};
	const unrecorded = () => keys.map((key) => key === undefined || !isRecordedRepeat(trigger, key));
	/** The open answers of the events to run, or undefined when one of them has none to wait for. */
	const awaited = (toRun: boolean[]) => {
		const answers = keys.filter((_, index) => toRun[index]).map(openAnswer);
		return answers.every((answer) => answer !== undefined) ? answers : undefined;
	};
	let toRun = unrecorded();
	let earlier = awaited(toRun);
	while (toRun.some(Boolean) && earlier !== undefined) {
		const outcome = await awaitEarlierAnswers(earlier, response, limitMs);
		if (outcome === HUNG_UP) return HUNG_UP;
		if (outcome === true) return { toRun: keys.map(() => false), takesOver: [] };
		for (const answer of earlier) givenUp.add(answer);
		if (outcome === WAITED_LONG_ENOUGH) break;
		toRun = unrecorded();
		earlier = awaited(toRun);
	}
	const takesOver = keys.filter((key, index): key is string => toRun[index] && key !== undefined && openAnswer(key) === undefined);
	// No await between the look above and this mark: a copy taken meanwhile would run the event too.
	trackAnswer(trigger, takesOver, response, sender, toRun.filter((run) => !run).length);
	return { toRun, takesOver };
}

/** Counts this delivery as the next attempt of its events in flight; only the sender's last attempt waits a limited time. */
function countRetry(trigger: string, hashes: string[]): number | undefined {
	let limitMs: number | undefined;
	for (const hash of hashes) {
		const entry = inFlightEvent(triggerEventKey(trigger, hash));
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
		const earlier = inFlightEvent(key);
		const record = { answered, attempts: earlier?.attempts ?? 1, since: earlier?.since ?? now, window: earlier?.window ?? window };
		inFlightEvents.set(key, record);
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

/** Whether an execution's answer (JSON, as text or parsed) says it recorded every event it was handed as new. */
export function answerRecordedAllAsNew(body: unknown, knownRepeats: number): boolean {
	const answer = typeof body === 'string' || body instanceof Uint8Array ? jsonParse<unknown>(String(body), { fallbackValue: null }) : body;
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
