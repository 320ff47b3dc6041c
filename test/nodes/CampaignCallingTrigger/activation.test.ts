/**
 * Activation against the service simulator, through n8n-core's real HookContext: a change of the
 * modules' delivery settings, and deliveries that arrive while activation is still registering.
 */
import { HookContext } from 'n8n-core';

import { SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { REMOTE_SERVICE_NAME, answerLookupsWithLoopback, type LoopbackLookups } from '../../helpers/loopbackLookups.ts';
import { TriggerHarness, modulesFor } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());
beforeEach(() => simulator.reset());

const credentials = () => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
const settingsOf = (trigger: TriggerHarness) =>
	[...simulator.state.webhookModules.values()]
		.map(({ record }) => record)
		.filter((record) => record.settings.url === trigger.webhookUrl)
		.map((record) => [record.event_type, record.settings.timeout, record.settings.retry_limit]);

async function deliver(trigger: TriggerHarness, secret: string, callId: string) {
	return await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body: { event_type: 'call.ended', data: { call_id: callId } } });
}

describe('a change of Timeout or Retry Limit', () => {
	it('reaches the service at the next activation: a new module with the new settings, and the old module\'s deliveries refused', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		const [old] = modulesFor(simulator, trigger.webhookUrl);

		trigger.setParameters({ events: ['call.ended'], options: { timeout: 90, retryLimit: 5 } });
		expect(await trigger.checkExists()).toBe(false);
		await trigger.activate();
		expect(settingsOf(trigger)).toEqual([
			['call.ended', 30, 3],
			['call.ended', 90, 5],
		]);
		const [, current] = modulesFor(simulator, trigger.webhookUrl);

		expect((await deliver(trigger, old.secret, 'c-1')).statusCode).toBe(401);
		const accepted = await deliver(trigger, current.secret, 'c-1');
		expect([accepted.statusCode, accepted.executed]).toEqual([200, true]);
	});

	it('unchanged settings register nothing at the next activation', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: { timeout: 90 } }, credentials());
		await trigger.activate();
		await trigger.activate();
		expect(await trigger.checkExists()).toBe(true);
		expect(settingsOf(trigger)).toEqual([['call.ended', 90, 3]]);
	});

	it('after a restart (settings read from static data), a changed setting is still seen', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		const restarted = new TriggerHarness({ events: ['call.ended'], options: { retryLimit: 0 } }, credentials(), undefined, {
			workflowId: trigger.workflow.id as string,
			staticData: trigger.savedStaticData(),
			nodeType: trigger.nodeType,
		});
		expect(await restarted.checkExists()).toBe(false);
	});
});

describe('a delivery while activation is still registering modules', () => {
	it('from a module this process has just registered is accepted before n8n saved static data', async () => {
		const trigger = new TriggerHarness({ events: ['call.started', 'call.ended'], options: {} }, credentials());
		simulator.injectFault({ kind: 'slow', path: '/v1/modules/webhook', after: 1, delayMs: 1500 });
		// Registrations are sequential: once the second (held back by the fault) has reached the service,
		// the node has taken in the first one's answer. The first module alone in the simulator would not
		// show that, and on a busy machine the delivery could overtake that answer.
		const registrations = () => simulator.requests.filter((request) => request.path === '/v1/modules/webhook').length;
		const record = simulator.requests.push.bind(simulator.requests);
		const secondRegistration = new Promise<void>((resolve) => {
			jest.spyOn(simulator.requests, 'push').mockImplementation((...recorded) => {
				const length = record(...recorded);
				if (registrations() >= 2) resolve();
				return length;
			});
		});
		const activation = trigger.activate();
		try {
			await secondRegistration;
			const [first] = modulesFor(simulator, trigger.webhookUrl);

			const outcome = await trigger.deliver({
				headers: { [SECRET_HEADER]: first.secret },
				body: { event_type: 'call.started', data: { call_id: 'c-early' } },
			});
			expect(trigger.staticData).toEqual({});
			expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
		} finally {
			await activation;
			jest.restoreAllMocks();
		}
	});
});

describe('what activation and deactivation tell n8n\'s log', () => {
	let logged: jest.Mock;
	let logger: jest.SpyInstance;
	beforeEach(() => {
		logged = jest.fn();
		const log = { info: logged, warn: jest.fn(), error: jest.fn(), debug: jest.fn() };
		logger = jest.spyOn(HookContext.prototype, 'logger', 'get').mockReturnValue(log as unknown as HookContext['logger']);
	});
	afterEach(() => logger.mockRestore());
	const messages = () => logged.mock.calls.map(([message]) => message as string);

	it('a first activation logs no replaced module; a changed setting logs, per event, the new module and the refused old one', async () => {
		const trigger = new TriggerHarness({ events: ['call.started', 'call.ended'], options: {} }, credentials());
		await trigger.activate();
		expect(messages()).toEqual([]);

		trigger.setParameters({ events: ['call.started', 'call.ended'], options: { timeout: 90, retryLimit: 5 } });
		await trigger.activate();
		expect(messages()).toEqual(
			['call.started', 'call.ended'].map(
				(event) =>
					`Campaign Calling Trigger: registered a new webhook module for ${event} with Timeout 90 and Retry Limit 5; the service keeps the earlier module, whose deliveries this node now refuses.`,
			),
		);
	});

	it('deactivation logs how many modules stay registered at the service, to be reused', async () => {
		const trigger = new TriggerHarness({ events: ['call.started', 'call.ended'], options: {} }, credentials());
		await trigger.activate();
		await trigger.delete();
		expect(messages()).toEqual([
			'Campaign Calling Trigger: 2 webhook module(s) remain registered at the service for this node; they will be reused on the next activation.',
		]);
	});
});

