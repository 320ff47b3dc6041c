import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhookModule'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Have the service send one type of event to a URL',
				action: 'Create webhook module',
			},
		],
		default: 'create',
	},
	...create.description,
];
