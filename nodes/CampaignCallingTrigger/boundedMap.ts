/** A Map whose entries expire and whose oldest entries go first past a size limit. */
export class BoundedMap<K, V> {
	private readonly entries = new Map<K, { value: V; expiresAt: number }>();

	private readonly limits: { maxEntries: number; lifetimeMs: number; onDelete?: (key: K) => void };

	/** `onDelete` hears of every entry that leaves: expired, pushed out or deleted. */
	constructor(maxEntries: number, lifetimeMs = Infinity, onDelete?: (key: K) => void) {
		this.limits = { maxEntries, lifetimeMs, onDelete };
	}

	get size(): number {
		return this.entries.size;
	}

	get(key: K): V | undefined {
		const entry = this.entries.get(key);
		if (entry === undefined) return undefined;
		if (Date.now() < entry.expiresAt) return entry.value;
		this.delete(key);
		return undefined;
	}

	/** Adds `key` as the newest entry, replacing any earlier one, to expire `lifetimeMs` after `since`. */
	set(key: K, value: V, since = Date.now(), lifetimeMs = this.limits.lifetimeMs): void {
		this.entries.delete(key);
		this.entries.set(key, { value, expiresAt: since + lifetimeMs });
		if (this.entries.size > this.limits.maxEntries) this.delete(this.oldestKey() as K);
	}

	delete(key: K): void {
		if (this.entries.delete(key)) this.limits.onDelete?.(key);
	}

	oldestKey(): K | undefined {
		return this.entries.keys().next().value;
	}
}
