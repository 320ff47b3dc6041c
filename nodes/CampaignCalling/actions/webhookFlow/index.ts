import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhookFlow'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the outbound webhook flows of a workspace',
				action: 'Get many webhook flows',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
