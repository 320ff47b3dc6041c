import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { InvalidInputError, quote } from '../shared/validation';

/** How many keys each trigger remembers; older ones are forgotten first. */
export const REMEMBERED_KEYS = 10_000;

/**
 * Characters of a key's SHA-256 (base64url) that are kept: 96 bits. Among 10,000 keys the chance
 * that two different keys share a hash is below 1 in 10^20.
 */
const HASH_CHARS = 16;

const REPEAT_KEY_FIELD = 'Options → Repeat Key';

/** Repeat Key as path segments; empty means the whole event is the key. */
export function readRepeatKeyPath(value: unknown): string[] {
	if (value === undefined || value === null) return [];
	if (typeof value !== 'string') throw new InvalidInputError(REPEAT_KEY_FIELD, `must be text, got ${quote(value)}`);
	const text = value.trim();
	if (text === '') return [];
	const segments = text.split('.');
	if (segments.some((segment) => segment.trim() === '')) {
		throw new InvalidInputError(
			REPEAT_KEY_FIELD,
			`is not a dot path: ${quote(text)}`,
			'Name the field that identifies an event, for example data.call_id or event_id, or leave it empty to compare whole events.',
		);
	}
	return segments.map((segment) => segment.trim());
}

/**
 * A number of the delivery whose JSON text a double does not hold (an id beyond 2^53, say): it is
 * hashed by its exact decimal value, so ids that differ only in digits a double drops stay apart.
 */
class ExactNumber {
	readonly text: string;

	constructor(text: string) {
		this.text = text;
	}
}

/**
 * The hash that identifies an event among this trigger's deliveries, or undefined when the event
 * lacks the key (such an event is never a repeat). The event type is part of it, so a call's
 * call.started and call.ended events with one call_id are different events.
 */
export function repeatKeyHash(event: unknown, path: string[], eventType: string): string | undefined {
	const value = valueAt(event, path);
	if (value === undefined || value === null || value === '') return undefined;
	return createHash('sha256')
		.update(`${eventType}\n${canonicalJson(value)}`)
		.digest('base64url')
		.slice(0, HASH_CHARS);
}

function valueAt(event: unknown, path: string[]): unknown {
	let current: unknown = event;
	for (const segment of path) {
		// Own properties only: a path such as "constructor" must not reach into the prototype.
		if (
			typeof current !== 'object' ||
			current === null ||
			current instanceof ExactNumber ||
			!Object.prototype.hasOwnProperty.call(current, segment)
		) {
			return undefined;
		}
		current = (current as Record<string, unknown>)[segment];
	}
	return current;
}

