import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../transport';
import type { PerItemOperation } from '../router';
import { forOperation } from '../shared/display';
import {
	InvalidInputError,
	parseIntegerList,
	parseJsonObject,
	parseStringList,
	requireNonEmptyString,
	requireUuid,
} from '../shared/validation';
import { campaignIdHint, campaignIdProperty } from './fields';

type FieldKind = 'text' | 'uuid' | 'integerList' | 'textList' | 'object';

interface UpdateField {
	/** The parameter name inside `updateFields` (contract). */
	name: string;
	/** The update body's field (spec, "Update a campaign"). */
	serviceName: string;
	displayName: string;
	kind: FieldKind;
	description: string;
	placeholder?: string;
}

const listNote = 'Comma-separated, or an expression that returns an array.';
const undocumented = 'The service does not document its allowed values.';

/** Every field of the update body, in the order the spec lists them. */
const UPDATE_FIELDS: UpdateField[] = [
	{ name: 'name', serviceName: 'name', displayName: 'Name', kind: 'text', description: 'The campaign\'s name' },
	{ name: 'notes', serviceName: 'notes', displayName: 'Notes', kind: 'text', description: 'Free-text notes on the campaign' },
	{
		name: 'status',
		serviceName: 'status',
		displayName: 'Status',
		kind: 'text',
		description: `The campaign's status. ${undocumented}`,
		placeholder: 'e.g. active',
	},
	{
		name: 'daysOfWeek',
		serviceName: 'days_of_week',
		displayName: 'Days of Week',
		kind: 'integerList',
		description: `Days on which the campaign calls, as whole numbers. ${listNote} The service does not document how days are numbered.`,
		placeholder: 'e.g. 1,2,3,4,5',
	},
	{
		name: 'timeZone',
		serviceName: 'time_zone',
		displayName: 'Time Zone',
		kind: 'text',
		description: 'Time zone of the calling window',
		placeholder: 'e.g. America/New_York',
	},
	{
		name: 'contactsListSource',
		serviceName: 'contacts_list_source',
		displayName: 'Contacts List Sources',
		kind: 'textList',
		description: `Call contacts acquired from these sources (a contact's source_name). ${listNote}`,
		placeholder: 'e.g. website, csv import',
	},
	{
		name: 'contactsListTags',
		serviceName: 'contacts_list_tags',
		displayName: 'Contacts List Tags',
		kind: 'textList',
		description: `Call contacts with these tags. ${listNote}`,
		placeholder: 'e.g. hot-lead, spring-promo',
	},
	{
		name: 'contactsListCategories',
		serviceName: 'contacts_list_categories',
		displayName: 'Contacts List Categories',
		kind: 'textList',
		description: `Call contacts in these categories. ${listNote}`,
		placeholder: 'e.g. real estate',
	},
	{
		name: 'contactsListSourceMetadata',
		serviceName: 'contacts_list_source_metadata',
		displayName: 'Contacts List Source Metadata',
		kind: 'object',
		description: 'JSON object describing the contact sources',
	},
	{
		name: 'agentVariablesContactMetadataMapping',
		serviceName: 'agent_variables_contact_metadata_mapping',
		displayName: 'Agent Variables to Contact Metadata Mapping',
		kind: 'object',
		description: 'JSON object mapping the calling agent\'s variables to keys of the contact\'s metadata',
	},
	{
		name: 'callTimeOfDayFrom',
		serviceName: 'call_time_of_day_from',
		displayName: 'Call Time of Day From',
		kind: 'text',
		description: `Start of the daily calling window. ${undocumented}`,
		placeholder: 'e.g. 09:00',
	},
	{
		name: 'callTimeOfDayTo',
		serviceName: 'call_time_of_day_to',
		displayName: 'Call Time of Day To',
		kind: 'text',
		description: `End of the daily calling window. ${undocumented}`,
		placeholder: 'e.g. 17:30',
	},
	{
		name: 'numberOfCallAttempts',
		serviceName: 'number_of_call_attempts',
		displayName: 'Number of Call Attempts',
		kind: 'integerList',
		description: `Call attempts, as whole numbers. ${listNote}`,
		placeholder: 'e.g. 3',
	},
	{
		name: 'retryDelay',
		serviceName: 'retry_delay',
		displayName: 'Retry Delay',
		kind: 'integerList',
		description: `Delays between attempts, as whole numbers in the Retry Delay Unit. ${listNote}`,
		placeholder: 'e.g. 30,60',
	},
	{
		name: 'retryDelayUnit',
		serviceName: 'retry_delay_unit',
		displayName: 'Retry Delay Unit',
		kind: 'textList',
		description: `Units of the retry delays. ${listNote} ${undocumented}`,
		placeholder: 'e.g. minutes,minutes',
	},
	{
		name: 'inboundPhoneNumberId',
		serviceName: 'inbound_phone_number_id',
		displayName: 'Inbound Phone Number ID',
		kind: 'uuid',
		description: 'ID of the phone number that receives calls for this campaign',
	},
	{
		name: 'outboundPhoneNumberId',
		serviceName: 'outbound_phone_number_id',
		displayName: 'Outbound Phone Number ID',
		kind: 'uuid',
		description: 'ID of the phone number the campaign calls from',
	},
	{
		name: 'webhookMappingVariables',
		serviceName: 'webhook_mapping_variables',
		displayName: 'Webhook Mapping Variables',
		kind: 'object',
		description: 'JSON object of variables for the campaign\'s webhook',
	},
	{
		name: 'webhookMappingVariablesSources',
		serviceName: 'webhook_mapping_variables_sources',
		displayName: 'Webhook Mapping Variables Sources',
		kind: 'object',
		description: 'JSON object naming where each webhook variable comes from',
	},
	{
		name: 'webhookId',
		serviceName: 'webhook_id',
		displayName: 'Webhook ID',
		kind: 'uuid',
		description: 'ID of the webhook flow the campaign uses (see Webhook Flow → Get Many)',
	},
];

