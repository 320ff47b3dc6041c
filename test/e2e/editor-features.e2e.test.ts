/**
 * The editor's features inside real n8n, against the simulator (the credential Test has its own file,
 * credential-test.e2e.test.ts): Simplify, Update Campaign's Webhook Flow as a plain ID and as a
 * resource locator, and the locator's list as the editor fetches it.
 */
import { SIMPLIFIED_CAMPAIGN_FIELDS } from '../helpers/documentedFields.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { nodeOutput, type N8nInstance } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, campaignCallingNode, webhookDriven, type CredentialRef } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

describeEachVersion('editor features in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let credential: CredentialRef;
	let credentialData: Record<string, unknown>;
	let counter = 0;

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await sharedN8n(version);
		credentialData = { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey };
		const created = await n8n.api.createCredential('Campaign Calling (simulator)', CREDENTIAL_TYPE, credentialData);
		credential = { id: created.id, name: created.name };
	});

	afterAll(async () => {
		await simulator?.close();
	});

	beforeEach(() => simulator.reset());

	/** Runs the action node once, behind a Webhook node, and returns its output as n8n stored it. */
	async function runAction(parameters: Record<string, unknown>) {
		const path = `editor-${++counter}`;
		const action = campaignCallingNode('Campaign Calling', parameters, credential);
		const workflow = await n8n.api.createWorkflow(webhookDriven(path, [action]));
		try {
			await n8n.api.activate(workflow.id);
			await n8n.api.callWebhook(path, {});
			const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
			expect([execution.status, execution.data?.resultData.error?.message]).toEqual(['success', undefined]);
			return nodeOutput(execution, 'Campaign Calling');
		} finally {
			await n8n.api.deleteWorkflow(workflow.id);
		}
	}

	it('Get Campaign: Simplify on by default, off on request with id, name and status first', async () => {
		const record = JSON.parse(JSON.stringify(simulator.state.campaigns.get(DEMO.campaignId)?.record)) as Record<string, unknown>;
		const getCampaign = { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId };

		const [simplified] = await runAction(getCampaign);
		expect(Object.keys(simplified)).toEqual([...SIMPLIFIED_CAMPAIGN_FIELDS]);
		for (const field of SIMPLIFIED_CAMPAIGN_FIELDS) expect(simplified[field]).toEqual(record[field]);

		const [full] = await runAction({ ...getCampaign, simplify: false });
		expect(full).toEqual(record);
		expect(Object.keys(full).slice(0, 3)).toEqual(['id', 'name', 'status']);
		console.log(`n8n ${version}: Get Campaign, Simplify on: ${Object.keys(simplified).join(', ')}; off: ${Object.keys(full).length} fields`);
	});

	it('Update Campaign takes Webhook Flow as a plain ID and as a resource locator', async () => {
		const sent = () => simulator.requests.filter((request) => request.path.startsWith('/v1/campaigns/update/')).map((request) => request.body);
		const update = (webhookId: unknown) => ({ resource: 'campaign', operation: 'update', campaignId: DEMO.campaignId, updateFields: { webhookId } });

		await runAction(update(DEMO.secondOutboundFlowId));
		await runAction(update({ __rl: true, mode: 'list', value: DEMO.outboundFlowId, cachedResultName: 'picked from the list' }));
		await runAction(update({ __rl: true, mode: 'id', value: `={{ "${DEMO.secondOutboundFlowId}" }}` }));
		expect(sent()).toEqual([
			{ webhook_id: DEMO.secondOutboundFlowId },
			{ webhook_id: DEMO.outboundFlowId },
			{ webhook_id: DEMO.secondOutboundFlowId },
		]);
	});

	it('the Webhook Flow list shows the simulator\'s flows, searchable by name, as the editor asks n8n for them', async () => {
		const search = async (filter?: string) => {
			const response = await n8n.api.rest<{ data: { results: Array<{ name: string; value: string }> } }>(
				'POST',
				'/dynamic-node-parameters/resource-locator-results',
				{
					path: 'updateFields.webhookId',
					nodeTypeAndVersion: { name: ACTION_NODE_TYPE, version: 1 },
					methodName: 'searchWebhookFlows',
					currentNodeParameters: { resource: 'campaign', operation: 'update', campaignId: DEMO.campaignId, updateFields: {} },
					credentials: { [CREDENTIAL_TYPE]: credential },
					...(filter === undefined ? {} : { filter }),
				},
			);
			expect(response.status).toBe(200);
			return response.body.data.results;
		};
		const flows = [DEMO.outboundFlowId, DEMO.secondOutboundFlowId].map((id) => simulator.state.webhookFlows.get(id)!);
		const listed = await search();
		expect(listed).toEqual(flows.map((flow) => ({ name: flow.name, value: flow.id })).sort((a, b) => a.name.localeCompare(b.name)));
		const word = flows[1].name.split(' ').at(-1)!;
		expect((await search(word.toLowerCase())).map((result) => result.value)).toContain(flows[1].id);
		console.log(`n8n ${version}: Webhook Flow list: ${listed.map((result) => `${result.name} (${result.value})`).join('; ')}`);
	});
});
