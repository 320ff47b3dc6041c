/** The value at `path` through own properties only, so "constructor" never reaches a prototype; `isLeaf` marks objects not to enter. */
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

/** The value at each path (undefined where there is none), in one call for the reads of one item. */
export function valuesAtPaths(root: unknown, paths: Array<readonly string[] | null>): unknown[] {
	return paths.map((path) => (path === null ? undefined : valueAtPath(root, path)));
}
