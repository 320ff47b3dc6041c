import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, randomString, sleep } from 'n8n-workflow';

import { valueAtPath } from '../shared/valueAtPath';
import { EVENT_TYPE_VALUES } from '../shared/vocabulary';
import { EVENT_HEADER } from './delivery';
import type { DeliveryRequest } from './delivery';

/** How many keys n8n's store keeps per trigger; older ones are forgotten first. */
export const REMEMBERED_KEYS = 10_000;

/** 96 bits of SHA-256: two of 10,000 keys share one with a chance below 1 in 10^20. */
function shortHash(text: string): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export interface KeyedEvent {
	entry: IDataObject;
	eventType: string;
	key: string | undefined;
}

/** The delivery's events of the selected types, each with its repeat key when there is a Repeat Key path (Ignore Repeats on). */
export function keyedEvents(entries: IDataObject[], request: DeliveryRequest, selected: Set<string>, keyPath: string[] | undefined): KeyedEvent[] {
	const registeredEvent = request.headers[EVENT_HEADER];
	const fallbackEvent = typeof registeredEvent === 'string' && EVENT_TYPE_VALUES.has(registeredEvent) ? registeredEvent : undefined;
	const keySource = keyPath ? keySources(entries, request.rawBody?.toString('utf8')) : [];
	return entries.flatMap((entry, index) => {
		const eventType = typeof entry.event_type === 'string' ? entry.event_type : fallbackEvent;
		// Modules of events no longer selected still deliver here; they are acknowledged and dropped.
		if (eventType === undefined || !selected.has(eventType)) return [];
		return [{ entry, eventType, key: keyPath ? repeatKeyHash(keySource[index], keyPath, eventType) : undefined }];
	});
}

/** A number whose JSON text a double does not hold (an id beyond 2^53): hashed by its exact value. */
class ExactNumber {
	readonly text: string;

	constructor(text: string) {
		this.text = text;
	}
}

/** A body may hold a number JSON parsing changed only with 16 or more digits, or a three-digit exponent. */
const MAY_LOSE_DIGITS = /\d(?:\.?\d){15}|[eE][+-]?\d{3}/;
const STRING_OR_NUMBER = new RegExp(String.raw`"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`, 'g');

/**
 * The events to take repeat keys from: the parsed ones, or, when the body may hold numbers that JSON
 * parsing rounded, the raw body parsed again with each number first written as a marked string.
 */
export function keySources(entries: IDataObject[], rawBody: string | undefined): unknown[] {
	if (rawBody === undefined || !MAY_LOSE_DIGITS.test(rawBody)) return entries;
	const marker = `#${randomString(16)}#`;
	const marked = rawBody.replace(STRING_OR_NUMBER, (token) => (token.startsWith('"') ? token : `"${marker}${token}"`));
	let exact: unknown;
	try {
		exact = JSON.parse(marked, (_key, value: unknown) =>
			typeof value === 'string' && value.startsWith(marker) ? exactNumber(value.slice(marker.length)) : value,
		);
	} catch {
		return entries;
	}
	return Array.isArray(exact) ? exact : [exact];
}

/** The parsed double where it holds the number's value (so it hashes as its JSON does), else its exact value. */
function exactNumber(source: string): number | ExactNumber {
	const parsed = Number(source);
	const exact = decimalValue(source);
	return exact === decimalValue(String(parsed)) ? parsed : new ExactNumber(exact ?? source);
}

