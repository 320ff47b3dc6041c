import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import type { PerItemOperation } from '../types';
import { defineSimplify } from '../shared/simplify';
import { requireUuid } from '../../../shared/validation';

/** Simplify keeps who a contact is, where it stands, and the outcome of its last call. */
const simplify = defineSimplify({
	keptFields: [
		'id',
		'firstname',
		'lastname',
		'phone_number',
		'campaign_id',
		'last_call_status',
		'last_call_at',
		'last_call_duration',
		'last_call_feedback',
		'metadata',
	],
	leadingFields: ['id', 'firstname', 'lastname', 'status'],
});

const contactIdHint =
	'Use the id of a contact, mapped from an earlier step that holds one: a trigger event or Add to Campaign\'s output, where your service includes it (its interface promises an id in neither).';

const properties: INodeProperties[] = [
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 9b2e7c1d-3a4f-4b5c-8d6e-7f8091a2b3c4',
		description: 'The ID of the contact to read, with the outcome of its last call',
		hint: 'The service has no contact listing to pick from: map the ID from an earlier step that holds one, such as a trigger event or Add to Campaign\'s output where your service includes it (its interface promises neither)',
	},
	simplify.property,
];

export const getContact: PerItemOperation<{ contactId: string; simplified: boolean }> = {
	value: 'get',
	title: 'Get Contact',
	name: 'Get',
	description: 'Get a contact with the outcome of its last call',
	properties,
	createsOnEachSend: false,

	prepare(itemIndex) {
		return {
			contactId: requireUuid(this.getNodeParameter('contactId', itemIndex), 'Contact ID', contactIdHint),
			simplified: simplify.read(this, itemIndex),
		};
	},

	async send({ contactId, simplified }, request) {
		const contact = (await serviceRequest.call(this, {
			...request,
			method: 'GET',
			path: `/contacts/${encodeURIComponent(contactId)}`,
			answer: { data: 'record', names: 'a contact record' },
			errorHint: 'The service gives this answer when the contact does not exist or belongs to another company. Check the Contact ID.',
		})) as IDataObject;
		return simplify.shape(contact, simplified);
	},
};
