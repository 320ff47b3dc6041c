/** A Map whose oldest entries go first past a size limit: for the trigger's per-process memory. */
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
