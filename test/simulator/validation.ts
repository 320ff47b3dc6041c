/**
 * Checks of request bodies. Where the spec leaves a rule "not shown", the choice is written beside
 * it (and collected in README.md). Unknown fields are rejected everywhere: the simulator exists to
 * catch a client that sends a misspelt or camelCase name.
 */
import { normalizePhoneNumber } from './phone.ts';
import type { Campaign, JsonObject } from './types.ts';

export type Checked<Value> = { ok: true; value: Value } | { ok: false; reason: string };

export const INTEGRATION_TYPES = [
	'salesforce',
	'hubspot',
	'zoho',
	'dynamics',
	'slack',
	'teams',
	'email',
	'sheets',
	'zapier',
	'custom',
] as const;

export const EVENT_TYPES = [
	'call.started',
	'call.ended',
	'call.failed',
	'call.voicemail_detected',
	'conversation.transcript',
	'conversation.intent_detected',
	'conversation.entity_captured',
	'campaign.started',
	'campaign.paused',
	'campaign.completed',
	'campaign.quota_reached',
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
	return typeof value === 'string' && UUID.test(value);
}

export function isPlainObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
	return typeof value === 'string' && value.trim() !== '';
}

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

export interface ValidContactInput {
	firstname: string;
	lastname: string;
	phone_number: string;
	number_country_code: string;
	metadata: JsonObject | null;
}

const CONTACT_INPUT_FIELDS = new Set(['firstname', 'lastname', 'phone_number', 'metadata']);

/** All or nothing: one bad element rejects the whole batch. An empty array is rejected too. */
export function validateContactInputs(body: unknown): Checked<ValidContactInput[]> {
	if (!Array.isArray(body)) return fail('body must be a JSON array of contacts');
	if (body.length === 0) return fail('body must hold at least one contact');
	const contacts: ValidContactInput[] = [];
	for (let index = 0; index < body.length; index++) {
		const element: unknown = body[index];
		const at = `contact ${index}`;
		if (!isPlainObject(element)) return fail(`${at} must be an object`);
		const unknownField = Object.keys(element).find((key) => !CONTACT_INPUT_FIELDS.has(key));
		if (unknownField !== undefined) return fail(`${at} has an unknown field: ${unknownField}`);
		const { firstname, lastname, phone_number: phoneNumber, metadata } = element;
		if (!isNonEmptyString(firstname)) return fail(`${at} needs firstname, a non-empty string`);
		if (!isNonEmptyString(lastname)) return fail(`${at} needs lastname, a non-empty string`);
		if (!isNonEmptyString(phoneNumber)) return fail(`${at} needs phone_number, a non-empty string`);
		// metadata null is taken as absent: the stored contact's metadata is "object or null".
		if (metadata !== undefined && metadata !== null && !isPlainObject(metadata)) {
			return fail(`${at} metadata must be a JSON object`);
		}
		const phone = normalizePhoneNumber(phoneNumber);
		if (!phone.ok) return fail(`${at} ${phone.reason}`);
		contacts.push({
			firstname: firstname.trim(),
			lastname: lastname.trim(),
			phone_number: phone.e164,
			number_country_code: phone.countryCode,
			metadata: metadata ?? null,
		});
	}
	return { ok: true, value: contacts };
}

type UpdateFieldType = 'string' | 'integer array' | 'string array' | 'object' | 'UUID';

const CAMPAIGN_UPDATE_FIELDS: Record<string, UpdateFieldType> = {
	name: 'string',
	notes: 'string',
	status: 'string',
	days_of_week: 'integer array',
	time_zone: 'string',
	contacts_list_source: 'string array',
	contacts_list_tags: 'string array',
	contacts_list_categories: 'string array',
	contacts_list_source_metadata: 'object',
	agent_variables_contact_metadata_mapping: 'object',
	call_time_of_day_from: 'string',
	call_time_of_day_to: 'string',
	number_of_call_attempts: 'integer array',
	retry_delay: 'integer array',
	retry_delay_unit: 'string array',
	inbound_phone_number_id: 'UUID',
	outbound_phone_number_id: 'UUID',
	webhook_mapping_variables: 'object',
	webhook_mapping_variables_sources: 'object',
	webhook_id: 'UUID',
};

