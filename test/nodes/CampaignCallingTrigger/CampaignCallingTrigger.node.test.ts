import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { SECRET_HEADER, MAX_BODY_BYTES } from '../../../nodes/CampaignCallingTrigger/delivery';
import { CampaignCallingTrigger } from '../../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());
beforeEach(() => simulator.reset());

const credentials = () => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
const moduleRequests = () => simulator.requests.filter((request) => request.path === '/v1/modules/webhook');

function harness(events: string[], options: Record<string, unknown> = {}) {
	return new TriggerHarness({ events, options }, credentials());
}

describe('activation lifecycle', () => {
	it('first activation registers exactly one module per selected event, pointing at this node with its secret', async () => {
		const trigger = harness(['call.ended', 'campaign.completed'], { timeout: 20, retryLimit: 2 });
		expect(await trigger.checkExists()).toBe(false);
		await trigger.activate();

		const bodies = moduleRequests().map((request) => request.body as Record<string, any>);
		expect(bodies.map((body) => body.event_type)).toEqual(['call.ended', 'campaign.completed']);
		const secret = trigger.staticData.secret as string;
		expect(secret).toMatch(/^[A-Za-z0-9]{64}$/);
		for (const body of bodies) {
			expect(body.settings).toEqual({
				method: 'POST',
				url: trigger.webhookUrl,
				headers: { [SECRET_HEADER]: secret, 'x-campaign-calling-event': body.event_type },
				timeout: 20,
				retry_limit: 2,
			});
		}
		expect(await trigger.checkExists()).toBe(true);
	});

	it('re-activation with the same events registers nothing new', async () => {
		const trigger = harness(['call.ended']);
		await trigger.activate();
		await trigger.delete();
		await trigger.activate();
		await trigger.activate();
		expect(moduleRequests()).toHaveLength(1);
	});

	it('widening the event set registers only the new events, with the same secret', async () => {
		const trigger = harness(['call.ended']);
		await trigger.activate();
		const secret = trigger.staticData.secret;
		await trigger.delete();
		trigger.setParameters({ events: ['call.ended', 'call.failed', 'conversation.transcript'], options: {} });
		expect(await trigger.checkExists()).toBe(false);
		await trigger.activate();
		expect(moduleRequests().map((request) => (request.body as Record<string, unknown>).event_type)).toEqual([
			'call.ended',
			'call.failed',
			'conversation.transcript',
		]);
		expect(trigger.staticData.secret).toBe(secret);
	});

	it('delete calls no endpoint (the service shows none) and keeps the record of the modules', async () => {
		const trigger = harness(['call.started']);
		await trigger.activate();
		const before = simulator.requests.length;
		expect(await trigger.delete()).toBe(true);
		expect(simulator.requests.length).toBe(before);
		expect(await trigger.checkExists()).toBe(true);
	});

	it('ten activate/deactivate cycles leave exactly one module per event at the service', async () => {
		const trigger = harness(['call.started', 'call.ended']);
		for (let cycle = 0; cycle < 10; cycle++) {
			await trigger.activate();
			await trigger.delete();
		}
		const modules = [...simulator.state.webhookModules.values()].map((owned) => owned.record);
		expect(modules.map((module) => module.event_type).sort()).toEqual(['call.ended', 'call.started']);
	});

	it('a failed registration fails activation with the service\'s reason', async () => {
		simulator.injectFault({ kind: 'http-500', path: '/v1/modules/webhook' });
		const trigger = harness(['call.ended']);
		await expect(trigger.activate()).rejects.toThrow(/Create Webhook Module failed: the service answered HTTP 500/);
	});
});

