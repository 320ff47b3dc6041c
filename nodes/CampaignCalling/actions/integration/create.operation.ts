import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import { INTEGRATION_TYPES } from '../../../shared/vocabulary';
import type { PerItemOperation } from '../types';
import type { DeliverySettings } from '../../../shared/moduleSettings';
import { MODULE_MAY_EXIST_HINT, deliveryProperties, deliverySettingsBody, readDeliverySettings } from '../../../shared/moduleSettings';
import { requireOneOf } from '../../../shared/validation';

const properties: INodeProperties[] = [
	{
		displayName: 'Integration Type',
		name: 'integrationType',
		type: 'options',
		required: true,
		default: 'custom',
		options: INTEGRATION_TYPES,
		description: 'The outside system the service connects to',
	},
	...deliveryProperties(
		'Where the service sends this integration\'s requests: an address of the outside system that accepts them, such as an inbound webhook or API endpoint of your Salesforce or HubSpot account. Integration Type names the system; the service also needs the address. Starts with https:// or http://. What the service sends there is not shown in its interface: see your provider\'s documentation.',
	),
];

const integrationTypeValues = INTEGRATION_TYPES.map((option) => String(option.value));

export const createIntegration: PerItemOperation<{ type: string; settings: DeliverySettings }> = {
	value: 'create',
	title: 'Create Integration',
	name: 'Create',
	description: 'Connect campaigns to an outside system such as a CRM or Slack',
	properties,
	createsOnEachSend: true,

	prepare(itemIndex) {
		const type = requireOneOf(this.getNodeParameter('integrationType', itemIndex), 'Integration Type', integrationTypeValues);
		return { type, settings: readDeliverySettings(this, itemIndex) };
	},

	async send({ type, settings }, request) {
		return (await serviceRequest.call(this, {
			...request,
			method: 'POST',
			path: '/v1/modules/integration',
			body: { type, settings: deliverySettingsBody(settings, 'webhook_method') },
			answer: 'record',
			repeatHint: MODULE_MAY_EXIST_HINT,
		})) as IDataObject;
	},
};
