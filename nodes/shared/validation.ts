import type { IDataObject } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { isPlainObject } from './transport/envelope';
import { InvalidInputError } from './transport/failures';
import { parseHttpUrl } from './transport/request';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Shows a user's value in a message without flooding it. */
export function quote(value: unknown): string {
	let text: string;
	if (typeof value === 'string') text = `"${value}"`;
	else if (value === undefined) text = 'nothing';
	else {
		try {
			text = JSON.stringify(value) ?? String(value);
		} catch {
			text = String(value);
		}
	}
	return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function requireUuid(value: unknown, field: string, hint?: string): string {
	const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	if (text === '') {
		throw new InvalidInputError(field, 'is empty', hint ?? 'Enter the ID, for example 123e4567-e89b-12d3-a456-426614174000.');
	}
	if (!UUID_PATTERN.test(text)) {
		throw new InvalidInputError(
			field,
			`must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got ${quote(value)}`,
			hint,
		);
	}
	return text;
}

export function requireNonEmptyString(value: unknown, field: string, hint?: string): string {
	if (Number.isFinite(value)) return String(value);
	if (typeof value !== 'string') {
		throw new InvalidInputError(field, `must be text, got ${quote(value)}`, hint);
	}
	const text = value.trim();
	if (text === '') throw new InvalidInputError(field, 'is empty', hint);
	return text;
}

/** The service stores E.164 and accepts "various formats"; letters or a missing number never pass. */
export function requirePhoneNumber(value: unknown, field: string): string {
	const hint = 'Use a phone number such as +14155550123 or (415) 555-0123; spaces, dashes, dots and parentheses are fine.';
	const text = requireNonEmptyString(value, field, hint);
	if (!/^\+?[\d\s().-]+$/.test(text)) {
		throw new InvalidInputError(field, `may hold only digits, spaces, + - . ( ), got ${quote(text)}`, hint);
	}
	const digits = text.replace(/\D/g, '').length;
	if (digits < 5 || digits > 15) {
		throw new InvalidInputError(field, `must have between 5 and 15 digits, got ${quote(text)}`, hint);
	}
	return text;
}

const NOT_JSON = Symbol('not JSON');

/** Text parsed as JSON, or a marker for text that is not JSON, so callers can raise their own clear error. */
function parseJsonText(text: string): unknown {
	return jsonParse<unknown>(text, { fallbackValue: NOT_JSON });
}

/** Accepts a JSON object, or a JSON string of one (as typed into a JSON field). */
export function parseJsonObject(value: unknown, field: string): IDataObject {
	const hint = 'Give a JSON object, for example {"email": "ada@example.com"}.';
	const parsed = typeof value === 'string' ? parseJsonText(value) : value;
	if (parsed === NOT_JSON) throw new InvalidInputError(field, `is not valid JSON: ${quote(value)}`, hint);
	if (!isPlainObject(parsed)) {
		const kind = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`;
		throw new InvalidInputError(field, `must be a JSON object, got ${kind}`, hint);
	}
	return parsed;
}

/** A contact in the service's own input shape (docs/service-interface.md, "Endpoints the package calls"). */
export interface ContactInput extends IDataObject {
	firstname: string;
	lastname: string;
	phone_number: string;
	metadata?: IDataObject;
}

/** What one input item of Add to Campaign adds: its contacts, and the campaign they go to. */
export interface CampaignContacts { campaignId: string; contacts: ContactInput[] }

/**
 * Add to Campaign's input of one item, checked in one call: the campaign's ID, then each contact. `contacts`
 * is the one contact the caller built from the item, or, with `listField`, that parameter's JSON array of them (parsed or as text).
 */
export function requireCampaignContacts(campaignId: unknown, contacts: unknown, campaignIdHint: string, listField?: string): CampaignContacts {
	const campaign = requireUuid(campaignId, 'Campaign ID', campaignIdHint);
	if (listField === undefined) return { campaignId: campaign, contacts: [requireContact(contacts as IDataObject)] };
	const list = typeof contacts === 'string' ? parseJsonText(contacts) : contacts;
	if (list === NOT_JSON) throw new InvalidInputError(listField, `is not valid JSON: ${quote(contacts)}`, 'Give a JSON array of contacts.');
	if (!Array.isArray(list)) throw new InvalidInputError(listField, `must be a JSON array of contacts, got ${quote(list)}`, 'Wrap a single contact in [ ].');
	const checked = list.map((entry: unknown, position) => {
		const where = ` of contact ${position} in ${listField}`;
		// Only a list's entries can be other than an object: the one contact is built by the caller.
		if (!isPlainObject(entry)) throw new InvalidInputError(`Contact${where}`, `must be a JSON object, got ${quote(entry)}`);
		return requireContact(entry, where);
	});
	return { campaignId: campaign, contacts: checked };
}

/** One contact in the service's shape; `where` tells which entry of a JSON array it is. */
function requireContact(raw: IDataObject, where = ''): ContactInput {
	const contact: ContactInput = {
		firstname: requireNonEmptyString(raw.firstname, `First Name (firstname)${where}`),
		lastname: requireNonEmptyString(raw.lastname, `Last Name (lastname)${where}`),
		phone_number: requirePhoneNumber(raw.phone_number, `Phone Number (phone_number)${where}`),
	};
	if (raw.metadata !== undefined && raw.metadata !== null && raw.metadata !== '') {
		contact.metadata = parseJsonObject(raw.metadata, `Metadata${where}`);
	}
	return contact;
}

/** Accepts a real array, a JSON array string, or a comma-separated string ("a, b"). */
function toList(value: unknown, field: string): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'number') return [value];
	if (typeof value !== 'string') {
		throw new InvalidInputError(field, `must be a list or a comma-separated text, got ${quote(value)}`);
	}
	const text = value.trim();
	if (text.startsWith('[')) {
		const parsed = parseJsonText(text);
		if (!Array.isArray(parsed)) throw new InvalidInputError(field, `is not a valid JSON array: ${quote(value)}`);
		return parsed;
	}
	if (text === '') return [];
	return text.split(',').map((part) => part.trim());
}

export function parseStringList(value: unknown, field: string): string[] {
	return toList(value, field).map((entry) => {
		if (typeof entry === 'number' || typeof entry === 'boolean') return String(entry);
		if (typeof entry !== 'string' || entry.trim() === '') {
			throw new InvalidInputError(field, `must hold only non-empty texts, got ${quote(entry)}`, 'Separate the values with commas, for example "web, referral".');
		}
		return entry.trim();
	});
}

export function parseIntegerList(value: unknown, field: string): number[] {
	return toList(value, field).map((entry) => {
		const number = typeof entry === 'string' && entry.trim() !== '' ? Number(entry) : entry;
		if (typeof number !== 'number' || !Number.isInteger(number)) {
			throw new InvalidInputError(field, `must hold only whole numbers, got ${quote(entry)}`, 'Separate the numbers with commas, for example "1,2,3".');
		}
		return number;
	});
}

export function requireHttpUrl(value: unknown, field: string): string {
	const hint = 'Enter the full address, for example https://hooks.example.com/calls.';
	const text = requireNonEmptyString(value, field, hint);
	if (!parseHttpUrl(text)) {
		throw new InvalidInputError(field, `must be an http:// or https:// address, got ${quote(text)}`, hint);
	}
	return text;
}

/** A value from a fixed list, such as an options parameter's values. */
export function requireOneOf<Allowed extends string>(value: unknown, field: string, allowed: Iterable<Allowed>): Allowed {
	const values = [...allowed];
	if (typeof value !== 'string' || !(values as string[]).includes(value)) {
		throw new InvalidInputError(field, `must be one of ${values.join(', ')}, got ${quote(value)}`);
	}
	return value as Allowed;
}

export function requireIntegerInRange(value: unknown, field: string, min: number, max: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
		throw new InvalidInputError(field, `must be a whole number from ${min} to ${max}, got ${quote(value)}`);
	}
	return number;
}
