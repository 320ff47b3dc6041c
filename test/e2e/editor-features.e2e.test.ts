/**
 * Release 0.2's editor features inside real n8n, against the simulator: the credential Test that knows
 * the service (n8n's REST endpoint behind the Test button), Simplify in a 1.1 node, a version-1 node's
 * output left exactly as it was, Update Campaign's Webhook Flow as a plain ID (saved before 0.2) and as a
 * resource locator, and the locator's list as the editor fetches it.
 */
import { SIMPLIFIED_CAMPAIGN_FIELDS } from '../../nodes/CampaignCalling/actions/campaign/get.operation';
import { startScriptedServer, type ScriptedServer } from '../helpers/kit.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { nodeOutput, startN8n, type N8nInstance } from './harness/n8n.ts';
import { e2eVersions } from './harness/runtime.ts';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, campaignCallingNode, webhookDriven, type CredentialRef } from './harness/workflows.ts';

/** Answers every request with the page of the current case: what a wrong Base URL might point at. */
type WrongServer = ScriptedServer & { answer: { status: number; contentType?: string; body: string } };

async function startWrongServer(): Promise<WrongServer> {
	const wrong: WrongServer = Object.assign(
		await startScriptedServer((_request, response) => {
			response.writeHead(wrong.answer.status, wrong.answer.contentType ? { 'content-type': wrong.answer.contentType } : {});
			response.end(wrong.answer.body);
		}),
		{ answer: { status: 200, body: '' } },
	);
	return wrong;
}

describe.each(e2eVersions())('release 0.2 editor features in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let wrong: WrongServer;
	let credential: CredentialRef;
	let credentialData: Record<string, unknown>;
	let counter = 0;

	beforeAll(async () => {
		simulator = await startSimulator();
		wrong = await startWrongServer();
		n8n = await startN8n({ version, withPackage: true });
		credentialData = { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey };
		const created = await n8n.api.createCredential('Campaign Calling (simulator)', CREDENTIAL_TYPE, credentialData);
		credential = { id: created.id, name: created.name };
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		await wrong?.close();
	});

	beforeEach(() => simulator.reset());

	/** Runs the action node once, behind a Webhook node, and returns its output as n8n stored it. */
	async function runAction(parameters: Record<string, unknown>, typeVersion: number) {
		const path = `editor-${++counter}`;
		const action = { ...campaignCallingNode('Campaign Calling', parameters, credential), typeVersion };
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

	const testCredential = (data: Record<string, unknown>) =>
		n8n.api.testCredential({ id: credential.id, name: credential.name, type: CREDENTIAL_TYPE, data });

	it('the credential Test passes for the service and fails, saying so, for n8n\'s own address, a web page, an empty 200 and another JSON API', async () => {
		expect(await testCredential(credentialData)).toEqual({ status: 'OK', message: 'Connection tested successfully' });

		const messages: string[] = [];
		const wrongCases: Array<[string, string, WrongServer['answer'] | undefined, RegExp]> = [
			['n8n\'s own address', n8n.url, undefined, / answered (with a web page \(HTML\), not JSON|HTTP 404)\./],
			[
				'a web page',
				wrong.url,
				{ status: 200, contentType: 'text/html', body: '<!doctype html><html><body>Welcome</body></html>' },
				/ answered with a web page \(HTML\), not JSON\./,
			],
			['an empty 200', wrong.url, { status: 200, body: '' }, / answered HTTP 200 with an empty body\./],
			[
				'another JSON API',
				wrong.url,
				{ status: 200, contentType: 'application/json', body: JSON.stringify({ id: 7, name: 'not the service' }) },
				/ answered with JSON that is not the service's envelope \(it has no "status" text\)\./,
			],
		];
		for (const [label, baseUrl, answer, what] of wrongCases) {
			if (answer) wrong.answer = answer;
			const result = await testCredential({ baseUrl, apiKey: DEMO.apiKey });
			messages.push(`  ${label}: ${result.status} ${result.message}`);
			expect([label, result.status]).toEqual([label, 'Error']);
			expect(result.message).toMatch(/^The Base URL does not look like the Campaign Calling API: GET http:\/\/127\.0\.0\.1:\d+\/v1\/webhooks answered /);
			expect(result.message).toMatch(what);
			expect(result.message).toMatch(/A correct Base URL is the API address your provider gave you, without \/v1 \(for example https:\/\/api\.example\.com\)/);
			expect(result.message).not.toContain(DEMO.apiKey);
		}

		const refused = await testCredential({ ...credentialData, apiKey: 'not-a-real-key' });
		messages.push(`  refused key: ${refused.status} ${refused.message}`);
		expect(refused).toEqual({
			status: 'Error',
			message: 'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.',
		});
		console.log(`n8n ${version}: credential Test messages:\n${messages.join('\n')}`);
	});

	it('Get Campaign in a 1.1 node: Simplify on by default, off on request with id, name and status first', async () => {
		const record = JSON.parse(JSON.stringify(simulator.state.campaigns.get(DEMO.campaignId)?.record)) as Record<string, unknown>;
		const getCampaign = { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId };

		const [simplified] = await runAction(getCampaign, 1.1);
		expect(Object.keys(simplified)).toEqual([...SIMPLIFIED_CAMPAIGN_FIELDS]);
		for (const field of SIMPLIFIED_CAMPAIGN_FIELDS) expect(simplified[field]).toEqual(record[field]);

		const [full] = await runAction({ ...getCampaign, simplify: false }, 1.1);
		expect(full).toEqual(record);
		expect(Object.keys(full).slice(0, 3)).toEqual(['id', 'name', 'status']);
		console.log(`n8n ${version}: Get Campaign 1.1, Simplify on: ${Object.keys(simplified).join(', ')}; off: ${Object.keys(full).length} fields`);
	});

	it('Get Campaign in a version-1 node, as saved before 0.2: the full campaign, byte for byte', async () => {
		const record = simulator.state.campaigns.get(DEMO.campaignId)?.record;
		const [output] = await runAction({ resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId }, 1);
		expect(JSON.stringify(output)).toBe(JSON.stringify(record));
	});

	it('Update Campaign takes Webhook Flow as a plain ID (version 1, saved before 0.2) and as a resource locator (1.1)', async () => {
		const sent = () => simulator.requests.filter((request) => request.path.startsWith('/v1/campaigns/update/')).map((request) => request.body);
		const update = (webhookId: unknown) => ({ resource: 'campaign', operation: 'update', campaignId: DEMO.campaignId, updateFields: { webhookId } });

		await runAction(update(DEMO.secondOutboundFlowId), 1);
		await runAction(update({ __rl: true, mode: 'list', value: DEMO.outboundFlowId, cachedResultName: 'picked from the list' }), 1.1);
		await runAction(update({ __rl: true, mode: 'id', value: `={{ "${DEMO.secondOutboundFlowId}" }}` }), 1.1);
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
					nodeTypeAndVersion: { name: ACTION_NODE_TYPE, version: 1.1 },
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
