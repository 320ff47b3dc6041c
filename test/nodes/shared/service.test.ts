import { createWebhookModule, listWebhookFlows } from '../../../nodes/shared/service';
import { executeContextFor } from '../../helpers/n8nContext.ts';
import { DEMO, useSimulator } from '../../helpers/kit.ts';

const sim = useSimulator();

/** An execution context with the simulator's credential, as the trigger's hooks and the action node have. */
const contextFor = (apiKey?: string) =>
	executeContextFor({ credentials: sim.credentials(apiKey), parameters: { resource: 'webhookModule', operation: 'create' } }).context;

const settings = { method: 'POST', url: 'https://hooks.example.com/x', headers: { 'X-Secret': 's' }, timeout: 30, retryLimit: 3 };

describe('createWebhookModule', () => {
	it('registers one module for the event type, the settings in the service\'s names, and resolves to its record', async () => {
		const record = await createWebhookModule.call(contextFor(), 'call.ended', settings);
		expect(sim.requests().map((request) => [request.method, request.path, request.body])).toEqual([
			[
				'POST',
				'/v1/modules/webhook',
				{ event_type: 'call.ended', settings: { method: 'POST', url: 'https://hooks.example.com/x', headers: { 'X-Secret': 's' }, timeout: 30, retry_limit: 3 } },
			],
		]);
		expect(record).toEqual(expect.objectContaining({ event_type: 'call.ended', status: 'active' }));
	});

	it('names itself Create Webhook Module in its errors unless the caller names the request', async () => {
		await expect(createWebhookModule.call(contextFor('not-a-key-of-the-service'), 'call.ended', settings)).rejects.toThrow(/^Create Webhook Module failed: /);
		await expect(
			createWebhookModule.call(contextFor('not-a-key-of-the-service'), 'call.ended', settings, { operation: 'Activating the trigger' }),
		).rejects.toThrow(/^Activating the trigger failed: /);
	});
});

describe('listWebhookFlows', () => {
	it('asks for a workspace\'s flows when given one, and the service\'s default listing without', async () => {
		await listWebhookFlows.call(contextFor(), { workspaceId: 'default' });
		await listWebhookFlows.call(contextFor(), {});
		expect(sim.requests().map((request) => [request.method, request.path, request.query])).toEqual([
			['GET', '/v1/webhooks', { workspaceId: 'default' }],
			['GET', '/v1/webhooks', {}],
		]);
	});

	it('resolves to the flows, and names itself Get Many Webhook Flows, with its hint, in its errors', async () => {
		const flows = await listWebhookFlows.call(contextFor(), {});
		expect(flows.map((flow) => flow.id)).toEqual(expect.arrayContaining([DEMO.outboundFlowId]));
		const error = await listWebhookFlows.call(contextFor('not-a-key-of-the-service'), {}).then(
			() => {
				throw new Error('listed with a wrong key');
			},
			(caught: unknown) => caught as Error & { description?: string },
		);
		expect(error.message).toMatch(/^Get Many Webhook Flows failed: /);
		expect(error.description).toMatch(/Check the Workspace ID and the API key\./);
	});
});
