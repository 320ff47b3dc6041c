import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as update from './update.operation';

export { get, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['campaign'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get a campaign with its calling rules',
				action: 'Get campaign',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change a campaign\'s calling rules, schedule or status',
				action: 'Update campaign',
			},
		],
		default: 'get',
	},
	...get.description,
	...update.description,
];
