import type { IDataObject, IExecuteFunctions, NodeParameterValueType } from 'n8n-workflow';

import { valueAtPath } from '../../../shared/valueAtPath';

/** A parameter this fast path could not read; n8n reads it. */
const UNREAD = Symbol('unread');

/**
 * Several parameters of one item, in the order named, at a fraction of n8n's expression cost: plain values and
 * `{{ $json.path }}` read directly, other expressions evaluated together; anything else left to n8n (ARCHITECTURE.md).
 */
export function readItemParameters(context: IExecuteFunctions, itemIndex: number, names: string[], fallbacks: unknown[] = []): unknown[] {
	const item = context.getInputData()[itemIndex]?.json;
	// As written in the node, expressions unevaluated; not getNode(), which copies the whole node.
	const raws: unknown[] = names.map((name, index) =>
		context.getNodeParameter(name, itemIndex, fallbacks[index] as NodeParameterValueType, { rawExpressions: true }),
	);
	const values = raws.map((raw) => readWithoutEvaluating(raw, item));
	const expressions = raws.flatMap((raw, index) => {
		const body = values[index] === UNREAD && typeof raw === 'string' ? expressionBody(raw) : null;
		return body === null ? [] : [{ index, body }];
	});
	if (expressions.length > 1) {
		const together = evaluateTogether(
			context,
			expressions.map(({ body }) => body),
			itemIndex,
		);
		expressions.forEach(({ index }, position) => {
			if (together && isPlainValue(together[position])) values[index] = together[position];
		});
	}
	return values.map((value, index) =>
		value === UNREAD ? context.getNodeParameter(names[index], itemIndex, fallbacks[index] as NodeParameterValueType) : value,
	);
}

/** A plain value as written, or `{{ $json.path }}` when the item holds a plain value there; else UNREAD. */
function readWithoutEvaluating(raw: unknown, item: IDataObject | undefined): unknown {
	if (isPlainValue(raw) && !(typeof raw === 'string' && raw.startsWith('='))) return raw;
	const path = typeof raw === 'string' ? parseJsonReference(raw) : null;
	const fromItem = path ? valueAtPath(item, path) : undefined;
	return isPlainValue(fromItem) ? fromItem : UNREAD;
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

const JSON_KEY_PATH = /^=\{\{\s*\$json((?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[\s*(?:'[^'\\]*'|"[^"\\]*")\s*\])+)\s*\}\}$/;
const JSON_KEY = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*\]/g;

/**
 * The keys of `={{ $json.a.b }}` / `={{ $json["a b"] }}`, or null for any other expression.
 * Only plain keys qualify: no calls, no numeric indexes, no prototype tricks.
 */
function parseJsonReference(raw: string): string[] | null {
	const match = JSON_KEY_PATH.exec(raw);
	if (!match) return null;
	const keys = [...match[1].matchAll(JSON_KEY)].map((key) => key[1] ?? key[2] ?? key[3]);
	return keys.some((key) => key === '__proto__' || key === 'constructor' || key === 'prototype') ? null : keys;
}
