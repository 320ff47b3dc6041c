import type { INodeProperties } from 'n8n-workflow';

import * as addToCampaign from './addToCampaign.operation';
import * as get from './get.operation';

export { addToCampaign, get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contact'] } },
		options: [
			{
				name: 'Add to Campaign',
				value: 'addToCampaign',
				description: 'Add contacts to a calling campaign, in batches',
				action: 'Add to campaign',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a contact with the outcome of its last call',
				action: 'Get contact',
			},
		],
		default: 'addToCampaign',
	},
	...addToCampaign.description,
	...get.description,
];
