import type { IExecuteFunctions, NodeParameterValueType } from 'n8n-workflow';

import { valueAtPath } from '../../../shared/valueAtPath';

/**
 * Several parameters of one item, in the order named, at a fraction of n8n's expression cost: plain values and
 * `{{ $json.path }}` read directly, other expressions evaluated together; anything else left to n8n (ARCHITECTURE.md).
 */
export function readItemParameters(context: IExecuteFunctions, itemIndex: number, names: string[], fallbacks: unknown[] = []): unknown[] {
	const item = context.getInputData()[itemIndex]?.json;
	const values: unknown[] = new Array(names.length);
	const resolved = new Array<boolean>(names.length).fill(false);
	const combinable: Array<{ index: number; body: string }> = [];
	names.forEach((name, index) => {
		// As written in the node, expressions unevaluated; not getNode(), which copies the whole node.
		const raw: unknown = context.getNodeParameter(name, itemIndex, fallbacks[index] as NodeParameterValueType, { rawExpressions: true });
		if (isPlainValue(raw) && !(typeof raw === 'string' && raw.startsWith('='))) {
			values[index] = raw;
			resolved[index] = true;
			return;
		}
		if (typeof raw !== 'string') return;
		const path = parseJsonReference(raw);
		const fromItem = path ? valueAtPath(item, path) : undefined;
		if (isPlainValue(fromItem)) {
			values[index] = fromItem;
			resolved[index] = true;
			return;
		}
		const body = expressionBody(raw);
		if (body !== null) combinable.push({ index, body });
	});

	if (combinable.length > 1) {
		const together = evaluateTogether(
			context,
			combinable.map(({ body }) => body),
			itemIndex,
		);
		combinable.forEach(({ index }, position) => {
			if (together && isPlainValue(together[position])) {
				values[index] = together[position];
				resolved[index] = true;
			}
		});
	}

	names.forEach((name, index) => {
		if (!resolved[index]) values[index] = context.getNodeParameter(name, itemIndex, fallbacks[index] as NodeParameterValueType);
	});
	return values;
}

function evaluateTogether(context: IExecuteFunctions, bodies: string[], itemIndex: number): unknown[] | undefined {
	// Each body on its own lines, so a trailing // comment cannot swallow what follows.
	const expression = `{{ [${bodies.map((body) => `(\n${body}\n)`).join(',')}] }}`;
	try {
		const result = context.evaluateExpression(expression, itemIndex);
		return Array.isArray(result) && result.length === bodies.length ? result : undefined;
	} catch {
		return undefined;
	}
}

/** The inside of `={{ ... }}` when that is the parameter's whole value, else null. */
function expressionBody(raw: string): string | null {
	const match = /^=\{\{([\s\S]*)\}\}$/.exec(raw);
	if (!match || match[1].includes('{{') || match[1].includes('}}') || match[1].trim() === '') return null;
	return match[1];
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
function parseJsonReference(raw: string): string[] | null {
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