function toProperty(field: UpdateField): INodeProperties {
	const isObject = field.kind === 'object';
	return {
		displayName: field.displayName,
		name: field.name,
		type: isObject ? 'json' : 'string',
		default: isObject ? '{}' : '',
		description: field.description,
		...(field.placeholder ? { placeholder: field.placeholder } : {}),
		...(field.kind === 'uuid' ? { placeholder: 'e.g. 5d8e2f4a-1b3c-4d5e-9f60-718293a4b5c6' } : {}),
	};
}

const properties: INodeProperties[] = [
	campaignIdProperty,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields you add here are sent; the others keep their current values',
		options: [...UPDATE_FIELDS].sort((a, b) => a.displayName.localeCompare(b.displayName)).map(toProperty),
	},
];

export const description = forOperation('campaign', 'update', properties);

function convert(field: UpdateField, value: unknown): unknown {
	const label = `Update Fields → ${field.displayName}`;
	switch (field.kind) {
		case 'text':
			if (typeof value !== 'string' && typeof value !== 'number') {
				throw new InvalidInputError(label, 'must be text');
			}
			return String(value);
		case 'uuid':
			return requireUuid(value, label);
		case 'integerList':
			return parseIntegerList(value, label);
		case 'textList':
			return parseStringList(value, label);
		case 'object':
			return parseJsonObject(value, label);
	}
}

interface PreparedUpdate {
	campaignId: string;
	body: IDataObject;
}

export const operation: PerItemOperation<PreparedUpdate> = {
	kind: 'perItem',

	prepare(itemIndex, params) {
		const campaignId = requireUuid(params.get<unknown>('campaignId', itemIndex), 'Campaign ID', campaignIdHint);
		const updateFields = params.get<IDataObject>('updateFields', itemIndex, {});
		const body: IDataObject = {};
		for (const field of UPDATE_FIELDS) {
			if (!(field.name in updateFields)) continue;
			body[field.serviceName] = convert(field, updateFields[field.name]) as IDataObject[string];
		}
		if (Object.keys(body).length === 0) {
			throw new InvalidInputError(
				'Update Fields',
				'is empty: nothing to update',
				'Click "Add Field" under Update Fields and choose what to change.',
			);
		}
		if ('name' in body) body.name = requireNonEmptyString(body.name, 'Update Fields → Name');
		return { campaignId, body };
	},

	async send({ campaignId, body }, itemIndex) {
		const answer = await serviceRequest.call(this, {
			operation: 'Update Campaign',
			method: 'POST',
			path: `/v1/campaigns/update/${encodeURIComponent(campaignId)}`,
			body,
			answer: 'passThrough',
			itemIndex,
			errorHint: 'Check the Campaign ID and the values of the fields you update.',
		});
		// The spec does not show this answer's body, so it is handed on as it came.
		return typeof answer === 'object' && answer !== null && !Array.isArray(answer)
			? (answer as IDataObject)
			: { campaignId, response: answer as IDataObject[string] };
	},
};
