import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as campaign from './actions/campaign';
import * as contact from './actions/contact';
import * as integration from './actions/integration';
import { searchWebhookFlows } from './methods/listSearch';
import { router } from './actions/router';
import { requestOptionsProperty } from './actions/shared/requestOptions';
import * as webhookFlow from './actions/webhookFlow';
import * as webhookModule from './actions/webhookModule';

export class CampaignCalling implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Campaign Calling',
		name: 'campaignCalling',
		icon: { light: 'file:campaignCalling.svg', dark: 'file:campaignCalling.dark.svg' },
		group: ['output'],
		version: 1,
		// Each operation's own name on the canvas ("Add to Campaign"), not its stored values.
		subtitle:
			'={{ ({"contact:addToCampaign": "Add to Campaign", "contact:get": "Get Contact", "campaign:get": "Get Campaign", "campaign:update": "Update Campaign", "webhookFlow:getAll": "Get Many Webhook Flows", "integration:create": "Create Integration", "webhookModule:create": "Create Webhook Module"})[$parameter["resource"] + ":" + $parameter["operation"]] }}',
		description: 'Add leads to AI calling campaigns, read call outcomes and manage campaigns',
		defaults: { name: 'Campaign Calling' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'campaignCallingApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Campaign', value: 'campaign' },
					{ name: 'Contact', value: 'contact' },
					{ name: 'Integration', value: 'integration' },
					{ name: 'Webhook Flow', value: 'webhookFlow' },
					{ name: 'Webhook Module', value: 'webhookModule' },
				],
				default: 'contact',
			},
			...contact.description,
			...campaign.description,
			...webhookFlow.description,
			...integration.description,
			...webhookModule.description,
			requestOptionsProperty,
		],
	};

	methods = {
		listSearch: { searchWebhookFlows },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
