import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['integration'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Connect campaigns to an outside system such as a CRM or Slack',
				action: 'Create integration',
			},
		],
		default: 'create',
	},
	...create.description,
];
