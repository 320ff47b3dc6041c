/*
 * Ignore Repeats' key cache: keys an execution here recorded as new and answered 2xx, so that a delivery
 * made only of these is answered without an execution (docs/trigger.md, "What a repeat costs").
 */

/** Half the keys n8n's store keeps per trigger (REMEMBERED_KEYS): the store forgets a trigger's oldest keys first. */
const CACHED_KEYS_PER_TRIGGER = 5_000;
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;
/** Bounds the cache as a whole, so the keys of a deactivated or deleted trigger age out. */
const MAX_CACHED_KEYS = 50_000;

/** Per trigger, its cached keys and when each was cached, oldest first. */
const cachedKeys = new Map<string, Map<string, number>>();
/** Every trigger's cached keys, oldest first: the bound over all triggers. */
const cacheOrder = new Map<string, { trigger: string; hash: string }>();

function forgetKey(trigger: string, hash: string): void {
	const keys = cachedKeys.get(trigger);
	keys?.delete(hash);
	if (keys?.size === 0) cachedKeys.delete(trigger);
	cacheOrder.delete(`${trigger}\n${hash}`);
}

export function isRecordedRepeat(trigger: string, hash: string): boolean {
	const cachedAt = cachedKeys.get(trigger)?.get(hash);
	if (cachedAt === undefined) return false;
	if (Date.now() - cachedAt < CACHED_KEY_LIFETIME_MS) return true;
	forgetKey(trigger, hash);
	return false;
}

/** Caches the keys of an answer that recorded every key as new. */
export function cacheRecordedKeys(trigger: string, hashes: string[]): void {
	for (const hash of hashes) {
		// A key cached already keeps its place, as it keeps its place in the store.
		if (isRecordedRepeat(trigger, hash)) continue;
		const keys = cachedKeys.get(trigger) ?? new Map<string, number>();
		cachedKeys.set(trigger, keys.set(hash, Date.now()));
		cacheOrder.set(`${trigger}\n${hash}`, { trigger, hash });
		if (keys.size > CACHED_KEYS_PER_TRIGGER) ageCachedKeys(trigger, 1);
		if (cacheOrder.size > MAX_CACHED_KEYS) {
			const first = cacheOrder.values().next().value as { trigger: string; hash: string };
			forgetKey(first.trigger, first.hash);
		}
	}
}

/** An answer that found keys recorded ages as many of the trigger's oldest cached keys, as the store ages them. */
export function ageCachedKeys(trigger: string, count: number): void {
	for (let aged = 0; aged < count; aged++) {
		const oldest = cachedKeys.get(trigger)?.keys().next().value;
		if (oldest !== undefined) forgetKey(trigger, oldest);
	}
}
