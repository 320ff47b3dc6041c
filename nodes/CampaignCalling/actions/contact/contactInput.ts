import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { readItemParameters } from './readItemParameters';
import {
	InvalidInputError,
	isPlainObject,
	isNotJson,
	parseJsonObject,
	parseJsonText,
	quote,
	requireNonEmptyString,
	requirePhoneNumber,
	requireUuid,
} from '../../../shared/validation';
import { campaignIdHint } from '../campaign/fields';

/*
 * How an input item becomes contacts in the service's shape, in each Input Mode of Add to Campaign,
 * every contact checked before anything is sent.
 */

export const INPUT_MODES = ['fields', 'autoMap', 'json'] as const;

type InputMode = (typeof INPUT_MODES)[number];

/** What one input item adds: its contacts, and the campaign they go to. */
export interface CampaignContacts { campaignId: string; contacts: ContactInput[] }

/** A contact in the service's own input shape (docs/service-interface.md, "Endpoints the package calls"). */
export interface ContactInput extends IDataObject {
	firstname: string;
	lastname: string;
	phone_number: string;
	metadata?: IDataObject;
}

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

/** Checks one contact in the service's shape; `where` tells which entry of a JSON array it is. */
function checkContact(raw: unknown, where = ''): ContactInput {
	if (!isPlainObject(raw)) {
		throw new InvalidInputError(`Contact${where}`, `must be a JSON object, got ${quote(raw)}`);
	}
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

export function readContacts(context: IExecuteFunctions, itemIndex: number, mode: Exclude<InputMode, 'fields'>): ContactInput[] {
	if (mode === 'autoMap') return [checkContact(autoMapped(context.getInputData()[itemIndex].json))];
	const raw = context.getNodeParameter('contactsJson', itemIndex);
	const list = typeof raw === 'string' ? parseJsonText(raw) : raw;
	if (isNotJson(list)) {
		throw new InvalidInputError('Contacts (JSON)', `is not valid JSON: ${quote(raw)}`, 'Give a JSON array of contacts.');
	}
	if (!Array.isArray(list)) {
		throw new InvalidInputError('Contacts (JSON)', `must be a JSON array of contacts, got ${quote(list)}`, 'Wrap a single contact in [ ].');
	}
	return list.map((entry, position) => checkContact(entry, ` of contact ${position} in Contacts (JSON)`));
}

/** Map Each Field: the item's parameters read in one pass, so their expressions are evaluated together. */
export function readMappedContact(context: IExecuteFunctions, itemIndex: number): CampaignContacts {
	const [campaignId, firstname, lastname, phoneNumber, metadata] = readItemParameters(
		context,
		itemIndex,
		['campaignId', 'firstName', 'lastName', 'phoneNumber', 'additionalFields.metadata'],
		[undefined, undefined, undefined, undefined, ''],
	);
	const campaign = requireUuid(campaignId, 'Campaign ID', campaignIdHint);
	const contact = checkContact({
		firstname,
		lastname,
		phone_number: phoneNumber,
		metadata: metadata === '{}' ? undefined : metadata,
	});
	return { campaignId: campaign, contacts: [contact] };
}
