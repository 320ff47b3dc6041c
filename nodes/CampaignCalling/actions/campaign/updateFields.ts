import type { INodeProperties } from 'n8n-workflow';

import { InvalidInputError } from '../../../shared/transport';
import { parseIntegerList, parseJsonObject, parseStringList, requireUuid } from '../../../shared/validation';

/** How a field is edited, and how its value is checked into what the update body takes. */
interface FieldKind {
	editor: Pick<INodeProperties, 'type' | 'default' | 'modes'>;
	/** `label` names the field in errors. */
	toBodyValue(value: unknown, label: string): unknown;
}

/** One field of Update Campaign's update body. */
export interface UpdateField {
	/** The parameter inside `updateFields` (contract); in snake_case, the update body's field. */
	name: string;
	/** Kept short: n8n cuts a collection field's label at about 22 characters. */
	displayName: string;
	kind: FieldKind;
	description: string;
	placeholder?: string;
}

const UUID_PLACEHOLDER = 'e.g. 5d8e2f4a-1b3c-4d5e-9f60-718293a4b5c6';
const UUID_REGEX = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const textBox = { type: 'string', default: '' } as const;

const text: FieldKind = {
	editor: textBox,
	toBodyValue: (value, label) => {
		if (typeof value !== 'string' && typeof value !== 'number') {
			throw new InvalidInputError(label, 'must be text');
		}
		return String(value);
	},
};
const uuid: FieldKind = { editor: textBox, toBodyValue: (value, label) => requireUuid(value, label) };
const integerList: FieldKind = { editor: textBox, toBodyValue: parseIntegerList };
const textList: FieldKind = { editor: textBox, toBodyValue: parseStringList };
const jsonObject: FieldKind = { editor: { type: 'json', default: '{}' }, toBodyValue: parseJsonObject };

/** Webhook Flow: a list of the service's flows, or an ID. A plain ID string is taken as the ID too. */
const webhookFlow: FieldKind = {
	editor: {
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a webhook flow...',
				typeOptions: { searchListMethod: 'searchWebhookFlows', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: UUID_PLACEHOLDER,
				validation: [
					{
						type: 'regex',
						properties: { regex: UUID_REGEX, errorMessage: 'Not a webhook flow ID: it is a UUID such as 5d8e2f4a-1b3c-4d5e-9f60-718293a4b5c6' },
					},
				],
			},
		],
	},
	toBodyValue: (value, label) => requireUuid(value, label, 'Pick the flow from the list, or enter its ID (a UUID).'),
};

const listNote = 'Comma-separated, or an expression that returns an array.';
const undocumented = 'The service does not document its allowed values.';

