import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getCampaign } from './campaign/get.operation';
import { updateCampaign } from './campaign/update.operation';
import { addToCampaign } from './contact/addToCampaign.operation';
import { getContact } from './contact/get.operation';
import { createIntegration } from './integration/create.operation';
import type { Operation } from './types';
import { getManyWebhookFlows } from './webhookFlow/getAll.operation';
import { createWebhookModule } from './webhookModule/create.operation';

/** A resource: its operations, and the parameters the editor shows for them. */
export interface Resource {
	name: string;
	value: string;
	operations: Operation[];
	/** The Operation parameter for this resource, then each operation's own parameters. */
	properties: INodeProperties[];
}

/** A resource from its operations, in the editor's (alphabetical) order, the first the default; each operation's parameters shown for it alone. */
export function defineResource(name: string, value: string, operations: Operation[]): Resource {
	const defaultOperation = operations[0].value;
	const operationProperty: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [value] } },
		options: operations.map((operation) => ({
			name: operation.name,
			value: operation.value,
			description: operation.description,
			action: operation.title.charAt(0) + operation.title.slice(1).toLowerCase(),
		})),
		default: defaultOperation,
	};
	const properties = operations.flatMap((operation) =>
		updateDisplayOptions({ show: { resource: [value], operation: [operation.value] } }, operation.properties),
	);
	return { name, value, operations, properties: [operationProperty, ...properties] };
}

/** The node's resources, in the editor's (alphabetical) order, each with its operations. */
export const RESOURCES = [
	defineResource('Campaign', 'campaign', [getCampaign, updateCampaign]),
	defineResource('Contact', 'contact', [addToCampaign, getContact]),
	defineResource('Integration', 'integration', [createIntegration]),
	defineResource('Webhook Flow', 'webhookFlow', [getManyWebhookFlows]),
	defineResource('Webhook Module', 'webhookModule', [createWebhookModule]),
];

export function resourceProperty(resources: Resource[], defaultResource: string): INodeProperties {
	return {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: resources.map(({ name, value }) => ({ name, value })),
		default: defaultResource,
	};
}

/** The canvas subtitle: each operation's title, built from the operations so a new one brings its own. */
export function subtitleOf(resources: Resource[]): string {
	const titles: Record<string, string> = {};
	for (const resource of resources) {
		for (const operation of resource.operations) titles[`${resource.value}:${operation.value}`] = operation.title;
	}
	return `={{ (${JSON.stringify(titles)})[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
}
