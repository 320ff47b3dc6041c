import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listWebhookFlows } from '../../shared/service';
import { isPlainObject } from '../../shared/validation';

/**
 * The webhook flows for Update Campaign → Webhook Flow's list, searchable by name. The listing is
 * the service's default one (workspace "default", outbound flows). docs/service-interface.md shows no
 * paging, so the whole listing comes in one answer and the search runs here.
 */
export async function searchWebhookFlows(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const flows = await listWebhookFlows.call(
		this,
		{},
		{
			operation: 'Listing webhook flows',
			errorHint: 'Check the credential, or switch to "By ID" and enter the webhook flow\'s ID.',
		},
	);
	const wanted = (filter ?? '').trim().toLowerCase();
	const results = flows
		.filter((flow) => isPlainObject(flow) && typeof flow.id === 'string')
		.map((flow) => ({ name: typeof flow.name === 'string' && flow.name !== '' ? flow.name : String(flow.id), value: String(flow.id) }))
		.filter((flow) => flow.name.toLowerCase().includes(wanted))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