/** The fields by the group a person thinks in, in the order the editor lists them; each description opens with its group. */
export const UPDATE_FIELD_GROUPS: Record<string, UpdateField[]> = {
	'Who is called': [
		{
			name: 'contactsListSource',
			displayName: 'Contact Sources',
			kind: textList,
			description: `contacts acquired from these sources, such as a web form or a CSV import (the source each contact shows). ${listNote}`,
			placeholder: 'e.g. website, csv import',
		},
		{
			name: 'contactsListTags',
			displayName: 'Contact Tags',
			kind: textList,
			description: `contacts with these tags (the tag each contact shows). ${listNote}`,
			placeholder: 'e.g. hot-lead, spring-promo',
		},
		{
			name: 'contactsListCategories',
			displayName: 'Contact Categories',
			kind: textList,
			description: `contacts in these categories (the category each contact shows). ${listNote}`,
			placeholder: 'e.g. real estate',
		},
		{
			name: 'contactsListSourceMetadata',
			displayName: 'Source Metadata',
			kind: jsonObject,
			description: 'a JSON object with more detail about the contact sources. The service does not document its keys.',
		},
	],
	'Calling agent': [
		{
			name: 'agentVariablesContactMetadataMapping',
			displayName: 'Agent Variable Map',
			kind: jsonObject,
			description:
				'a JSON object that fills the calling agent\'s variables from each contact\'s metadata: variable name to metadata key, e.g. {"company": "company_name"}. The service does not document its exact form.',
		},
	],
	When: [
		{
			name: 'daysOfWeek',
			displayName: 'Days of Week',
			kind: integerList,
			description: `the days on which the campaign calls, as whole numbers. ${listNote} The service does not document how days are numbered (whether 0 or 7 is Sunday).`,
			placeholder: 'e.g. 1,2,3,4,5',
		},
		{
			name: 'timeZone',
			displayName: 'Time Zone',
			kind: text,
			description: 'the time zone of the calling window, such as America/New_York. The service does not document its format; a name like this one is the usual form.',
			placeholder: 'e.g. America/New_York',
		},
		{
			name: 'callTimeOfDayFrom',
			displayName: 'Call Window Start',
			kind: text,
			description: 'the time of day calling starts. The service does not document the format.',
			placeholder: 'e.g. 09:00',
		},
		{
			name: 'callTimeOfDayTo',
			displayName: 'Call Window End',
			kind: text,
			description: 'the time of day calling ends. The service does not document the format.',
			placeholder: 'e.g. 17:30',
		},
	],
	Retries: [
		{
			name: 'numberOfCallAttempts',
			displayName: 'Call Attempts',
			kind: integerList,
			description: `how often a contact is called, as whole numbers. The service takes a list here and does not document what several entries mean. ${listNote}`,
			placeholder: 'e.g. 3',
		},
		{
			name: 'retryDelay',
			displayName: 'Retry Delays',
			kind: integerList,
			description: `the waits between attempts, as whole numbers in the Retry Delay Units. ${listNote}`,
			placeholder: 'e.g. 30,60',
		},
		{
			name: 'retryDelayUnit',
			displayName: 'Retry Delay Units',
			kind: textList,
			description: `the unit of each retry delay. ${listNote} ${undocumented} ("seconds" appears in webhook flows.)`,
			placeholder: 'e.g. minutes,minutes',
		},
	],
	'Phone numbers': [
		{
			name: 'outboundPhoneNumberId',
			displayName: 'Outbound Number ID',
			kind: uuid,
			description: 'the ID of the number the campaign calls from. The service has no listing of numbers; copy the ID from the calling service.',
			placeholder: UUID_PLACEHOLDER,
		},
		{
			name: 'inboundPhoneNumberId',
			displayName: 'Inbound Number ID',
			kind: uuid,
			description: 'the ID of the number that receives calls for this campaign. The service has no listing of numbers; copy the ID from the calling service.',
			placeholder: UUID_PLACEHOLDER,
		},
	],
	Webhook: [
		{
			name: 'webhookId',
			displayName: 'Webhook Flow',
			kind: webhookFlow,
			description: 'the webhook flow the campaign uses. Pick it from the list (the flows Get Many Webhook Flows lists) or enter its ID.',
		},
		{
			name: 'webhookMappingVariables',
			displayName: 'Webhook Variables',
			kind: jsonObject,
			description: 'a JSON object of variables the campaign passes to its webhook flow. The service does not document its keys.',
		},
		{
			name: 'webhookMappingVariablesSources',
			displayName: 'Webhook Var. Sources',
			kind: jsonObject,
			description: 'a JSON object naming where the value of each webhook variable comes from. The service does not document its keys.',
		},
	],
	Campaign: [
		{ name: 'name', displayName: 'Name', kind: text, description: 'its name' },
		{ name: 'notes', displayName: 'Notes', kind: text, description: 'free-text notes' },
		{
			name: 'status',
			displayName: 'Status',
			kind: text,
			description: `its status, as the service spells it. ${undocumented} Get Campaign shows the current value.`,
			placeholder: 'e.g. active',
		},
	],
};

/** The Update Fields options, group by group (n8n lists a collection's options as given). */
export const UPDATE_FIELD_PROPERTIES: INodeProperties[] = Object.entries(UPDATE_FIELD_GROUPS).flatMap(([group, fields]) =>
	fields.map(({ displayName, name, description, kind, placeholder }) => ({
		displayName,
		name,
		description: `${group}: ${description}`,
		...kind.editor,
		...(placeholder ? { placeholder } : {}),
	})),
);