describe('activation with a bad Events selection', () => {
	it.each([
		['no event', [], 'Select at least one event'],
		['an event type the service does not send', ['call.ended', 'call.paused'], 'Unknown event type: call.paused'],
		['two event types the service does not send', ['call.paused', 'call.ended', 'call.held'], 'Unknown event type: call.paused, call.held'],
	])('fails with %s, naming the event types to choose from, and registers nothing', async (_label, events, message) => {
		const trigger = new TriggerHarness({ events, options: {} }, credentials());
		const failure = (await trigger.activate().then(
			() => undefined,
			(error: unknown) => error,
		)) as Error & { description?: string };
		expect(failure.name).toBe('NodeOperationError');
		expect(failure.message).toBe(message);
		expect(failure.description).toMatch(/^Choose from: call\.started, call\.ended, .*\.$/);
		expect(modulesFor(simulator, trigger.webhookUrl)).toEqual([]);
	});
});

describe('activation with a webhook URL the service cannot reach (loopback, the service elsewhere)', () => {
	let lookups: LoopbackLookups;
	beforeAll(() => {
		lookups = answerLookupsWithLoopback();
	});
	afterAll(() => lookups.restore());
	beforeEach(() => lookups.clear());

	/** The simulator under a name that is not loopback: for the node, a service on another machine. */
	const remoteService = () => ({ baseUrl: `http://${REMOTE_SERVICE_NAME}:${new URL(simulator.url).port}`, apiKey: DEMO.apiKey });
	const refusal = /^The service cannot reach n8n's webhook URL http:\/\/127\.0\.0\.1:5678\/webhook\/.* is a loopback address/;

	it('create() alone refuses too, so nothing is registered whichever hook n8n calls', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended', 'call.failed'], options: {} }, remoteService());
		await expect(trigger.create()).rejects.toThrow(refusal);
		expect(simulator.requests).toEqual([]);
		expect(trigger.staticData).toEqual({});
	});

	it('modules recorded for that URL in static data do not let activation pass once the service is elsewhere', async () => {
		const earlier = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await earlier.activate();
		const moved = new TriggerHarness({ events: ['call.ended'], options: {} }, remoteService(), undefined, {
			workflowId: earlier.workflow.id as string,
			staticData: earlier.savedStaticData(),
			nodeType: earlier.nodeType,
		});
		await expect(moved.activate()).rejects.toThrow(refusal);
		expect(modulesFor(simulator, moved.webhookUrl)).toHaveLength(1);
	});

	it('the refused activation leaves static data as it was, and n8n\'s delete() after it sends nothing', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended', 'call.failed'], options: {} }, remoteService());
		await expect(trigger.activate()).rejects.toThrow(refusal);
		expect(trigger.savedStaticData()).toEqual({});
		expect(simulator.requests).toEqual([]);
		expect(lookups.names).toEqual([]);
	});

	it('a plain http webhook URL against an https Base URL: registration goes ahead, after one warning in n8n\'s log', async () => {
		const warnings = jest.fn();
		const log = { info: jest.fn(), warn: warnings, error: jest.fn(), debug: jest.fn() };
		const logger = jest.spyOn(HookContext.prototype, 'logger', 'get').mockReturnValue(log as unknown as HookContext['logger']);
		try {
			// https to the plain simulator: the registration is sent and fails at TLS, after the warning.
			const httpsService = { ...remoteService(), baseUrl: remoteService().baseUrl.replace('http:', 'https:') };
			const trigger = new TriggerHarness({ events: ['call.ended', 'call.failed'], options: {} }, httpsService, 'http://n8n.example.com/webhook');
			expect(await trigger.checkExists()).toBe(false);
			expect(warnings).not.toHaveBeenCalled();
			await expect(trigger.create()).rejects.toThrow(/^Create Webhook Module failed: the TLS connection/);
			expect(warnings.mock.calls.map(([message]) => message as string)).toEqual([
				expect.stringMatching(/^Campaign Calling Trigger: n8n's webhook URL http:\/\/n8n\.example\.com\/webhook\/.* is plain http while the service is reached over https/),
			]);
			expect(lookups.names).toEqual([REMOTE_SERVICE_NAME]);
		} finally {
			logger.mockRestore();
		}
	});
});
