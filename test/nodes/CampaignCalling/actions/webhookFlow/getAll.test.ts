import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { describeBadInputs, itemsWith } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();
const listing = (extra: Record<string, unknown> = {}) => ({ resource: 'webhookFlow', operation: 'getAll', ...extra });

describe('Webhook Flow → Get Many', () => {
	it('lists the flows of the workspace "default" by default, one item per flow', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), parameters: listing({ returnAll: true, simplify: false }) });
		const [request] = sim.requests();
		expect(`${request.method} ${request.path}`).toBe('GET /v1/webhooks');
		expect(request.query).toEqual({ workspaceId: 'default' });
		expect(output.map((item) => item.json.id)).toEqual([DEMO.outboundFlowId, DEMO.secondOutboundFlowId]);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(output[0].json).toEqual(JSON.parse(JSON.stringify(sim.simulator.state.webhookFlows.get(DEMO.outboundFlowId))));
	});

	it('sends the Workspace ID as the workspaceId query parameter', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: listing({ workspaceId: ` ${DEMO.otherWorkspaceId} `, returnAll: true }),
		});
		expect(sim.requests()[0].query).toEqual({ workspaceId: 'staging' });
		expect(output.map((item) => item.json.id)).toEqual([DEMO.otherWorkspaceFlowId]);
	});

	it('refuses a Workspace ID left blank, saying to leave it at "default", before any request', async () => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: listing({ workspaceId: '  ' }) });
		expect(error.message).toBe('Workspace ID is empty [item 0]');
		expect(error.description).toBe('Leave it at "default" unless your company uses several workspaces.');
		expect(sim.requests()).toHaveLength(0);
	});

	it('refuses a Workspace ID that is not text (a true or an object from an expression), before any request', async () => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: listing({ workspaceId: true }) });
		expect(error.message).toBe('Workspace ID must be text, got true [item 0]');
		expect(sim.requests()).toHaveLength(0);
	});

	it('returns at most Limit flows when Return All is off', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), parameters: listing({ returnAll: false, limit: 1 }) });
		expect(output.map((item) => item.json.id)).toEqual([DEMO.outboundFlowId]);
	});

	it('uses the default Limit of 50 when none is set', async () => {
		const flows = Array.from({ length: 60 }, (_, i) => ({ id: `flow-${i}` }));
		const server = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data: flows }));
		try {
			const limited = await runActionNode({ credentials: { baseUrl: server.url, apiKey: DEMO.apiKey }, parameters: listing() });
			expect(limited).toHaveLength(50);
			expect(limited[49].json.id).toBe('flow-49');
			const all = await runActionNode({
				credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
				parameters: listing({ returnAll: true, limit: 5 }),
			});
			expect(all).toHaveLength(60);
			expect(server.requests.map((request) => request.path)).toEqual(['/v1/webhooks?workspaceId=default', '/v1/webhooks?workspaceId=default']);
		} finally {
			await server.close();
		}
	});

	it('lists once per input item, each item\'s flows paired with it', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { ws: 'default' } }, { json: { ws: 'staging' } }, { json: { ws: 'empty' } }],
			parameters: listing({ workspaceId: '={{ $json.ws }}', returnAll: true }),
		});
		expect(sim.requests().map((request) => request.query.workspaceId)).toEqual(['default', 'staging', 'empty']);
		expect(output.map((item) => [item.json.id, item.pairedItem])).toEqual([
			[DEMO.outboundFlowId, { item: 0 }],
			[DEMO.secondOutboundFlowId, { item: 0 }],
			[DEMO.otherWorkspaceFlowId, { item: 1 }],
		]);
	});

	it('yields no items for data null, and fails on data that is not a list', async () => {
		const answers = [null, { flows: [] }, 'none'];
		const server = await startScriptedServer((_request, response) =>
			sendJson(response, 200, { status: 'ok', message: 'ok', data: answers.shift() }),
		);
		try {
			const run = { credentials: { baseUrl: server.url, apiKey: DEMO.apiKey }, parameters: withoutRetries(listing()) };
			expect(await runActionNode(run)).toEqual([]);
			const error = await runActionNodeExpectingError(run);
			expect(error.message).toBe('Get Many Webhook Flows failed: the service answered without a list of webhook flows (data was an object)');
			expect(error.context?.itemIndex).toBe(0);
			const output = await runActionNode({ ...run, continueOnFail: true });
			expect(output).toEqual([
				{ json: { error: 'Get Many Webhook Flows failed: the service answered without a list of webhook flows (data was a string)' }, pairedItem: { item: 0 } },
			]);
		} finally {
			await server.close();
		}
	});

	it('fails with the service\'s "unauthorized" for a refused key', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials('wrong-key-0000'),
			parameters: withoutRetries(listing()),
		});
		expect(error.message).toBe('Get Many Webhook Flows failed: the service answered status "error" (error: unauthorized)');
		expect(error.description).toBe('Check the Workspace ID and the API key.');
	});
});

describe('Webhook Flow → Get Many, Simplify', () => {
	const record = (id: string) => JSON.parse(JSON.stringify(sim.simulator.state.webhookFlows.get(id))) as Record<string, unknown>;

	it('simplifies each flow by default, without the nested lists', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), parameters: listing({ returnAll: true }) });
		expect(output).toHaveLength(2);
		for (const item of output) {
			expect(Object.keys(item.json)).toEqual(['id', 'name', 'status', 'flow_direction', 'workspace_id', 'is_template', 'tag_name', 'category_name', 'created_at', 'updated_at'].filter((field) => field in record(String(item.json.id))));
			expect(item.json).not.toHaveProperty('executions');
			expect(item.json).not.toHaveProperty('steps');
		}
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
	});

	it('with Simplify off keeps every field, id, name and status first', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: listing({ returnAll: true, simplify: false }),
		});
		expect(output[0].json).toEqual(record(DEMO.outboundFlowId));
		expect(Object.keys(output[0].json).slice(0, 3)).toEqual(['id', 'name', 'status']);
	});
});

describeBadInputs(sim, [
	{ name: 'Get Many Webhook Flows: empty Workspace ID', parameters: { resource: 'webhookFlow', operation: 'getAll', workspaceId: '' }, item: 0, message: /^Workspace ID is empty/ },
	{
		name: 'Get Many Webhook Flows: Workspace ID null from an expression, item 1',
		parameters: { resource: 'webhookFlow', operation: 'getAll', workspaceId: '={{ $json.v }}' },
		items: itemsWith('default', null, 1),
		item: 1,
		message: /^Workspace ID must be text, got null/,
	},
	{ name: 'Get Many Webhook Flows: Limit 0', parameters: { resource: 'webhookFlow', operation: 'getAll', limit: 0 }, item: 0, message: /^Limit must be a whole number from 1/ },
	{ name: 'Get Many Webhook Flows: Limit 2.5', parameters: { resource: 'webhookFlow', operation: 'getAll', limit: 2.5 }, item: 0, message: /^Limit must be a whole number from 1/ },
]);
