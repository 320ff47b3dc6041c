import type { IDataObject } from 'n8n-workflow';

import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { DEMO, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { describeBadInputs, itemsWith } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();

describe('Webhook Module → Create', () => {
	it('sends { event_type, settings: { method, url, headers, timeout, retry_limit } } and outputs the record', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: {
				resource: 'webhookModule',
				operation: 'create',
				eventType: 'conversation.intent_detected',
				url: 'https://crm.example.com/events',
				options: {
					method: 'POST',
					headers: { header: [{ name: 'Authorization', value: 'Token xyz' }, { name: 'X-Empty' }] },
					timeout: 10,
					retryLimit: 0,
				},
			},
		});
		const [request] = sim.requests();
		expect(`${request.method} ${request.path}`).toBe('POST /v1/modules/webhook');
		expect(request.body).toEqual({
			event_type: 'conversation.intent_detected',
			settings: {
				method: 'POST',
				url: 'https://crm.example.com/events',
				headers: { Authorization: 'Token xyz', 'X-Empty': '' },
				timeout: 10,
				retry_limit: 0,
			},
		});
		expect(Object.keys((request.body as { settings: object }).settings)).toEqual(['method', 'url', 'headers', 'timeout', 'retry_limit']);
		expect(output).toEqual([
			{
				json: {
					id: expect.stringMatching(/^[0-9a-f-]{36}$/),
					event_type: 'conversation.intent_detected',
					status: 'active',
					settings: (request.body as { settings: object }).settings,
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	it('defaults the method to POST and sends the default event type call.ended', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			parameters: { resource: 'webhookModule', operation: 'create', eventType: 'call.ended', url: 'https://crm.example.com/e' },
		});
		expect(sim.requests()[0].body).toEqual({
			event_type: 'call.ended',
			settings: { method: 'POST', url: 'https://crm.example.com/e', headers: {}, timeout: 30, retry_limit: 3 },
		});
	});

	it.each(['call.started', 'call.failed', 'call.voicemail_detected', 'conversation.transcript', 'conversation.entity_captured', 'campaign.started', 'campaign.paused', 'campaign.completed', 'campaign.quota_reached'])(
		'accepts the event type %s from an expression',
		async (eventType) => {
			const output = await runActionNode({
				credentials: sim.credentials(),
				items: [{ json: { eventType } }],
				parameters: { resource: 'webhookModule', operation: 'create', eventType: '={{ $json.eventType }}', url: 'https://e.example.com' },
			});
			expect((sim.requests()[0].body as { event_type: string }).event_type).toBe(eventType);
			expect(output[0].json.event_type).toBe(eventType);
		},
	);

	it('turns the service\'s HTTP 400 into an error carrying its message', async () => {
		// A URL the node accepts and the service refuses is hard to find; a 400 from the service
		// is provoked with a bad key instead of a bad body, then with the simulator's 403 fault.
		sim.simulator.injectFault({ kind: 'http-403', path: '/v1/modules/webhook' });
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: withoutRetries({ resource: 'webhookModule', operation: 'create', eventType: 'call.ended', url: 'https://x.example.com' }),
		});
		expect(error.message).toBe('Create Webhook Module failed: the service answered HTTP 403 Forbidden (forbidden)');
		expect(error.description).toMatch(/Check the API key/);
		expect(sim.requests()).toHaveLength(1);
		expect(DEMO.apiKey).not.toBe('');
	});
});

const webhookModule = (extra: IDataObject): IDataObject => ({
	resource: 'webhookModule',
	operation: 'create',
	eventType: 'call.ended',
	url: 'https://hooks.example.com/x',
	...extra,
});

describeBadInputs(sim, [
	{
		name: 'Create Webhook Module: unknown event type from an expression',
		parameters: webhookModule({ eventType: '={{ $json.v }}' }),
		items: itemsWith('call.ended', 'call.answered', 1, 2),
		item: 1,
		message: /^Event Type must be one of call.started, .*got "call.answered"/,
	},
	{ name: 'Create Webhook Module: ftp URL', parameters: webhookModule({ url: 'ftp://x.example.com' }), item: 0, message: /^URL must be an http:\/\/ or https:\/\/ address/ },
	{ name: 'Create Webhook Module: timeout 0', parameters: webhookModule({ options: { timeout: 0 } }), item: 0, message: /^Options → Timeout must be a whole number from 1 to 3600, got 0/ },
	{ name: 'Create Webhook Module: timeout above 3600', parameters: webhookModule({ options: { timeout: 3601 } }), item: 0, message: /^Options → Timeout must be a whole number from 1 to 3600/ },
	{ name: 'Create Webhook Module: Retry Limit -1', parameters: webhookModule({ options: { retryLimit: -1 } }), item: 0, message: /^Options → Retry Limit must be a whole number from 0 to 100, got -1/ },
]);

it('after an answer that may follow a created module, tells the user to check in the service\'s app before creating it again', async () => {
	sim.simulator.injectFault({ kind: 'http-500', times: 5 });
	const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: webhookModule({}) });
	expect(error.description).toContain(
		'Check in the service\'s app whether the module was created before you create it again: the service offers no way to list or delete modules, and a second one would act on every event twice.',
	);
});
