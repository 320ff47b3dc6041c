import type { INodeProperties } from 'n8n-workflow';

/*
 * Update Campaign's fields: what each is called in the node and in the service's update body, its
 * group, and how it is shown. update.operation.ts reads and checks them into the request.
 */

type FieldKind = 'text' | 'uuid' | 'integerList' | 'textList' | 'object' | 'webhookFlow';

/** The groups a person thinks in; the fields are listed group by group, in this order. */
type FieldSection = 'who' | 'agent' | 'when' | 'retries' | 'phoneNumbers' | 'webhook' | 'campaign';

export interface UpdateField {
	/** The parameter name inside `updateFields` (contract). */
	name: string;
	/** The update body's field (docs/service-interface.md, "Endpoints the package calls"). */
	serviceName: string;
	section: FieldSection;
	/** Kept short: n8n cuts a collection field's label at about 22 characters. */
	displayName: string;
	kind: FieldKind;
	description: string;
	placeholder?: string;
}

/** Each field's description opens with its group, as a person would name it. */
const SECTION_LABELS: Record<FieldSection, string> = {
	who: 'Who is called',
	agent: 'Calling agent',
	when: 'When',
	retries: 'Retries',
	phoneNumbers: 'Phone numbers',
	webhook: 'Webhook',
	campaign: 'Campaign',
};

const listNote = 'Comma-separated, or an expression that returns an array.';
const undocumented = 'The service does not document its allowed values.';

