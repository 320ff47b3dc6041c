import { LoadOptionsContext } from 'n8n-core';
import type { INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { CampaignCalling } from '../../../../nodes/CampaignCalling/CampaignCalling.node';
import { additionalDataFor, nodeTypesFor, type CredentialData } from '../../../helpers/n8nContext.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator } from '../../../helpers/kit.ts';

const sim = useSimulator();

/** What n8n runs when the editor opens Update Campaign → Webhook Flow's list: n8n-core's LoadOptionsContext. */
async function searchFlows(credentials: CredentialData, filter?: string) {
	const nodeType = new CampaignCalling();
	const node: INode = {
		id: 'node-under-test',
		name: 'Campaign Calling',
		type: 'n8n-nodes-campaign-calling.campaignCalling',
		typeVersion: 1,
		position: [0, 0],
		parameters: { resource: 'campaign', operation: 'update', campaignId: DEMO.campaignId, updateFields: {} },
		credentials: { campaignCallingApi: { id: 'credential-1', name: 'Campaign Calling account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypesFor(nodeType) });
	const context = new LoadOptionsContext(workflow, node, additionalDataFor(credentials), 'updateFields.webhookId');
	return await nodeType.methods.listSearch.searchWebhookFlows.call(context, filter);
}

describe('Update Campaign → Webhook Flow list (listSearch searchWebhookFlows)', () => {
	it('lists the service\'s flows by name, sorted, from one GET /v1/webhooks with the credential', async () => {
		const { results } = await searchFlows(sim.credentials());
		const flows = [DEMO.outboundFlowId, DEMO.secondOutboundFlowId].map((id) => sim.simulator.state.webhookFlows.get(id)!);
		expect(results).toEqual(
			flows.map((flow) => ({ name: flow.name, value: flow.id })).sort((a, b) => a.name.localeCompare(b.name)),
		);
		expect(sim.requests().map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/webhooks']);
		expect(sim.requests()[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
	});

	it('searches by name, ignoring case', async () => {
		const flow = sim.simulator.state.webhookFlows.get(DEMO.secondOutboundFlowId)!;
		const word = flow.name.split(' ').at(-1)!.toUpperCase();
		const { results } = await searchFlows(sim.credentials(), ` ${word} `);
		expect(results.map((result) => result.value)).toContain(DEMO.secondOutboundFlowId);
		expect(results.every((result) => result.name.toUpperCase().includes(word))).toBe(true);
		expect((await searchFlows(sim.credentials(), 'no flow is called this')).results).toEqual([]);
	});

	it('fails through the transport, with its message and without the key, when the service refuses the key', async () => {
		const apiKey = 'not-a-known-key-987654';
		const error = await searchFlows(sim.credentials(apiKey)).then(
			() => undefined,
			(thrown: Error) => thrown,
		);
		expect(error?.message).toBe('Listing webhook flows failed: the service answered status "error" (error: unauthorized)');
		expect((error as Error & { description?: string }).description).toContain('Check the credential, or switch to "By ID" and enter the webhook flow\'s ID.');
		expect(JSON.stringify(error)).not.toContain(apiKey);
	});

	it('refuses a Base URL that is no web address before any request, naming no item (the editor\'s list has none)', async () => {
		await expect(searchFlows({ baseUrl: 'api.example.com', apiKey: DEMO.apiKey })).rejects.toMatchObject({
			message:
				'Listing webhook flows failed: The credential\'s Base URL "api.example.com" is not a web address. Enter it with its scheme, for example https://api.example.com',
		});
		expect(sim.requests()).toHaveLength(0);
	});

	it('names a flow without a name by its ID, skips entries without an ID, and refuses data that is not a list', async () => {
		let data: unknown = [{ id: 'f-1', name: '' }, { name: 'no id' }, { id: 'f-2', name: 'Zeta' }];
		const server = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data }));
		try {
			const credentials = { baseUrl: server.url, apiKey: DEMO.apiKey };
			expect((await searchFlows(credentials)).results).toEqual([
				{ name: 'f-1', value: 'f-1' },
				{ name: 'Zeta', value: 'f-2' },
			]);
			data = { flows: [] };
			await expect(searchFlows(credentials)).rejects.toThrow('Listing webhook flows failed: the service answered without a list of webhook flows (data was an object)');
		} finally {
			await server.close();
		}
	});
});
