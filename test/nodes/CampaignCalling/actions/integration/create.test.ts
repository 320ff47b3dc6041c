import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { DEMO, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { createIntegration } from '../../../../helpers/actionParameters.ts';
import { describeBadInputs, itemsWith } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();

describe('Integration → Create', () => {
	it('sends { type, settings: { webhook_method, url, headers, timeout, retry_limit } } and outputs the record', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: {
				resource: 'integration',
				operation: 'create',
				integrationType: 'hubspot',
				url: 'https://hooks.example.com/hubspot',
				options: {
					method: 'PUT',
					headers: { header: [{ name: 'X-Api-Key', value: 'abc' }, { name: 'X-Team', value: 'sales' }] },
					timeout: 45,
					retryLimit: 5,
				},
			},
		});
		const [request] = sim.requests();
		expect(`${request.method} ${request.path}`).toBe('POST /v1/modules/integration');
		expect(request.body).toEqual({
			type: 'hubspot',
			settings: {
				webhook_method: 'PUT',
				url: 'https://hooks.example.com/hubspot',
				headers: { 'X-Api-Key': 'abc', 'X-Team': 'sales' },
				timeout: 45,
				retry_limit: 5,
			},
		});
		expect(Object.keys((request.body as { settings: object }).settings)).toEqual(['webhook_method', 'url', 'headers', 'timeout', 'retry_limit']);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			type: 'hubspot',
			status: 'active',
			settings: request.body && (request.body as { settings: object }).settings,
		});
		expect(sim.simulator.state.integrationModules.get(output[0].json.id as string)?.companyId).toBe(DEMO.companyId);
	});

	it('defaults the method to POST and the headers to {}, and sends the default timeout and retry limit', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: { resource: 'integration', operation: 'create', integrationType: 'slack', url: 'http://127.0.0.1:9/slack' },
		});
		expect(sim.requests()[0].body).toEqual({
			type: 'slack',
			settings: { webhook_method: 'POST', url: 'http://127.0.0.1:9/slack', headers: {}, timeout: 30, retry_limit: 3 },
		});
		expect(output[0].json.settings).toEqual({ webhook_method: 'POST', url: 'http://127.0.0.1:9/slack', headers: {}, timeout: 30, retry_limit: 3 });
	});

	it('creates one integration per item, the type from an expression', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { type: 'zoho' } }, { json: { type: 'teams' } }],
			parameters: {
				resource: 'integration',
				operation: 'create',
				integrationType: '={{ $json.type }}',
				url: '=https://hooks.example.com/{{ $json.type }}',
				options: { method: 'patch' },
			},
		});
		expect(sim.requests().map((request) => request.body)).toEqual([
			{ type: 'zoho', settings: { webhook_method: 'PATCH', url: 'https://hooks.example.com/zoho', headers: {}, timeout: 30, retry_limit: 3 } },
			{ type: 'teams', settings: { webhook_method: 'PATCH', url: 'https://hooks.example.com/teams', headers: {}, timeout: 30, retry_limit: 3 } },
		]);
		expect(output.map((item) => [item.json.type, item.pairedItem])).toEqual([
			['zoho', { item: 0 }],
			['teams', { item: 1 }],
		]);
	});

	it('turns the service\'s HTTP 401 into an error naming the operation', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials('unknown-key-1234'),
			parameters: withoutRetries({ resource: 'integration', operation: 'create', integrationType: 'custom', url: 'https://x.example.com' }),
		});
		expect(error.message).toBe('Create Integration failed: the service answered HTTP 401 Unauthorized (unauthorized)');
		expect(error.description).toMatch(/Check the API key/);
		expect(sim.requests()).toHaveLength(1);
	});
});


describeBadInputs(sim, [
	{
		name: 'Create Integration: unknown type from an expression',
		parameters: createIntegration({ integrationType: '={{ $json.v }}' }),
		items: itemsWith('slack', 'pipedrive', 1),
		item: 1,
		message: /^Integration Type must be one of custom, email, hubspot, .*got "pipedrive"/,
	},
	{ name: 'Create Integration: ftp URL', parameters: createIntegration({ url: 'ftp://files.example.com/in' }), item: 0, message: /^URL must be an http:\/\/ or https:\/\/ address, got "ftp:\/\/files.example.com\/in"/ },
	{ name: 'Create Integration: URL without scheme', parameters: createIntegration({ url: 'hooks.example.com/x' }), item: 0, message: /^URL must be an http:\/\/ or https:\/\/ address/ },
	{ name: 'Create Integration: empty URL', parameters: createIntegration({ url: '' }), item: 0, message: /^URL is empty/ },
	{ name: 'Create Integration: negative timeout', parameters: createIntegration({ options: { timeout: -1 } }), item: 0, message: /^Options → Timeout must be a whole number from 1 to 3600, got -1/ },
	{ name: 'Create Integration: Retry Limit above 100', parameters: createIntegration({ options: { retryLimit: 101 } }), item: 0, message: /^Options → Retry Limit must be a whole number from 0 to 100, got 101/ },
	{
		name: 'Create Integration: header named twice',
		parameters: createIntegration({ options: { headers: { header: [{ name: 'X-Key', value: '1' }, { name: 'x-key', value: '2' }] } } }),
		item: 0,
		message: /^Options → Headers names the header "x-key" twice/,
	},
	{
		name: 'Create Integration: header without a name',
		parameters: createIntegration({ options: { headers: { header: [{ name: ' ', value: '1' }] } } }),
		item: 0,
		message: /^Options → Headers has a header without a name/,
	},
	{
		name: 'Create Integration: header name with a space',
		parameters: createIntegration({ options: { headers: { header: [{ name: 'X Key', value: '1' }] } } }),
		item: 0,
		message: /^Options → Headers has an invalid header name "X Key"/,
	},
	{
		name: 'Create Integration: method TRACE from an expression',
		parameters: createIntegration({ options: { method: '={{ $json.v }}' } }),
		items: itemsWith('POST', 'TRACE', 1),
		item: 1,
		message: /^Options → Method must be GET, POST, PUT, PATCH or DELETE, got "TRACE"/,
	},
]);

it('after an answer that may follow a created module, tells the user to check in the service\'s app before creating it again', async () => {
	sim.simulator.injectFault({ kind: 'http-500', times: 5 });
	const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: createIntegration() });
	expect(error.description).toContain(
		'Check in the service\'s app whether the module was created before you create it again: the service offers no way to list or delete modules, and a second one would act on every event twice.',
	);
});