describe('webhook(): deliveries', () => {
	async function activeTrigger(events: string[], options: Record<string, unknown> = {}) {
		const trigger = harness(events, options);
		await trigger.activate();
		return { trigger, secret: trigger.staticData.secret as string };
	}

	it('emits the delivered body as one item and acknowledges with JSON', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const body = { event_type: 'call.ended', data: { contact_id: DEMO.completedContactId, duration: 42 } };
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body });
		expect(outcome.output).toEqual([{ json: body, pairedItem: { item: 0 } }]);
		// Answered by the execution's first node (execute()), so only once n8n created the execution.
		expect(outcome.result.webhookResponse).toBeUndefined();
		expect([outcome.statusCode, outcome.json]).toEqual([200, { status: 'ok', received: 1, accepted: 1 }]);
	});

	it('adds the registered event type when the body carries none', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const outcome = await trigger.deliver({
			headers: { [SECRET_HEADER]: secret, 'x-campaign-calling-event': 'call.ended' },
			body: { call_id: 'abc' },
		});
		expect(outcome.output?.map((item) => item.json)).toEqual([{ call_id: 'abc', event_type: 'call.ended' }]);
	});

	it('gives one item per element of an array body', async () => {
		const { trigger, secret } = await activeTrigger(['call.started', 'call.ended']);
		const outcome = await trigger.deliver({
			headers: { [SECRET_HEADER]: secret },
			body: [
				{ event_type: 'call.started', n: 1 },
				{ event_type: 'call.ended', n: 2 },
			],
		});
		expect(outcome.output?.map((item) => item.json.n)).toEqual([1, 2]);
	});

	it.each([
		['a missing secret', {}],
		['a wrong secret', { [SECRET_HEADER]: 'x'.repeat(64) }],
		['a prefix of the secret', 'prefix'],
	])('answers 401 and starts nothing for %s', async (_label, headers) => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const sent = headers === 'prefix' ? { [SECRET_HEADER]: secret.slice(0, 32) } : (headers as Record<string, string>);
		const outcome = await trigger.deliver({ headers: sent, body: { event_type: 'call.ended' } });
		expect(outcome.statusCode).toBe(401);
		expect(outcome.result).toEqual({ noWebhookResponse: true });
		expect(JSON.stringify(outcome)).not.toContain(secret);
	});

	it('refuses another node\'s secret', async () => {
		const { trigger } = await activeTrigger(['call.ended']);
		const { secret: otherSecret } = await activeTrigger(['call.ended']);
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: otherSecret }, body: { event_type: 'call.ended' } });
		expect(outcome.statusCode).toBe(401);
	});

	it('acknowledges an event type that is not selected without starting an execution', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body: { event_type: 'campaign.paused' } });
		expect(outcome.result.workflowData).toBeUndefined();
		expect(outcome.result.webhookResponse).toEqual({ status: 'ok', received: 1, accepted: 0 });
	});

	it.each([
		['malformed JSON', { raw: '{"event_type": "call.ended",' }, 400],
		['a JSON string', { raw: '"call.ended"' }, 400],
		['an array of numbers', { raw: '[1,2]' }, 400],
		['text/plain', { raw: 'hello', headers: { 'content-type': 'text/plain' } }, 415],
		['an oversized body', { raw: JSON.stringify({ event_type: 'call.ended', pad: 'x'.repeat(MAX_BODY_BYTES) }) }, 413],
	])('refuses %s with a clear 4xx and no execution', async (_label, request, statusCode) => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const outcome = await trigger.deliver({
			raw: (request as { raw: string }).raw,
			headers: { [SECRET_HEADER]: secret, ...((request as { headers?: Record<string, string> }).headers ?? {}) },
		});
		expect(outcome.statusCode).toBe(statusCode);
		expect(outcome.result).toEqual({ noWebhookResponse: true });
		expect(outcome.json).toEqual({ status: 'error', message: expect.any(String) });
	});

	it('adds the request headers without the secret when Include Headers is on', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended'], { includeHeaders: true });
		const outcome = await trigger.deliver({
			headers: { [SECRET_HEADER]: secret, 'x-request-id': 'r-1' },
			body: { event_type: 'call.ended' },
		});
		const headers = outcome.result.workflowData?.[0][0].json.headers as Record<string, string>;
		expect(headers['x-request-id']).toBe('r-1');
		expect(headers[SECRET_HEADER]).toBeUndefined();
		expect(JSON.stringify(outcome.result)).not.toContain(secret);
	});
});

describe('delivery from the simulator to a local receiver', () => {
	let receiver: Server;
	let received: Array<{ headers: IncomingMessage['headers']; body: string }>;
	let receiverUrl: string;

	beforeAll(async () => {
		received = [];
		receiver = createServer((request, response) => {
			let body = '';
			request.on('data', (chunk) => (body += chunk));
			request.on('end', () => {
				received.push({ headers: request.headers, body });
				response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
			});
		});
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;
	});
	afterAll(async () => new Promise<void>((resolve) => receiver.close(() => resolve())));

	it('the service sends each event with the registered secret, and the node accepts exactly that delivery', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials(), receiverUrl);
		await trigger.activate();
		const results = await simulator.deliverEvent('call.ended', { data: { contact_id: DEMO.completedContactId } });
		expect(results).toEqual([expect.objectContaining({ ok: true, attempts: 1 })]);
		expect(received).toHaveLength(1);

		const delivery = received[0];
		expect(delivery.headers[SECRET_HEADER]).toBe(trigger.staticData.secret);
		const outcome = await trigger.deliver({
			headers: Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)])),
			raw: delivery.body,
		});
		const item = outcome.result.workflowData?.[0][0].json;
		expect(item).toEqual(expect.objectContaining({ event_type: 'call.ended', data: expect.objectContaining({ contact_id: DEMO.completedContactId }) }));
	});
});

describe('the trigger in the editor', () => {
	it('warns that activation and "Listen for test event" both leave modules at the service', () => {
		const notice = new CampaignCallingTrigger().description.properties.find((property) => property.type === 'notice');
		expect(notice?.displayName).toMatch(/^Activating this workflow registers one webhook module per selected event/);
		expect(notice?.displayName).toMatch(/"Listen for test event" \(for the test URL\)/);
		expect(notice?.displayName).toMatch(/stay registered after deactivation and after test listening ends/);
	});
});
