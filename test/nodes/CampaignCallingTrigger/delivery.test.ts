/**
 * The trigger's size limit on what a delivery declares: a Content-Length over the limit is refused
 * on the declaration alone, whatever n8n has read of the body so far.
 */
import { MAX_BODY_BYTES, SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness, moduleSecret } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

async function activeTrigger() {
	const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
	await trigger.activate();
	return { trigger, secret: moduleSecret(simulator, trigger.webhookUrl) };
}

describe('a delivery that declares a Content-Length over the limit', () => {
	it.each([
		['nothing of the body read yet', ''],
		['a small, valid event read so far', JSON.stringify({ event_type: 'call.ended', data: { contact_id: DEMO.completedContactId } })],
	])('is refused with 413 and starts nothing, on the declaration alone (%s)', async (_label, raw) => {
		const { trigger, secret } = await activeTrigger();
		const outcome = await trigger.deliver({
			raw,
			headers: { [SECRET_HEADER]: secret, 'content-length': String(MAX_BODY_BYTES + 1) },
		});
		expect(outcome.statusCode).toBe(413);
		expect(outcome.json).toEqual({ status: 'error', message: `The event is larger than ${MAX_BODY_BYTES} bytes` });
		expect(outcome.executed).toBe(false);
	});

	it('is accepted when the declaration is exactly the limit and the body is a valid event', async () => {
		const { trigger, secret } = await activeTrigger();
		const outcome = await trigger.deliver({
			body: { event_type: 'call.ended' },
			headers: { [SECRET_HEADER]: secret, 'content-length': String(MAX_BODY_BYTES) },
		});
		expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
	});
});

describe('the headers a module is registered with', () => {
	// The service stores them with each module, and the trigger reuses its modules across upgrades of
	// this package: a renamed header would turn every existing module's deliveries into forgeries.
	it('are x-campaign-calling-secret and x-campaign-calling-event, and a delivery sending them (as the service does) runs as that event', async () => {
		const { trigger } = await activeTrigger();
		// The newest module for the URL: every harness of this file shares the webhook URL.
		const module = [...simulator.state.webhookModules.values()]
			.map(({ record }) => record)
			.filter((record) => record.settings.url === trigger.webhookUrl)
			.at(-1)!;
		expect(Object.keys(module.settings.headers).sort()).toEqual(['x-campaign-calling-event', 'x-campaign-calling-secret']);
		expect(module.settings.headers['x-campaign-calling-event']).toBe('call.ended');

		const outcome = await trigger.deliver({
			headers: { ...module.settings.headers },
			body: { data: { call_id: 'c-headers' } },
		});
		expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
		expect(outcome.output?.map((item) => item.json.event_type)).toEqual(['call.ended']);
	});
});
