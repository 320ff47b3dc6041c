import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/transport';
import { RESOURCES, resourceProperty, subtitleOf } from './actions/resources';
import { router } from './actions/router';
import { requestOptionsProperty } from './actions/shared/requestOptions';
import { searchWebhookFlows } from './methods/listSearch';

export class CampaignCalling implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Campaign Calling',
		name: 'campaignCalling',
		icon: { light: 'file:campaignCalling.svg', dark: 'file:campaignCalling.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: subtitleOf(RESOURCES),
		description: 'Add leads to AI calling campaigns, read call outcomes and manage campaigns',
		defaults: { name: 'Campaign Calling' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [
			resourceProperty(RESOURCES, 'contact'),
			...RESOURCES.flatMap((resource) => resource.properties),
			requestOptionsProperty,
		],
	};

	methods = {
		listSearch: { searchWebhookFlows },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this, RESOURCES);
	}
}
