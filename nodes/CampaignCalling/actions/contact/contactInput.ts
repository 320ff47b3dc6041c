import type { IDataObject, IExecuteFunctions, NodeParameterValueType } from 'n8n-workflow';

import type { CampaignContacts } from '../../../shared/validation';
import { requireCampaignContacts, requireOneOf } from '../../../shared/validation';
import { valuesAtPaths } from '../../../shared/valueAtPath';
import { campaignIdHint } from '../campaign/fields';

/*
 * How an input item becomes contacts in the service's shape, in each Input Mode of Add to Campaign, every
 * contact checked before anything is sent; the item's parameters read by a fast path, as this runs per item.
 */

const INPUT_MODES = ['fields', 'autoMap', 'json'] as const;

/** Field spellings accepted in Auto-Map mode, in order of preference. */
const AUTO_MAP_SPELLINGS: Record<'firstname' | 'lastname' | 'phone_number', string[]> = {
	firstname: ['firstname', 'first_name', 'firstName'],
	lastname: ['lastname', 'last_name', 'lastName'],
	phone_number: ['phone_number', 'phone', 'phoneNumber'],
};

/** An Auto-Map item's contact, each field taken from the first of its spellings that holds a value. */
function autoMapped(json: IDataObject): IDataObject {
	const contact: IDataObject = { metadata: json.metadata };
	for (const [field, spellings] of Object.entries(AUTO_MAP_SPELLINGS)) {
		contact[field] = spellings.map((key) => json[key]).find((value) => value !== undefined && value !== null);
	}
	return contact;
}

/** One item's campaign and contacts, checked; Map Each Field's parameters read in one pass, so their expressions are evaluated together. */
export function readCampaignContacts(this: IExecuteFunctions, itemIndex: number): CampaignContacts {
	// The parameter takes no expression: read as written.
	const rawMode = this.getNodeParameter('inputMode', itemIndex, 'fields', { rawExpressions: true });
	const mode = rawMode === 'fields' ? rawMode : requireOneOf(rawMode, 'Input Mode', INPUT_MODES);
	if (mode === 'fields') {
		const [campaignId, firstname, lastname, phoneNumber, metadata] = readItemParameters(
			this,
			itemIndex,
			['campaignId', 'firstName', 'lastName', 'phoneNumber', 'additionalFields.metadata'],
			[undefined, undefined, undefined, undefined, ''],
		);
		const contact = { firstname, lastname, phone_number: phoneNumber, metadata: metadata === '{}' ? undefined : metadata };
		return requireCampaignContacts(campaignId, contact, campaignIdHint);
	}
	const [campaignId] = readItemParameters(this, itemIndex, ['campaignId']);
	if (mode === 'autoMap') return requireCampaignContacts(campaignId, autoMapped(this.getInputData()[itemIndex].json), campaignIdHint);
	return requireCampaignContacts(campaignId, this.getNodeParameter('contactsJson', itemIndex), campaignIdHint, 'Contacts (JSON)');
}

/** A parameter this fast path could not read; n8n reads it. */
const UNREAD = Symbol('unread');

/**
 * Several parameters of one item, in the order named, at a fraction of n8n's expression cost: plain values and
 * `{{ $json.path }}` read directly, other expressions evaluated together; anything else left to n8n (ARCHITECTURE.md).
 */
export function readItemParameters(context: IExecuteFunctions, itemIndex: number, names: string[], fallbacks: unknown[] = []): unknown[] {
	const item = context.getInputData()[itemIndex].json;
	// As written in the node, expressions unevaluated; not getNode(), which copies the whole node.
	const raws: unknown[] = names.map((name, index) =>
		context.getNodeParameter(name, itemIndex, fallbacks[index] as NodeParameterValueType, { rawExpressions: true }),
	);
	// `{{ $json.path }}` looked up in the item all at once; a plain value as written.
	const fromItem = valuesAtPaths(item, raws.map((raw) => (isWritten(raw) || typeof raw !== 'string' ? null : parseJsonReference(raw))));
	const values = raws.map((raw, index) => (isWritten(raw) ? raw : isPlainValue(fromItem[index]) ? fromItem[index] : UNREAD));
	const expressions = raws.flatMap((raw, index) => {
		const body = values[index] === UNREAD && typeof raw === 'string' ? expressionBody(raw) : null;
		return body === null ? [] : [{ index, body }];
	});
	if (expressions.length > 1) {
		const together = evaluateTogether(context, expressions.map(({ body }) => body), itemIndex);
		expressions.forEach(({ index }, position) => {
			if (together && isPlainValue(together[position])) values[index] = together[position];
		});
	}
	return values.map((value, index) =>
		value === UNREAD ? context.getNodeParameter(names[index], itemIndex, fallbacks[index] as NodeParameterValueType) : value,
	);
}

/** A plain value that is no expression. */
function isWritten(raw: unknown): raw is string | number | boolean {
	return isPlainValue(raw) && !(typeof raw === 'string' && raw.startsWith('='));
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