function hasType(value: unknown, type: UpdateFieldType): boolean {
	switch (type) {
		case 'string':
			return typeof value === 'string';
		case 'integer array':
			return Array.isArray(value) && value.every((item) => Number.isInteger(item));
		case 'string array':
			return Array.isArray(value) && value.every((item) => typeof item === 'string');
		case 'object':
			return isPlainObject(value);
		case 'UUID':
			return isUuid(value);
	}
}

/**
 * Which update fields are required is "not shown": any subset is accepted, the empty object too.
 * Values must have the spec's type exactly (null is refused: the spec gives no way to clear a field).
 */
export function validateCampaignUpdate(body: unknown): Checked<Partial<Campaign>> {
	if (!isPlainObject(body)) return fail('body must be a JSON object');
	for (const [field, value] of Object.entries(body)) {
		const type = CAMPAIGN_UPDATE_FIELDS[field];
		if (type === undefined) return fail(`unknown field: ${field}`);
		if (!hasType(value, type)) return fail(`invalid field ${field}: expected ${article(type)} ${type}`);
	}
	return { ok: true, value: body as Partial<Campaign> };
}

function article(type: UpdateFieldType): string {
	return /^[aeiou]/i.test(type) ? 'an' : 'a';
}

export interface ModuleSettings {
	method: string;
	url: string;
	headers: Record<string, string>;
	timeout: number;
	retry_limit: number;
}

// "Not shown" by the spec, the simulator's choices: only url is required; method defaults to POST
// and is one of these (any case, stored upper-case); headers default to {} and map names to string
// values; timeout is in seconds, 1 to 3600, default 30; retry_limit is 0 to 100, default 3.
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const SETTINGS_DEFAULTS = { method: 'POST', timeout: 30, retry_limit: 3 };

/** `methodField` is `webhook_method` for integrations and `method` for webhook modules. */
export function validateModuleSettings(settings: unknown, methodField: string): Checked<ModuleSettings> {
	if (!isPlainObject(settings)) return fail('settings is required and must be an object');
	const known = new Set([methodField, 'url', 'headers', 'timeout', 'retry_limit']);
	const unknownField = Object.keys(settings).find((key) => !known.has(key));
	if (unknownField !== undefined) return fail(`settings has an unknown field: ${unknownField}`);

	const { url, headers = {}, timeout = SETTINGS_DEFAULTS.timeout, retry_limit: retryLimit = SETTINGS_DEFAULTS.retry_limit } =
		settings;
	const method = settings[methodField] ?? SETTINGS_DEFAULTS.method;
	if (typeof method !== 'string' || !HTTP_METHODS.has(method.toUpperCase())) {
		return fail(`settings.${methodField} must be one of ${[...HTTP_METHODS].join(', ')}`);
	}
	if (typeof url !== 'string' || !isHttpUrl(url)) return fail('settings.url is required and must be an http(s) URL');
	if (!isPlainObject(headers) || !Object.values(headers).every((value) => typeof value === 'string')) {
		return fail('settings.headers must be an object of string values');
	}
	if (!Number.isInteger(timeout) || (timeout as number) < 1 || (timeout as number) > 3600) {
		return fail('settings.timeout must be an integer number of seconds from 1 to 3600');
	}
	if (!Number.isInteger(retryLimit) || (retryLimit as number) < 0 || (retryLimit as number) > 100) {
		return fail('settings.retry_limit must be an integer from 0 to 100');
	}
	return {
		ok: true,
		value: {
			method: method.toUpperCase(),
			url,
			headers: headers as Record<string, string>,
			timeout: timeout as number,
			retry_limit: retryLimit as number,
		},
	};
}

function isHttpUrl(text: string): boolean {
	try {
		const { protocol } = new URL(text);
		return protocol === 'http:' || protocol === 'https:';
	} catch {
		return false;
	}
}

export function checkModuleBody(
	body: unknown,
	kindField: 'type' | 'event_type',
	allowed: readonly string[],
): Checked<{ kind: string; settingsInput: unknown }> {
	if (!isPlainObject(body)) return fail('body must be a JSON object');
	const unknownField = Object.keys(body).find((key) => key !== kindField && key !== 'settings');
	if (unknownField !== undefined) return fail(`unknown field: ${unknownField}`);
	const kind = body[kindField];
	if (typeof kind !== 'string' || !allowed.includes(kind)) {
		return fail(`${kindField} is required and must be one of ${allowed.join(', ')}`);
	}
	return { ok: true, value: { kind, settingsInput: body.settings } };
}
