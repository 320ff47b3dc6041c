import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createIntegrationModule } from '../../../shared/service';
import { INTEGRATION_TYPES } from '../../../shared/vocabulary';
import type { PerItemOperation } from '../types';
import type { DeliverySettings } from '../../../shared/moduleSettings';
import { deliveryProperties, readDeliverySettings } from '../../../shared/moduleSettings';
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
	...deliveryProperties('The address the service sends campaign data to, starting with https:// or http://'),
];

export const description = updateDisplayOptions({ show: { resource: ['integration'], operation: ['create'] } }, properties);

interface PreparedIntegration {
	type: string;
	settings: DeliverySettings;
}

const integrationTypeValues = INTEGRATION_TYPES.map((option) => String(option.value));

export const operation: PerItemOperation<PreparedIntegration> = {
	kind: 'perItem',
	createsOnEachSend: true,

	prepare(itemIndex) {
		const type = requireOneOf(this.getNodeParameter('integrationType', itemIndex), 'Integration Type', integrationTypeValues);
		return { type, settings: readDeliverySettings(this, itemIndex) };
	},

	async send({ type, settings }, call) {
		return await createIntegrationModule.call(this, type, settings, call);
	},
};
