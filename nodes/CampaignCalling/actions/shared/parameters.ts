import type { IDataObject, IExecuteFunctions, INodeParameters, NodeParameterValueType } from 'n8n-workflow';

/**
 * Reads node parameters for many items while paying n8n's expression cost (about 0.4 ms per
 * expression per item) only where it buys something:
 * - a parameter with no expression anywhere in it is evaluated once per execution;
 * - a parameter that is exactly `{{ $json.path }}` (dotted or bracketed keys) is read straight
 *   from the item when the value found is text, a number or a boolean: what n8n's own evaluation
 *   returns for it. Anything else (a missing key, null, an object, any other expression) is left
 *   to n8n, so its results and errors stay n8n's own;
 * - `getEach` evaluates several single-`{{ }}` expressions of an item in one pass (see there).
 */
export class ParameterReader {
	private readonly context: IExecuteFunctions;

	private readonly rawParameters: INodeParameters;

	private readonly constants = new Map<string, unknown>();

	private readonly jsonPaths = new Map<string, string[] | null>();

	private readonly expressionBodies = new Map<string, string | null>();

	private inputItems: Array<{ json: IDataObject }> | undefined;

	constructor(context: IExecuteFunctions) {
		this.context = context;
		this.rawParameters = context.getNode().parameters;
	}

	/** The parameter's value for an item; `name` may be a dotted path such as `options.batchSize`. */
	get<T>(name: string, itemIndex: number, fallback?: T): T {
		if (this.constants.has(name)) return this.constants.get(name) as T;

		const path = this.jsonPathOf(name);
		if (path) {
			const value = this.readItemPath(itemIndex, path);
			if (isPlainValue(value)) return value as T;
		}

		return this.evaluate(name, itemIndex, fallback);
	}

	/** n8n's own evaluation; a parameter without expressions is kept for the rest of the execution. */
	private evaluate<T>(name: string, itemIndex: number, fallback?: T): T {
		const value = this.context.getNodeParameter(name, itemIndex, fallback as NodeParameterValueType) as T;
		if (!containsExpression(rawAt(this.rawParameters, name))) this.constants.set(name, value);
		return value;
	}

	/**
	 * Several parameters' values for one item, in the order named. Expressions the fast path cannot
	 * take are evaluated together, as one array expression, when each is a single `{{ }}` block:
	 * n8n 2.x pays a round trip into its expression sandbox (and builds its data proxy) per
	 * evaluation, so three fields cost one trip instead of three. Only text, numbers and booleans
	 * are taken from that pass; any other value, and any failure, is left to n8n's own evaluation
	 * of that parameter, so its results and errors stay n8n's.
	 */
	getEach(names: string[], itemIndex: number, fallbacks: unknown[] = []): unknown[] {
		const values: unknown[] = new Array(names.length);
		const resolved = new Array<boolean>(names.length).fill(false);
		const combinable: number[] = [];
		names.forEach((name, index) => {
			if (this.constants.has(name)) {
				values[index] = this.constants.get(name);
				resolved[index] = true;
				return;
			}
			const path = this.jsonPathOf(name);
			const fromItem = path ? this.readItemPath(itemIndex, path) : undefined;
			if (isPlainValue(fromItem)) {
				values[index] = fromItem;
				resolved[index] = true;
			} else if (this.expressionBodyOf(name) !== null) {
				combinable.push(index);
			}
		});

		if (combinable.length > 1) {
			const together = this.evaluateTogether(
				combinable.map((index) => this.expressionBodyOf(names[index]) as string),
				itemIndex,
			);
			combinable.forEach((index, position) => {
				if (together && isPlainValue(together[position])) {
					values[index] = together[position];
					resolved[index] = true;
				}
			});
		}

		names.forEach((name, index) => {
			if (!resolved[index]) values[index] = this.evaluate(name, itemIndex, fallbacks[index]);
		});
		return values;
	}

	private evaluateTogether(bodies: string[], itemIndex: number): unknown[] | undefined {
		// Each body on its own lines, so a trailing // comment cannot swallow what follows.
		const expression = `{{ [${bodies.map((body) => `(\n${body}\n)`).join(',')}] }}`;
		try {
			const result = this.context.evaluateExpression(expression, itemIndex);
			return Array.isArray(result) && result.length === bodies.length ? result : undefined;
		} catch {
			return undefined;
		}
	}

	/** The inside of `={{ ... }}` when that is the parameter's whole value, else null. */
	private expressionBodyOf(name: string): string | null {
		let body = this.expressionBodies.get(name);
		if (body === undefined) {
			const raw = rawAt(this.rawParameters, name);
			const match = typeof raw === 'string' ? /^=\{\{([\s\S]*)\}\}$/.exec(raw) : null;
			body = match && !match[1].includes('{{') && !match[1].includes('}}') && match[1].trim() !== '' ? match[1] : null;
			this.expressionBodies.set(name, body);
		}
		return body;
	}

	private jsonPathOf(name: string): string[] | null {
		let path = this.jsonPaths.get(name);
		if (path === undefined) {
			const raw = rawAt(this.rawParameters, name);
			path = typeof raw === 'string' ? parseJsonReference(raw) : null;
			this.jsonPaths.set(name, path);
		}
		return path;
	}

	private readItemPath(itemIndex: number, path: string[]): unknown {
		this.inputItems ??= this.context.getInputData() as Array<{ json: IDataObject }>;
		let current: unknown = this.inputItems[itemIndex]?.json;
		for (const key of path) {
			if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) {
				return undefined;
			}
			current = (current as Record<string, unknown>)[key];
		}
		return current;
	}
}

/** Text, a number or a boolean: values n8n hands back from an expression unchanged. */
function isPlainValue(value: unknown): value is string | number | boolean {
	return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

const IDENTIFIER = '[A-Za-z_$][A-Za-z0-9_$]*';
const SEGMENT = new RegExp(`^(?:\\.(${IDENTIFIER})|\\[\\s*(?:'([^'\\\\]*)'|"([^"\\\\]*)")\\s*\\])`);

/**
 * The keys of `={{ $json.a.b }}` / `={{ $json["a b"] }}`, or null for any other expression.
 * Only plain keys qualify: no calls, no numeric indexes, no prototype tricks.
 */
export function parseJsonReference(raw: string): string[] | null {
	const match = /^=\{\{\s*\$json((?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[\s*(?:'[^'\\]*'|"[^"\\]*")\s*\])+)\s*\}\}$/.exec(raw);
	if (!match) return null;
	const keys: string[] = [];
	let rest = match[1];
	while (rest.length > 0) {
		const segment = SEGMENT.exec(rest);
		if (!segment) return null;
		const key = segment[1] ?? segment[2] ?? segment[3];
		if (key === '__proto__' || key === 'constructor' || key === 'prototype') return null;
		keys.push(key);
		rest = rest.slice(segment[0].length);
	}
	return keys;
}

function rawAt(parameters: INodeParameters, path: string): unknown {
	let current: unknown = parameters;
	for (const key of path.split('.')) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}

/** n8n marks an expression by a leading `=` on a string value, at any depth of the parameter. */
export function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(containsExpression);
	return false;
}
