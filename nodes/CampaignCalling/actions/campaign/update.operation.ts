import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { InvalidInputError, isPlainObject, serviceRequest } from '../../../shared/transport';
import type { PerItemOperation } from '../types';
import { requireNonEmptyString, requireUuid } from '../../../shared/validation';
import { campaignIdHint, campaignIdProperty } from './fields';
import { UPDATE_FIELD_GROUPS, UPDATE_FIELD_PROPERTIES } from './updateFields';

/** Every field once, with the name the update body gives it: its parameter name in snake_case. */
const BODY_FIELDS = Object.values(UPDATE_FIELD_GROUPS)
	.flat()
	.map((field) => ({ field, serviceName: field.name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) }));

const properties: INodeProperties[] = [
	campaignIdProperty,
	{
		displayName:
			'Only the fields you add are sent; the others keep their values. They are listed in groups: who is called (contact sources, tags, categories), the calling agent\'s variables, when (days, time zone, call window), retries, phone numbers, webhook, then name, notes and status.',
		name: 'updateFieldsNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields you add here are sent; the others keep their current values',
		options: UPDATE_FIELD_PROPERTIES,
	},
];

export const updateCampaign: PerItemOperation<{ campaignId: string; body: IDataObject }> = {
	value: 'update',
	title: 'Update Campaign',
	name: 'Update',
	description: 'Change a campaign\'s calling rules, schedule or status',
	properties,
	createsOnEachSend: false,

	prepare(itemIndex) {
		const campaignId = requireUuid(this.getNodeParameter('campaignId', itemIndex), 'Campaign ID', campaignIdHint);
		const updateFields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
		const body: IDataObject = {};
		for (const { field, serviceName } of BODY_FIELDS) {
			if (!(field.name in updateFields)) continue;
			// n8n unwraps a resource locator (Webhook Flow) into its ID; a plain string is kept as it is.
			const value =
				field.kind.editor.type === 'resourceLocator'
					? this.getNodeParameter(`updateFields.${field.name}`, itemIndex, undefined, { extractValue: true })
					: updateFields[field.name];
			body[serviceName] = field.kind.toBodyValue(value, `Update Fields → ${field.displayName}`) as IDataObject[string];
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

	async send({ campaignId, body }, request) {
		// Only the fields in `body` are sent. docs/service-interface.md shows no answer body, so it is
		// handed on as it came.
		const answer = await serviceRequest.call(this, {
			...request,
			method: 'POST',
			path: `/v1/campaigns/update/${encodeURIComponent(campaignId)}`,
			body,
			answer: 'passThrough',
			errorHint: 'Check the Campaign ID and the values of the fields you update.',
			repeatHint: 'Read the campaign with Get Campaign to see whether the change was applied before you repeat it.',
		});
		return isPlainObject(answer) ? answer : { campaignId, response: answer as IDataObject[string] };
	},
};
