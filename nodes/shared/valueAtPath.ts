/**
 * The value at `path` below `root`, through own properties only, so a key such as "constructor" never
 * reaches into a prototype; undefined where the path leaves the data. `isLeaf` marks objects the path
 * must not enter (the trigger's exact numbers).
 */
export function valueAtPath(root: unknown, path: readonly string[], isLeaf: (value: object) => boolean = () => false): unknown {
	let current: unknown = root;
	for (const key of path) {
		if (typeof current !== 'object' || current === null || isLeaf(current) || !Object.prototype.hasOwnProperty.call(current, key)) {
			return undefined;
		}
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}
