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
