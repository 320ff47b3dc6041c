import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/transport';
import { campaign } from './actions/campaign';
import { contact } from './actions/contact';
import { integration } from './actions/integration';
import { resourceProperty, subtitleOf } from './actions/resource';
import { router } from './actions/router';
import { requestOptionsProperty } from './actions/shared/requestOptions';
import { webhookFlow } from './actions/webhookFlow';
import { webhookModule } from './actions/webhookModule';
import { searchWebhookFlows } from './methods/listSearch';

/** The node's resources, in the editor's (alphabetical) order; each brings its operations. */
const resources = [campaign, contact, integration, webhookFlow, webhookModule];

export class CampaignCalling implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Campaign Calling',
		name: 'campaignCalling',
		icon: { light: 'file:campaignCalling.svg', dark: 'file:campaignCalling.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: subtitleOf(resources),
		description: 'Add leads to AI calling campaigns, read call outcomes and manage campaigns',
		defaults: { name: 'Campaign Calling' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [
			resourceProperty(resources, 'contact'),
			...resources.flatMap((resource) => resource.properties),
			requestOptionsProperty,
		],
	};

	methods = {
		listSearch: { searchWebhookFlows },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this, resources);
	}
}
