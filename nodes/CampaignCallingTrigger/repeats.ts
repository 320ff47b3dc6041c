import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { InvalidInputError, quote } from '../shared/validation';

/** How many keys each trigger remembers; older ones are forgotten first. */
export const REMEMBERED_KEYS = 10_000;

/**
 * Characters of a key's SHA-256 (base64url) that are kept: 96 bits. Among 10,000 keys the chance
 * that two different keys share a hash is below 1 in 10^20; 10,000 stored keys take about 270 kB.
 */
const HASH_CHARS = 16;

/** Where in the node's static data (saved by n8n in its database) the key hashes live, oldest first. */
const STORED_KEYS = 'repeatKeys';

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
 * The hash that identifies an event among this trigger's deliveries, or undefined when the event
 * lacks the key (such an event is never a repeat). The event type is part of it, so a call's
 * call.started and call.ended events with one call_id are different events.
 */
export function repeatKeyHash(event: IDataObject, path: string[], eventType: string): string | undefined {
	const value = valueAt(event, path);
	if (value === undefined || value === null || value === '') return undefined;
	return createHash('sha256')
		.update(`${eventType}\n${canonicalJson(value)}`)
		.digest('base64url')
		.slice(0, HASH_CHARS);
}

function valueAt(event: IDataObject, path: string[]): unknown {
	let current: unknown = event;
	for (const segment of path) {
		// Own properties only: a path such as "constructor" must not reach into the prototype.
		if (typeof current !== 'object' || current === null || !Object.prototype.hasOwnProperty.call(current, segment)) {
			return undefined;
		}
		current = (current as Record<string, unknown>)[segment];
	}
	return current;
}

/** JSON with object keys sorted, so one event hashes the same whatever order its fields arrive in. */
function canonicalJson(value: unknown): string {
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
 * Keys recorded by this n8n process, per trigger, with when they were recorded, oldest first. n8n
 * loads a workflow's static data once per request and saves it afterwards, so two deliveries
 * handled at the same time both see the data as it was before either: without this, both would
 * start an execution for one key, and the second save would drop the key the first one recorded.
 */
const recentKeysByTrigger = new Map<string, Map<string, number>>();

function recentKeysOf(trigger: string): Map<string, number> {
	let recent = recentKeysByTrigger.get(trigger);
	if (recent === undefined) {
		recent = new Map();
		recentKeysByTrigger.set(trigger, recent);
	}
	return recent;
}

/** A stored key is its hash followed by the time it was recorded (milliseconds, base 36). */
function storedKey(hash: string, at: number): string {
	return `${hash}${at.toString(36)}`;
}

function recordedAt(stored: string): number {
	return parseInt(stored.slice(HASH_CHARS), 36);
}

function readStoredKeys(staticData: IDataObject): string[] {
	const stored = staticData[STORED_KEYS];
	if (!Array.isArray(stored)) return [];
	return stored.filter((entry): entry is string => typeof entry === 'string' && entry.length > HASH_CHARS);
}

/**
 * Marks which keys were seen before (true = repeat) and records the others, both in this process
 * and in the node's static data, which n8n saves in its database after the delivery. A key twice
 * in one list counts as a repeat the second time; an undefined key is never a repeat.
 */
export function checkAndRecordKeys(
	staticData: IDataObject,
	trigger: string,
	keys: Array<string | undefined>,
	now: number,
): boolean[] {
	const stored = readStoredKeys(staticData);
	const storedHashes = new Set(stored.map((entry) => entry.slice(0, HASH_CHARS)));
	const recent = recentKeysOf(trigger);

	const repeats = keys.map((key) => {
		if (key === undefined) return false;
		if (storedHashes.has(key) || recent.has(key)) return true;
		recent.set(key, now);
		if (recent.size > REMEMBERED_KEYS) recent.delete(recent.keys().next().value as string);
		return false;
	});

	// Keys of this process the stored list lacks: new ones, and ones a concurrent save (another
	// delivery, another webhook process) overwrote. Keys older than a full list's oldest were
	// pushed out by newer ones from elsewhere and stay out.
	const oldestKept = stored.length >= REMEMBERED_KEYS ? recordedAt(stored[0]) : -Infinity;
	const missing: string[] = [];
	for (const [hash, at] of recent) {
		if (!storedHashes.has(hash) && at >= oldestKept) missing.push(storedKey(hash, at));
	}
	if (missing.length === 0) return repeats;

	const newestStored = stored.length > 0 ? recordedAt(stored[stored.length - 1]) : -Infinity;
	// Usually every missing key is newer than the list; an overwritten one has to be put in its place.
	const merged =
		recordedAt(missing[0]) >= newestStored
			? stored.concat(missing)
			: stored.concat(missing).sort((a, b) => recordedAt(a) - recordedAt(b));
	staticData[STORED_KEYS] = merged.slice(-REMEMBERED_KEYS);
	return repeats;
}
