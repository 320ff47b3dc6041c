import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listWebhookFlows } from '../../shared/service';

/**
 * Update Campaign → Webhook Flow's list: the service's default listing, searched here by name, as the
 * interface shows no paging or search (docs/service-interface.md).
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
		// The transport's list answers hold only objects; one without an ID cannot be picked.
		.filter((flow) => typeof flow.id === 'string')
		.map((flow) => ({ name: typeof flow.name === 'string' && flow.name !== '' ? flow.name : String(flow.id), value: String(flow.id) }))
		.filter((flow) => flow.name.toLowerCase().includes(wanted))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