/** Every field of the update body, grouped: who is called, the agent's variables, when, retries, phone numbers, webhook, the campaign itself. */
export const UPDATE_FIELDS: UpdateField[] = [
	{
		name: 'contactsListSource',
		serviceName: 'contacts_list_source',
		section: 'who',
		displayName: 'Contact Sources',
		kind: 'textList',
		description: `contacts acquired from these sources, such as a web form or a CSV import (the source each contact shows). ${listNote}`,
		placeholder: 'e.g. website, csv import',
	},
	{
		name: 'contactsListTags',
		serviceName: 'contacts_list_tags',
		section: 'who',
		displayName: 'Contact Tags',
		kind: 'textList',
		description: `contacts with these tags (the tag each contact shows). ${listNote}`,
		placeholder: 'e.g. hot-lead, spring-promo',
	},
	{
		name: 'contactsListCategories',
		serviceName: 'contacts_list_categories',
		section: 'who',
		displayName: 'Contact Categories',
		kind: 'textList',
		description: `contacts in these categories (the category each contact shows). ${listNote}`,
		placeholder: 'e.g. real estate',
	},
	{
		name: 'contactsListSourceMetadata',
		serviceName: 'contacts_list_source_metadata',
		section: 'who',
		displayName: 'Source Metadata',
		kind: 'object',
		description: 'a JSON object with more detail about the contact sources. The service does not document its keys.',
	},
	{
		name: 'agentVariablesContactMetadataMapping',
		serviceName: 'agent_variables_contact_metadata_mapping',
		section: 'agent',
		displayName: 'Agent Variable Map',
		kind: 'object',
		description:
			'a JSON object that fills the calling agent\'s variables from each contact\'s metadata: variable name to metadata key, e.g. {"company": "company_name"}. The service does not document its exact form.',
	},
	{
		name: 'daysOfWeek',
		serviceName: 'days_of_week',
		section: 'when',
		displayName: 'Days of Week',
		kind: 'integerList',
		description: `the days on which the campaign calls, as whole numbers. ${listNote} The service does not document how days are numbered (whether 0 or 7 is Sunday).`,
		placeholder: 'e.g. 1,2,3,4,5',
	},
	{
		name: 'timeZone',
		serviceName: 'time_zone',
		section: 'when',
		displayName: 'Time Zone',
		kind: 'text',
		description: 'the time zone of the calling window, such as America/New_York. The service does not document its format; a name like this one is the usual form.',
		placeholder: 'e.g. America/New_York',
	},
	{
		name: 'callTimeOfDayFrom',
		serviceName: 'call_time_of_day_from',
		section: 'when',
		displayName: 'Call Window Start',
		kind: 'text',
		description: 'the time of day calling starts. The service does not document the format.',
		placeholder: 'e.g. 09:00',
	},
	{
		name: 'callTimeOfDayTo',
		serviceName: 'call_time_of_day_to',
		section: 'when',
		displayName: 'Call Window End',
		kind: 'text',
		description: 'the time of day calling ends. The service does not document the format.',
		placeholder: 'e.g. 17:30',
	},
	{
		name: 'numberOfCallAttempts',
		serviceName: 'number_of_call_attempts',
		section: 'retries',
		displayName: 'Call Attempts',
		kind: 'integerList',
		description: `how often a contact is called, as whole numbers. The service takes a list here and does not document what several entries mean. ${listNote}`,
		placeholder: 'e.g. 3',
	},
	{
		name: 'retryDelay',
		serviceName: 'retry_delay',
		section: 'retries',
		displayName: 'Retry Delays',
		kind: 'integerList',
		description: `the waits between attempts, as whole numbers in the Retry Delay Units. ${listNote}`,
		placeholder: 'e.g. 30,60',
	},
	{
		name: 'retryDelayUnit',
		serviceName: 'retry_delay_unit',
		section: 'retries',
		displayName: 'Retry Delay Units',
		kind: 'textList',
		description: `the unit of each retry delay. ${listNote} ${undocumented} ("seconds" appears in webhook flows.)`,
		placeholder: 'e.g. minutes,minutes',
	},
	{
		name: 'outboundPhoneNumberId',
		serviceName: 'outbound_phone_number_id',
		section: 'phoneNumbers',
		displayName: 'Outbound Number ID',
		kind: 'uuid',
		description: 'the ID of the number the campaign calls from. The service has no listing of numbers; copy the ID from the calling service.',
	},
	{
		name: 'inboundPhoneNumberId',
		serviceName: 'inbound_phone_number_id',
		section: 'phoneNumbers',
		displayName: 'Inbound Number ID',
		kind: 'uuid',
		description: 'the ID of the number that receives calls for this campaign. The service has no listing of numbers; copy the ID from the calling service.',
	},
	{
		name: 'webhookId',
		serviceName: 'webhook_id',
		section: 'webhook',
		displayName: 'Webhook Flow',
		kind: 'webhookFlow',
		description: 'the webhook flow the campaign uses. Pick it from the list (the flows Get Many Webhook Flows lists) or enter its ID.',
	},
	{
		name: 'webhookMappingVariables',
		serviceName: 'webhook_mapping_variables',
		section: 'webhook',
		displayName: 'Webhook Variables',
		kind: 'object',
		description: 'a JSON object of variables the campaign passes to its webhook flow. The service does not document its keys.',
	},
	{
		name: 'webhookMappingVariablesSources',
		serviceName: 'webhook_mapping_variables_sources',
		section: 'webhook',
		displayName: 'Webhook Var. Sources',
		kind: 'object',
		description: 'a JSON object naming where the value of each webhook variable comes from. The service does not document its keys.',
	},
	{ name: 'name', serviceName: 'name', section: 'campaign', displayName: 'Name', kind: 'text', description: 'its name' },
	{ name: 'notes', serviceName: 'notes', section: 'campaign', displayName: 'Notes', kind: 'text', description: 'free-text notes' },
	{
		name: 'status',
		serviceName: 'status',
		section: 'campaign',
		displayName: 'Status',
		kind: 'text',
		description: `its status, as the service spells it. ${undocumented} Get Campaign shows the current value.`,
		placeholder: 'e.g. active',
	},
];

const UUID_REGEX = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const UUID_PLACEHOLDER = 'e.g. 5d8e2f4a-1b3c-4d5e-9f60-718293a4b5c6';

/** Webhook Flow: a list of the service's flows, or an ID. A plain ID string is taken as the ID too. */
const webhookFlowLocator: Pick<INodeProperties, 'type' | 'default' | 'modes'> = {
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
};

export function toProperty(field: UpdateField): INodeProperties {
	const base = {
		displayName: field.displayName,
		name: field.name,
		description: `${SECTION_LABELS[field.section]}: ${field.description}`,
	};
	switch (field.kind) {
		case 'webhookFlow':
			return { ...base, ...webhookFlowLocator } as INodeProperties;
		case 'object':
			return { ...base, type: 'json', default: '{}' };
		case 'uuid':
			return { ...base, type: 'string', default: '', placeholder: UUID_PLACEHOLDER };
		default:
			return { ...base, type: 'string', default: '', ...(field.placeholder ? { placeholder: field.placeholder } : {}) };
	}
}
