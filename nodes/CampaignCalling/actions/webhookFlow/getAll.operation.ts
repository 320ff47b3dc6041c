import type { INodeProperties } from 'n8n-workflow';

import { listWebhookFlows } from '../../../shared/service';
import type { PerItemOperation } from '../types';
import { defineSimplify } from '../shared/simplify';
import { requireIntegerInRange, requireNonEmptyString } from '../../../shared/validation';

/** Simplify keeps what a flow is and its state, without the nested executions, steps and variables. */
const simplify = defineSimplify({
	keptFields: [
		'id',
		'name',
		'status',
		'flow_direction',
		'workspace_id',
		'is_template',
		'tag_name',
		'category_name',
		'created_at',
		'updated_at',
	],
	leadingFields: ['id', 'name', 'status'],
});

const properties: INodeProperties[] = [
	{
		displayName: 'Workspace ID',
		name: 'workspaceId',
		type: 'string',
		default: 'default',
		description: 'The workspace whose webhook flows to list, by its identifier, which is a name (not a UUID). The service\'s own default is "default", the only workspace most companies have.',
		hint: 'A name such as default, not a UUID',
	},
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	simplify.property,
];

export const getManyWebhookFlows: PerItemOperation<{ workspaceId: string; limit: number | undefined; simplified: boolean }> = {
	value: 'getAll',
	title: 'Get Many Webhook Flows',
	name: 'Get Many',
	description: 'List the outbound webhook flows of a workspace',
	properties,
	createsOnEachSend: false,

	prepare(itemIndex) {
		const workspaceId = requireNonEmptyString(
			this.getNodeParameter('workspaceId', itemIndex, 'default'),
			'Workspace ID',
			'Leave it at "default" unless your company uses several workspaces.',
		);
		const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
		const limit = returnAll
			? undefined
			: requireIntegerInRange(this.getNodeParameter('limit', itemIndex, 50), 'Limit', 1, Number.MAX_SAFE_INTEGER);
		return { workspaceId, limit, simplified: simplify.read(this, itemIndex) };
	},

	async send({ workspaceId, limit, simplified }, request) {
		const flows = await listWebhookFlows.call(this, { workspaceId }, request);
		// docs/service-interface.md shows no paging: the service returns the whole listing, and Limit
		// (when Return All is off) trims it here.
		return flows.slice(0, limit).map((flow) => simplify.shape(flow, simplified));
	},
};