/** JSON with object keys sorted, so one event hashes the same whatever order its fields arrive in. */
function canonicalJson(value: unknown): string {
	if (value instanceof ExactNumber) return value.text;
	if (Array.isArray(value)) return `[${value.map((element) => canonicalJson(element)).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const fields = Object.keys(value)
			.filter((name) => (value as Record<string, unknown>)[name] !== undefined)
			.sort()
			.map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
		return `{${fields.join(',')}}`;
	}
	return JSON.stringify(value);
}

/**
 * Whether a body may hold a number that JSON parsing changed: one with 16 or more digits, or an
 * exponent of three digits. Any other JSON number has at most 15 significant digits within a double's
 * normal range, which a double holds exactly, so most deliveries skip the second parse.
 */
const MAY_LOSE_DIGITS = /\d(?:\.?\d){15}|[eE][+-]?\d{3}/;

/**
 * The events to take repeat keys from: the parsed ones, or, when the body may hold numbers that JSON
 * parsing rounded, the same events parsed again from the raw body with those numbers kept exactly.
 */
export function keySources(entries: IDataObject[], rawBody: string | undefined): unknown[] {
	if (rawBody === undefined || !MAY_LOSE_DIGITS.test(rawBody)) return entries;
	let exact: unknown;
	try {
		exact = parseKeepingNumbers(rawBody);
	} catch {
		return entries;
	}
	const exactEntries = Array.isArray(exact) ? exact : [exact];
	return exactEntries.length === entries.length ? exactEntries : entries;
}

/** JSON.parse with each number that a double does not hold kept as its exact value. */
export function parseKeepingNumbers(text: string): unknown {
	return SOURCE_TEXT_IN_REVIVER ? parseWithSourceText(text) : parseNumbersByHand(text);
}

/**
 * Newer Node (V8 11.4 on, so Node 21 and later: n8n 2.x runs on 24) hands JSON.parse's reviver each
 * number's text; n8n 1.x may run on Node 20, which does not.
 */
export const SOURCE_TEXT_IN_REVIVER = (() => {
	try {
		return JSON.parse('1', (_key, value, context?: { source?: string }) => context?.source ?? value) === '1';
	} catch {
		return false;
	}
})();

export function parseWithSourceText(text: string): unknown {
	return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
		typeof value === 'number' && context?.source !== undefined ? exactNumber(context.source, value) : value,
	);
}

// A string token; JSON.parse then decodes it, refusing what JSON does not allow in a string.
const JSON_STRING = /"(?:[^"\\]|\\.)*"/y;
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON_SPACE = /[ \t\n\r]*/y;

/** The same JSON parse on a Node whose reviver gets no number text: a small parser of its own. */
export function parseNumbersByHand(text: string): unknown {
	let at = 0;
	const fail = (): never => {
		throw new SyntaxError(`Unexpected JSON at position ${at}`);
	};
	const match = (pattern: RegExp): string | undefined => {
		pattern.lastIndex = at;
		const found = pattern.exec(text);
		if (found === null) return undefined;
		at += found[0].length;
		return found[0];
	};
	const skipSpace = () => match(JSON_SPACE);
	const take = (expected: string) => {
		skipSpace();
		if (text[at] !== expected) fail();
		at++;
	};
	const readString = (): string => JSON.parse(match(JSON_STRING) ?? fail()) as string;
	const readValue = (): unknown => {
		skipSpace();
		const first = text[at];
		if (first === '{') {
			at++;
			// Own data properties as JSON.parse makes them, a "__proto__" field included.
			const object: Record<string, unknown> = {};
			skipSpace();
			if (text[at] === '}') return (at++, object);
			for (;;) {
				skipSpace();
				const name = readString();
				take(':');
				Object.defineProperty(object, name, { value: readValue(), enumerable: true, writable: true, configurable: true });
				skipSpace();
				if (text[at] === '}') return (at++, object);
				take(',');
			}
		}
		if (first === '[') {
			at++;
			const array: unknown[] = [];
			skipSpace();
			if (text[at] === ']') return (at++, array);
			for (;;) {
				array.push(readValue());
				skipSpace();
				if (text[at] === ']') return (at++, array);
				take(',');
			}
		}
		if (first === '"') return readString();
		for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
			if (text.startsWith(word, at)) return (at += word.length, value);
		}
		const number = match(JSON_NUMBER) ?? fail();
		return exactNumber(number, Number(number));
	};
	const value = readValue();
	skipSpace();
	if (at !== text.length) fail();
	return value;
}

/** The parsed double where it holds the number's value (so keys hash as they always did), else its exact value. */
function exactNumber(source: string, parsed: number): number | ExactNumber {
	const exact = decimalValue(source);
	return exact === decimalValue(String(parsed)) ? parsed : new ExactNumber(exact ?? source);
}

/**
 * A number's value as one text per value: its significant digits and power of ten ("12e-1" for 1.20),
 * written out in full for integers up to 20 trailing zeros. undefined for what is not a decimal
 * number (String of Infinity).
 */
function decimalValue(text: string): string | undefined {
	const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
	if (parts === null) return undefined;
	const [, sign, whole, fraction = '', exponent = '0'] = parts;
	let digits = `${whole}${fraction}`.replace(/^0+/, '');
	if (digits === '') return '0';
	let power = Number(exponent) - fraction.length;
	const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
	digits = digits.slice(0, digits.length - trailing);
	power += trailing;
	return power >= 0 && power <= 20 ? `${sign}${digits}${'0'.repeat(power)}` : `${sign}${digits}e${power}`;
}

/**
 * Keys this process saw an execution record as new in n8n's store, per trigger: a delivery made only
 * of these is answered without starting an execution. Only a cache (the store is the record), so it
 * must never call an event a repeat that the store would run. The store keeps a trigger's last
 * REMEMBERED_KEYS keys in the order they were recorded (a repeat does not move its key), and other
 * n8n processes record keys this one never sees; so a key is cached in recording order, for at most
 * CACHED_KEY_LIFETIME_MS, and only while fewer than CACHED_KEYS_PER_TRIGGER newer keys of its trigger
 * were handed to executions here. A key is then gone from the store while still cached only if other
 * processes recorded the other half of REMEMBERED_KEYS for that trigger within CACHED_KEY_LIFETIME_MS.
 */
export const CACHED_KEYS_PER_TRIGGER = REMEMBERED_KEYS / 2;
/**
 * The cache serves the service's retries of an answered event, which come once its attempt timed out
 * (within 2 minutes at the module's defaults); later copies start a short execution that asks the store.
 * Longer would let fewer events from other processes outdate a cached key; shorter, more repeats cost
 * an execution.
 */
export const CACHED_KEY_LIFETIME_MS = 10 * 60_000;
/** Bounds the cache as a whole, so the keys of a trigger that was deactivated or deleted age out. */
export const MAX_CACHED_KEYS = 50_000;
/** Per trigger, key → when it was cached, oldest first. */
const cachedByTrigger = new Map<string, Map<string, number>>();
/** Every cached key (trigger and key), oldest first, for the bound over all triggers. */
const cachedInOrder = new Map<string, true>();

/** One trigger's event key among all triggers' in this process (the recorded-key cache, the in-flight events). */
export const triggerEventKey = (trigger: string, hash: string) => `${trigger}\n${hash}`;

export function isRecordedRepeat(trigger: string, hash: string): boolean {
	const since = cachedByTrigger.get(trigger)?.get(hash);
	if (since === undefined) return false;
	if (Date.now() - since < CACHED_KEY_LIFETIME_MS) return true;
	forget(trigger, hash);
	return false;
}

/**
 * Called only once an execution answered the delivery 2xx. Its keys are cached only when it recorded
 * every one of them as new: a cached key must never hide an event that was not recorded, or whose
 * execution n8n cancelled, and a key the store already held may be the next one it forgets. Otherwise
 * some of them were recorded as new all the same, so as many of the trigger's oldest cached keys go,
 * as they go from the store. A key cached already keeps its place, as it keeps its place in the store.
 */
export function cacheRecordedKeys(trigger: string, hashes: string[], recordedAsNew = true): void {
	let cached = cachedByTrigger.get(trigger);
	if (!recordedAsNew) {
		for (let aged = 0; aged < hashes.length && cached !== undefined && cached.size > 0; aged++) {
			forget(trigger, cached.keys().next().value as string);
		}
		return;
	}
	if (cached === undefined) {
		cached = new Map();
		cachedByTrigger.set(trigger, cached);
	}
	const now = Date.now();
	for (const hash of hashes) {
		if (cached.has(hash)) continue;
		cached.set(hash, now);
		cachedInOrder.set(triggerEventKey(trigger, hash), true);
		if (cached.size > CACHED_KEYS_PER_TRIGGER) forget(trigger, cached.keys().next().value as string);
		if (cachedInOrder.size > MAX_CACHED_KEYS) {
			const oldest = cachedInOrder.keys().next().value as string;
			const split = oldest.lastIndexOf('\n');
			forget(oldest.slice(0, split), oldest.slice(split + 1));
		}
	}
}

function forget(trigger: string, hash: string): void {
	cachedInOrder.delete(triggerEventKey(trigger, hash));
	const cached = cachedByTrigger.get(trigger);
	cached?.delete(hash);
	if (cached?.size === 0) cachedByTrigger.delete(trigger);
}

/**
 * Whether an execution's answer (its JSON body, as text or parsed) says it recorded as new every
 * event it was handed, given how many of the delivery's events webhook() already knew as repeats.
 */
export function answerRecordedAllAsNew(body: unknown, knownRepeats: number): boolean {
	let answer: unknown = body;
	if (typeof body === 'string' || body instanceof Uint8Array) {
		try {
			answer = JSON.parse(String(body));
		} catch {
			return false;
		}
	}
	return typeof answer === 'object' && answer !== null && (answer as IDataObject).repeats === knownRepeats;
}

/** How many keys this process caches (for tests and the bench). */
export function cachedKeyCount(): number {
	return cachedInOrder.size;
}

/** n8n's deduplication store, narrowed to what the trigger uses: its checkProcessedAndRecord and removeProcessed. */
export interface KeyStore {
	record: (hashes: string[]) => Promise<{ new: Array<string | number> }>;
	remove: (hashes: string[]) => Promise<void>;
	/** Waits STORE_SETTLE_MS before keys found recorded are read again (absent: no wait). */
	settle?: () => Promise<void>;
}

/**
 * How long after finding keys recorded the trigger reads them again before it calls them repeats. An
 * execution in another process that recorded a key and was then cancelled takes the key back right
 * after its own store update returns (below): a copy that found the key meanwhile finds it gone when
 * it reads again, and runs the event. Far longer than the few database round trips the take-back
 * needs; only deliveries with a repeat found in the store wait it.
 */
export const STORE_SETTLE_MS = 1000;

const queues = new Map<string, Promise<unknown>>();

/**
 * Runs one trigger's store updates one after another within this process. n8n's store reads the
 * list, adds to it and writes it back: two executions doing that at once would both find a key new
 * (a doubled event) and the later write would drop the other's key.
 */
async function oneAtATime<T>(trigger: string, task: () => Promise<T>): Promise<T> {
	const previous = queues.get(trigger) ?? Promise.resolve();
	const run = previous.then(task, task);
	const settled = run.then(
		() => undefined,
		() => undefined,
	);
	queues.set(trigger, settled);
	try {
		return await run;
	} finally {
		if (queues.get(trigger) === settled) queues.delete(trigger);
	}
}

/**
 * Marks which keys were recorded before (true = repeat) and records the others in n8n's store. A
 * key twice in one delivery is a repeat the second time; an undefined key is never a repeat. Work
 * of this process per delivery is proportional to the delivery's keys, not to the keys remembered.
 *
 * Keys found recorded are read again after `store.settle()`, and only those still there are repeats:
 * one that another process's cancelled execution took back meanwhile is recorded by this execution.
 * When `cancelled()` says n8n cancelled the execution meanwhile, the keys it recorded are taken back
 * before the next update of this trigger runs, and undefined is returned: a retry of the event,
 * also one this process takes while n8n stops, must find it new.
 */
export async function checkAndRecordKeys(
	store: KeyStore,
	trigger: string,
	keys: Array<string | undefined>,
	cancelled: () => boolean,
): Promise<boolean[] | undefined> {
	const firstOccurrence = new Map<string, number>();
	keys.forEach((key, index) => {
		if (key !== undefined && !firstOccurrence.has(key)) firstOccurrence.set(key, index);
	});
	if (firstOccurrence.size === 0) return keys.map(() => false);

	const unique = [...firstOccurrence.keys()];
	const fresh = await recordUnlessCancelled(store, trigger, unique, [], cancelled);
	if (fresh === undefined) return undefined;
	const found = unique.filter((key) => !fresh.has(key));
	if (found.length > 0) {
		await store.settle?.();
		const takenBackElsewhere = await recordUnlessCancelled(store, trigger, found, [...fresh], cancelled);
		if (takenBackElsewhere === undefined) return undefined;
		for (const key of takenBackElsewhere) fresh.add(key);
	}
	return keys.map((key, index) => key !== undefined && (firstOccurrence.get(key) !== index || !fresh.has(key)));
}

/**
 * Records `keys` in one turn of the trigger's store queue and returns those that were new. When n8n
 * cancelled the execution, takes them back in the same turn, with `recordedBefore` (this execution's
 * keys of an earlier turn), and returns undefined.
 */
async function recordUnlessCancelled(
	store: KeyStore,
	trigger: string,
	keys: string[],
	recordedBefore: string[],
	cancelled: () => boolean,
): Promise<Set<string> | undefined> {
	return await oneAtATime(trigger, async () => {
		// Waiting for the trigger's earlier updates may have outlasted the execution.
		const recorded = cancelled() ? new Set<string>() : new Set((await recordInStore(store, keys)).new.map(String));
		if (!cancelled()) return recorded;
		const takeBack = [...recordedBefore, ...recorded];
		if (takeBack.length > 0) await store.remove(takeBack);
		return undefined;
	});
}

/** The unique-key refusal as Postgres, SQLite and MySQL word it. */
const LOST_FIRST_INSERT = /duplicate key value violates unique constraint|UNIQUE constraint failed|Duplicate entry/;

/**
 * n8n's store creates a trigger's row with an insert the first time it records, with no lock across
 * processes: when two queue-mode workers record a new trigger's first events at once, both find no row
 * and the later insert fails on the row's unique key (n8n would answer that delivery 500). By then the
 * other worker's row exists, so recording again adds these keys to it.
 */
async function recordInStore(store: KeyStore, hashes: string[]): Promise<{ new: Array<string | number> }> {
	return await store
		.record(hashes)
		.catch(async (error: unknown) =>
			LOST_FIRST_INSERT.test(String((error as Error)?.message)) ? await store.record(hashes) : await Promise.reject(error),
		);
}
