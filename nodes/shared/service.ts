import type { IDataObject } from 'n8n-workflow';

import type { DeliverySettings } from './moduleSettings';
import { MODULE_MAY_EXIST_HINT, deliverySettingsBody } from './moduleSettings';
import type { ServiceContext, ServiceRequest } from './transport';
import { serviceRequest } from './transport';

// The endpoints more than one caller sends; an endpoint one operation sends lives in that operation's file.

/** The webhook flows of a workspace (without one, the service's default listing); no data is no flows. */
export async function listWebhookFlows(
	this: ServiceContext,
	query: { workspaceId?: string },
	call: Partial<ServiceRequest> = {},
): Promise<IDataObject[]> {
	return (await serviceRequest.call(this, {
		operation: 'Get Many Webhook Flows',
		errorHint: 'Check the Workspace ID and the API key.',
		...call,
		method: 'GET',
		path: '/v1/webhooks',
		qs: query.workspaceId === undefined ? undefined : { workspaceId: query.workspaceId },
		answer: { data: 'list', names: 'a list of webhook flows' },
	})) as IDataObject[];
}

/** Registers a webhook module for one event type (Create Webhook Module, the trigger's activation); resolves to its record. */
export async function createWebhookModule(
	this: ServiceContext,
	eventType: string,
	settings: DeliverySettings,
	call: Partial<ServiceRequest> = {},
): Promise<IDataObject> {
	return (await serviceRequest.call(this, {
		operation: 'Create Webhook Module',
		repeatHint: MODULE_MAY_EXIST_HINT,
		...call,
		method: 'POST',
		path: '/v1/modules/webhook',
		body: { event_type: eventType, settings: deliverySettingsBody(settings, 'method') },
		answer: 'record',
	})) as IDataObject;
}