/**
 * A number's value as one text per value: its significant digits and power of ten ("12e-1" for 1.20),
 * in full for integers up to 20 trailing zeros; undefined for what is not a decimal (String of Infinity).
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

/** An event's key as a hash, with its event type; undefined when it lacks the key (never a repeat). */
export function repeatKeyHash(event: unknown, path: string[], eventType: string): string | undefined {
	const value = valueAtPath(event, path, (value) => value instanceof ExactNumber);
	if (value === undefined || value === null || value === '') return undefined;
	return shortHash(`${eventType}\n${canonicalJson(value)}`);
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

/** n8n's deduplication store as the trigger uses it. */
export interface KeyStore {
	record: (hashes: string[]) => Promise<{ new: Array<string | number> }>;
	remove: (hashes: string[]) => Promise<void>;
	settle?: () => Promise<void>;
}

/** Keys found recorded are read again this much later: another process's cancelled execution may take its key back. */
export const REREAD_DELAY_MS = 1000;

/** Per trigger, its store update running now; an entry lives only while updates run. */
const storeQueues = new Map<string, Promise<unknown>>();

/** One trigger's store updates in turn: n8n's store reads, changes and writes back its list without a lock. */
async function oneAtATime<T>(triggerKey: string, task: () => Promise<T>): Promise<T> {
	const earlier = storeQueues.get(triggerKey);
	// Nothing queued: the task starts now, not a microtask later.
	const run = earlier === undefined ? task() : earlier.then(task);
	const settled = run.catch(() => undefined);
	storeQueues.set(triggerKey, settled);
	try {
		return await run;
	} finally {
		if (storeQueues.get(triggerKey) === settled) storeQueues.delete(triggerKey);
	}
}

/** Which events are repeats, the others recorded; throws when n8n cannot record them, so it answers 500 and the event comes again. */
export async function findRepeats(this: IExecuteFunctions, triggerKey: string, keys: Array<string | undefined>): Promise<boolean[]> {
	// Two entries per event: its key and the companion naming this execution.
	const storeOptions = { mode: 'entries' as const, maxEntries: 2 * REMEMBERED_KEYS };
	const store: KeyStore = {
		record: async (hashes) => await this.helpers.checkProcessedAndRecord(hashes, 'node', storeOptions),
		remove: async (hashes) => await this.helpers.removeProcessed(hashes, 'node', storeOptions),
		settle: async () => await sleep(REREAD_DELAY_MS),
	};
	// n8n aborts it when it cancels the execution after answering 500: the retry must find the event new.
	const cancelled = () => this.getExecutionCancelSignal()?.aborted === true;
	let isRepeat: boolean[] | undefined;
	try {
		isRepeat = await checkAndRecordKeys(store, triggerKey, this.getExecutionId(), keys, cancelled);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), error as Error, {
			description: "n8n could not record the event in its deduplication store, so n8n answers the delivery 500 and the service sends the event again.",
		});
	}
	if (isRepeat !== undefined) return isRepeat;
	throw new NodeOperationError(this.getNode(), 'n8n cancelled this execution before it answered the delivery', {
		description: 'The event was not recorded as received: the service sends it again.',
	});
}

/**
 * Marks repeats (true) and records the other keys with their companions; keys found recorded are read
 * again after `settle()`. undefined when n8n cancelled the execution: its new keys are taken back.
 */
export async function checkAndRecordKeys(
	store: KeyStore,
	triggerKey: string,
	execution: string,
	keys: Array<string | undefined>,
	cancelled: () => boolean,
): Promise<boolean[] | undefined> {
	const firstOccurrence = new Map<string, number>();
	keys.forEach((key, index) => {
		if (key !== undefined && !firstOccurrence.has(key)) firstOccurrence.set(key, index);
	});
	if (firstOccurrence.size === 0) return keys.map(() => false);
	const unique = [...firstOccurrence.keys()];
	// Names the execution beside its key: n8n 1.x re-runs a stalled queue-mode job, which must know its own keys.
	const companion = (key: string) => shortHash(`${key}\n${execution}`);

	/**
	 * One turn of the trigger's store queue: the keys this execution runs and those another recorded. A key
	 * found in the first turn is never this execution's own in the second (another write may restore its companion).
	 */
	const recordTurn = async (foundBefore?: Set<string>) =>
		await oneAtATime(triggerKey, async () => {
			// Waiting for the trigger's earlier updates may have outlasted the execution.
			if (cancelled()) return undefined;
			// Each companion before its key: an entry added for a moment pushes out a companion, not a key.
			const recorded = new Set((await recordInStore(store, unique.flatMap((key) => [companion(key), key]))).new.map(String));
			const toRun = unique.filter((key) => recorded.has(key) || (!recorded.has(companion(key)) && foundBefore?.has(key) !== true));
			const running = new Set(toRun);
			const found = unique.filter((key) => !running.has(key));
			const recordedNew = unique.filter((key) => recorded.has(key)).flatMap((key) => [companion(key), key]);
			const cancelledNow = cancelled();
			const takeBack = found.map(companion);
			if (cancelledNow || (foundBefore === undefined && found.length > 0)) takeBack.push(...recordedNew);
			if (takeBack.length > 0) await store.remove(takeBack);
			return cancelledNow ? undefined : { toRun, found };
		});

	let turn = await recordTurn();
	if (turn !== undefined && turn.found.length > 0) {
		await store.settle?.();
		turn = await recordTurn(new Set(turn.found));
	}
	if (turn === undefined) return undefined;
	const toRun = new Set(turn.toRun);
	return keys.map((key, index) => key !== undefined && (firstOccurrence.get(key) !== index || !toRun.has(key)));
}

/** The unique-key refusal as Postgres, SQLite and MySQL word it. */
const LOST_FIRST_INSERT = /duplicate key value violates unique constraint|UNIQUE constraint failed|Duplicate entry/;

/** Two workers that create a trigger's store row at once: the later insert fails, and recording again adds to the row. */
async function recordInStore(store: KeyStore, hashes: string[]): Promise<{ new: Array<string | number> }> {
	return await store
		.record(hashes)
		.catch(async (error: unknown) =>
			LOST_FIRST_INSERT.test(String((error as Error)?.message)) ? await store.record(hashes) : await Promise.reject(error),
		);
}
