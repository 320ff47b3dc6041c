import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { serviceRequest } from '../../shared/transport';

/**
 * The webhook flows for Update Campaign → Webhook Flow's list, searchable by name. The listing is
 * the service's default one (workspace "default", outbound flows); the spec shows no paging, so
 * the whole listing comes in one answer and the search runs here.
 */
export async function searchWebhookFlows(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const flows = await serviceRequest.call(this, {
		operation: 'Listing webhook flows',
		method: 'GET',
		path: '/v1/webhooks',
		answer: 'envelope',
		errorHint: 'Check the credential, or switch to "By ID" and enter the webhook flow\'s ID.',
	});
	if (flows !== null && flows !== undefined && !Array.isArray(flows)) {
		throw new NodeOperationError(this.getNode(), 'Listing webhook flows failed: the answer\'s data is not a list of webhook flows');
	}
	const wanted = (filter ?? '').trim().toLowerCase();
	const results = ((flows ?? []) as IDataObject[])
		.filter((flow) => flow !== null && typeof flow === 'object' && typeof flow.id === 'string')
		.map((flow) => ({ name: typeof flow.name === 'string' && flow.name !== '' ? flow.name : String(flow.id), value: String(flow.id) }))
		.filter((flow) => wanted === '' || flow.name.toLowerCase().includes(wanted))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
