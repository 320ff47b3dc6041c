import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../transport';
import type { PerItemOperation } from '../router';
import { forOperation } from '../shared/display';
import { requireUuid } from '../shared/validation';

const contactIdHint =
	'Use the id of a contact, for example from the output of Add Contacts or from a call event of the trigger.';

const properties: INodeProperties[] = [
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 9b2e7c1d-3a4f-4b5c-8d6e-7f8091a2b3c4',
		description: 'The ID of the contact to read, with the outcome of its last call',
	},
];

export const description = forOperation('contact', 'get', properties);

export const operation: PerItemOperation<string> = {
	kind: 'perItem',

	prepare(itemIndex, params) {
		return requireUuid(params.get<unknown>('contactId', itemIndex), 'Contact ID', contactIdHint);
	},

	async send(contactId, itemIndex) {
		return (await serviceRequest.call(this, {
			operation: 'Get Contact',
			method: 'GET',
			path: `/contacts/${encodeURIComponent(contactId)}`,
			answer: 'envelope',
			itemIndex,
			errorHint:
				'The service gives this answer when the contact does not exist or belongs to another company. Check the Contact ID.',
		})) as IDataObject;
	},
};
