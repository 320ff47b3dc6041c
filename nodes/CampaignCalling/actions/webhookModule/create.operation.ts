import type { INodeProperties } from 'n8n-workflow';

import * as service from '../../../shared/service';
import { EVENT_TYPES, EVENT_TYPE_VALUES } from '../../../shared/vocabulary';
import type { PerItemOperation } from '../types';
import type { DeliverySettings } from '../../../shared/moduleSettings';
import { deliveryProperties, readDeliverySettings } from '../../../shared/moduleSettings';
import { requireOneOf } from '../../../shared/validation';

const properties: INodeProperties[] = [
	{
		displayName: 'Event Type',
		name: 'eventType',
		type: 'options',
		required: true,
		default: 'call.ended',
		options: EVENT_TYPES.map(({ name, value, description }) => ({ name, value, description })),
		description: 'The event the service reports to the URL. One webhook module serves exactly one event type.',
	},
	...deliveryProperties(
		'The address the service sends each event to. To start an n8n workflow on events, use the Campaign Calling Trigger node instead: it registers its own URL.',
	),
];

export const createWebhookModule: PerItemOperation<{ eventType: string; settings: DeliverySettings }> = {
	value: 'create',
	title: 'Create Webhook Module',
	name: 'Create',
	description: 'Have the service send one type of event to a URL',
	properties,
	createsOnEachSend: true,

	prepare(itemIndex) {
		const eventType = requireOneOf(this.getNodeParameter('eventType', itemIndex), 'Event Type', EVENT_TYPE_VALUES);
		return { eventType, settings: readDeliverySettings(this, itemIndex) };
	},

	async send({ eventType, settings }, request) {
		return await service.createWebhookModule.call(this, eventType, settings, request);
	},
};
