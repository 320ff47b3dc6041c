/**
 * Activation against the service simulator, through n8n-core's real HookContext: a change of the
 * modules' delivery settings, and deliveries that arrive while activation is still registering.
 */
import { HookContext, WebhookContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import * as service from '../../../nodes/shared/service';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { REMOTE_SERVICE_NAME, answerLookupsWithLoopback, type LoopbackLookups } from '../../helpers/loopbackLookups.ts';
import { TriggerHarness, modulesFor, restartedTrigger } from '../../helpers/triggerContext.ts';

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
	it('reaches the service at the next activation: a new module with the new settings; the old module\'s deliveries run during its retry window, then are refused', async () => {
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

		// A retry of an event whose first attempt met the republish comes through the old module: it runs once.
		const retried = await deliver(trigger, old.secret, 'c-1');
		expect([retried.statusCode, retried.executed]).toEqual([200, true]);
		const again = await deliver(trigger, current.secret, 'c-1');
		expect([again.statusCode, again.executed]).toEqual([200, false]);

		// The old module's window: (Retry Limit 3 + 1) × Timeout 30 s, and a minute, from the replacement.
		const replacedAt = Math.max(...Object.values(trigger.staticData.modules as Record<string, { registeredAt: number }>).map((record) => record.registeredAt));
		const clock = jest.spyOn(Date, 'now');
		try {
			clock.mockReturnValue(replacedAt + 180_000 - 1);
			expect((await deliver(trigger, old.secret, 'c-2')).statusCode).toBe(200);
			clock.mockReturnValue(replacedAt + 180_000);
			expect((await deliver(trigger, old.secret, 'c-3')).statusCode).toBe(401);
			expect((await deliver(trigger, current.secret, 'c-3')).statusCode).toBe(200);
		} finally {
			clock.mockRestore();
		}
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

	it('each registration logs the module\'s id, event and settings; a reuse logs nothing', async () => {
		const trigger = new TriggerHarness({ events: ['call.started', 'call.ended'], options: {} }, credentials());
		await trigger.activate();
		const first = modulesFor(simulator, trigger.webhookUrl);
		expect(messages()).toEqual(
			first.map(({ id, event }) => `Campaign Calling Trigger "Campaign Calling Trigger": registered webhook module ${id} for ${event} delivering to ${trigger.webhookUrl} (Timeout 30 s, Retry Limit 3).`),
		);
		logged.mockClear();
		await trigger.activate();
		expect(messages()).toEqual([]);

		trigger.setParameters({ events: ['call.started', 'call.ended'], options: { timeout: 90, retryLimit: 5 } });
		await trigger.activate();
		const replacing = modulesFor(simulator, trigger.webhookUrl).slice(2);
		expect(messages()).toEqual(
			replacing.map(
				({ id, event }) =>
					`Campaign Calling Trigger "Campaign Calling Trigger": registered webhook module ${id} for ${event} delivering to ${trigger.webhookUrl} (Timeout 90 s, Retry Limit 5); earlier module(s) for this event: ${first.find((earlier) => earlier.event === event)?.id}.`,
			),
		);
	});

	it('deactivation logs the modules that stay registered at the service, by id and the URL each delivers to, to be reused at the next publish', async () => {
		const trigger = new TriggerHarness({ events: ['call.started', 'call.ended'], options: {} }, credentials());
		await trigger.activate();
		logged.mockClear();
		await trigger.delete();
		const named = modulesFor(simulator, trigger.webhookUrl).map(({ id }) => `${id} delivering to ${trigger.webhookUrl}`);
		expect(messages()).toEqual([
			`Campaign Calling Trigger "Campaign Calling Trigger": 2 webhook module(s) remain registered at the service for this node (${named.join(', ')}); the next publish reuses those that still serve.`,
		]);
	});

	it('deactivation names every module the node registered, those for an earlier webhook URL too, each with its URL: the service keeps them all', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		const [old] = modulesFor(simulator, trigger.webhookUrl);
		const oldUrl = trigger.webhookUrl;
		trigger.setWebhookBaseUrl('http://localhost:5678/webhook');
		await trigger.activate();
		const [current] = modulesFor(simulator, trigger.webhookUrl);
		logged.mockClear();
		await trigger.delete();
		expect(messages()).toEqual([
			`Campaign Calling Trigger "Campaign Calling Trigger": 2 webhook module(s) remain registered at the service for this node (${old.id} delivering to ${oldUrl}, ${current.id} delivering to ${trigger.webhookUrl}); the next publish reuses those that still serve.`,
		]);
	});

	it('deactivation of a node that registered nothing logs that none remain, without a list', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.delete();
		expect(messages()).toEqual([
			'Campaign Calling Trigger "Campaign Calling Trigger": 0 webhook module(s) remain registered at the service for this node; the next publish reuses those that still serve.',
		]);
	});

	it('a module whose answer carries a numeric id is recorded with that id as text', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		const created = jest.spyOn(service, 'createWebhookModule').mockResolvedValueOnce({ id: 42, event_type: 'call.ended', status: 'active' });
		await trigger.activate();
		created.mockRestore();
		const [record] = Object.values(trigger.staticData.modules as Record<string, Record<string, unknown>>);
		expect(record.moduleId).toBe('42');
	});

	it('a module whose answer carries no id is recorded and named as such', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		// The interface shows an id in the module's record, but a service that leaves it out must still work.
		const created = jest.spyOn(service, 'createWebhookModule').mockResolvedValueOnce({ event_type: 'call.ended', status: 'active' });
		await trigger.activate();
		created.mockRestore();
		expect(messages()).toEqual([`Campaign Calling Trigger "Campaign Calling Trigger": registered webhook module (id not returned) for call.ended delivering to ${trigger.webhookUrl} (Timeout 30 s, Retry Limit 3).`]);
		const [record] = Object.values(trigger.staticData.modules as Record<string, Record<string, unknown>>);
		expect(record).not.toHaveProperty('moduleId');
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
			await expect(trigger.create()).rejects.toThrow(/^Registering the webhook module for call.ended failed: the TLS connection/);
			expect(warnings.mock.calls.map(([message]) => message as string)).toEqual([
				expect.stringMatching(/^Campaign Calling Trigger "Campaign Calling Trigger": n8n's webhook URL http:\/\/n8n\.example\.com\/webhook\/.* is plain http while the service is reached over https/),
			]);
			expect(lookups.names).toEqual([REMOTE_SERVICE_NAME]);
		} finally {
			logger.mockRestore();
		}
	});
});

describe('what the user changes after the first activation', () => {
	const log = { warn: jest.fn(), error: jest.fn() };
	let logger: jest.SpyInstance;
	/** Tests waiting for an error line, each for the count-th. */
	let errorWaits: Array<{ count: number; logged: () => void }>;
	beforeEach(() => {
		log.warn = jest.fn();
		errorWaits = [];
		// jest has recorded the call when its implementation runs: the count includes this line.
		log.error = jest.fn(() => {
			for (const wait of errorWaits) if (log.error.mock.calls.length >= wait.count) wait.logged();
		});
		const logged = { info: jest.fn(), warn: log.warn, error: log.error, debug: jest.fn() };
		logger = jest.spyOn(WebhookContext.prototype, 'logger', 'get').mockReturnValue(logged as unknown as WebhookContext['logger']);
	});
	afterEach(() => logger.mockRestore());
	const warnings = () => log.warn.mock.calls.map(([message]) => message as string);
	const errors = () => log.error.mock.calls.map(([message]) => message as string);
	/** The error lines once the count-th is logged: the check of the credential runs after the answer, a scrypt later; jest's timeout bounds the wait. */
	async function errorsLogged(count: number): Promise<string[]> {
		if (errors().length < count) await new Promise<void>((logged) => errorWaits.push({ count, logged }));
		return errors();
	}
	const REPUBLISH = 'publish the workflow again (on n8n 2.x unpublish, then publish; on n8n 1.x deactivate, then activate)';

	const companyB = () => ({ baseUrl: simulator.url, apiKey: DEMO.otherApiKey });
	/** A credential n8n cannot read: deleted, or encrypted with another key. */
	const unreadable = () =>
		Object.defineProperty({}, 'apiKey', {
			enumerable: true,
			get: () => {
				throw new Error('Credential with ID "credential-1" does not exist for type "campaignCallingApi".');
			},
		}) as { baseUrl: string; apiKey: string };
	const companiesOf = (trigger: TriggerHarness) =>
		[...simulator.state.webhookModules.values()].filter(({ record }) => record.settings.url === trigger.webhookUrl).map(({ companyId }) => companyId);
	/** When the newest module was registered, from the trigger's saved records. */
	const lastRegistration = (trigger: TriggerHarness) => Math.max(...Object.values(trigger.staticData.modules as Record<string, { registeredAt: number }>).map((record) => record.registeredAt));
	/** (Retry Limit 3 + 1) × Timeout 30 s and a minute: the default module's retry window. */
	const WINDOW = 180_000;
	async function at<T>(time: number, action: () => Promise<T>): Promise<T> {
		const clock = jest.spyOn(Date, 'now').mockReturnValue(time);
		try {
			const result = await action();
			// The check of the credential starts at the response's 'close', a moment after the answer: at this time too.
			await new Promise((resolve) => setImmediate(resolve));
			return result;
		} finally {
			clock.mockRestore();
		}
	}
	const answers = (outcomes: Array<{ statusCode?: number; executed: boolean }>) => outcomes.map((outcome) => [outcome.statusCode, outcome.executed]);
	/** A published trigger whose module a Timeout change, published, replaced: the older and the newer module. */
	async function replacedByTimeoutChange() {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		trigger.setParameters({ events: ['call.ended'], options: { timeout: 45 } });
		await trigger.activate();
		const [older, newer] = modulesFor(simulator, trigger.webhookUrl);
		return { trigger, older, newer };
	}

	describe('the account', () => {
		it.each([
			['another credential, in the same process', (trigger: TriggerHarness) => (trigger.setCredentials(companyB()), trigger)],
			['the same credential edited to another company\'s key, after a restart', (trigger: TriggerHarness) => restartedTrigger(trigger, { credentials: companyB() })],
		])('%s, not published: the module\'s deliveries run, and the log says once, at error level, to publish again', async (_label, switchAccount) => {
			const before = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await before.activate();
			const [module] = modulesFor(simulator, before.webhookUrl);
			const trigger = switchAccount(before);
			// A credential read serves deliveries for 5 s: the activation's read of the first key is older by then.
			const later = Date.now() + 5_000;

			expect(answers([await at(later, async () => await deliver(trigger, module.secret, 'c-1')), await at(later, async () => await deliver(trigger, module.secret, 'c-2'))])).toEqual([
				[200, true],
				[200, true],
			]);
			expect(await errorsLogged(1)).toEqual([
				`Campaign Calling Trigger "Campaign Calling Trigger": webhook module ${module.id} (call.ended) was registered at another account than the credential reaches now (another API key or Base URL). Its deliveries still run. To register at the credential's account, ${REPUBLISH}.`,
			]);
			expect(warnings()).toEqual([]);
		});

		it('is read only after the delivery\'s answer: none while webhook() and the execution run, then the read and the error line', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await trigger.activate();
			const [module] = modulesFor(simulator, trigger.webhookUrl);
			const reads = jest.fn();
			// Another company's key, counted each time n8n hands the credential out.
			const counted = Object.defineProperty({ baseUrl: simulator.url }, 'apiKey', { enumerable: true, get: () => (reads(), DEMO.otherApiKey) });
			trigger.setCredentials(counted as { baseUrl: string; apiKey: string });
			// Past the activation's read, which would serve deliveries for 5 s.
			const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 5_000);
			try {
				const taken = await trigger.take({ headers: { [SECRET_HEADER]: module.secret }, body: { event_type: 'call.ended', data: { call_id: 'c-1' } } });
				// A turn for a check that started in webhook(): it would have read the credential by now.
				await new Promise((resolve) => setImmediate(resolve));
				expect([taken.executed, taken.response.writableEnded, reads.mock.calls.length]).toEqual([true, false, 0]);
				let readsBeforeAnswer: number | undefined;
				const end = taken.response.end.bind(taken.response);
				jest.spyOn(taken.response, 'end').mockImplementation((chunk?: unknown) => ((readsBeforeAnswer ??= reads.mock.calls.length), end(chunk)));
				expect((await taken.run()).statusCode).toBe(200);
				expect(await errorsLogged(1)).toEqual([
					`Campaign Calling Trigger "Campaign Calling Trigger": webhook module ${module.id} (call.ended) was registered at another account than the credential reaches now (another API key or Base URL). Its deliveries still run. To register at the credential's account, ${REPUBLISH}.`,
				]);
				expect([readsBeforeAnswer, reads.mock.calls.length]).toEqual([0, 1]);
			} finally {
				clock.mockRestore();
			}
		});

		it.each([
			['another credential, in the same process', (trigger: TriggerHarness) => (trigger.setCredentials(companyB()), trigger)],
			['the same credential edited to another company\'s key, after a restart', (trigger: TriggerHarness) => restartedTrigger(trigger, { credentials: companyB() })],
		])('%s, published: a module at the new account; the old module runs for its retry window, then is refused, logged once by its id', async (_label, switchAccount) => {
			const before = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await before.activate();
			const [old] = modulesFor(simulator, before.webhookUrl);

			const trigger = switchAccount(before);
			expect(await trigger.checkExists()).toBe(false);
			await trigger.activate();
			expect(companiesOf(trigger)).toEqual([DEMO.companyId, DEMO.otherCompanyId]);
			const [, current] = modulesFor(simulator, trigger.webhookUrl);
			const replacedAt = lastRegistration(trigger);

			// A retry already on its way through the old module when the new one came: it runs.
			expect(answers([await at(replacedAt + WINDOW - 1, async () => await deliver(trigger, old.secret, 'c-1'))])).toEqual([[200, true]]);
			const late = [await at(replacedAt + WINDOW, async () => await deliver(trigger, old.secret, 'c-2')), await at(replacedAt + WINDOW, async () => await deliver(trigger, old.secret, 'c-3'))];
			expect(answers(late)).toEqual([
				[401, false],
				[401, false],
			]);
			expect(warnings()).toEqual([
				`Campaign Calling Trigger "Campaign Calling Trigger": refused a delivery through webhook module ${old.id} (call.ended): module ${current.id} replaced it on ${new Date(replacedAt).toISOString()}, and its retries have ended.`,
			]);
			expect(answers([await deliver(trigger, current.secret, 'c-2')])).toEqual([[200, true]]);
		});

		it('edited back to the first key after publishing the second, not published: the first key\'s module runs past its window, and the second\'s too', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await trigger.activate();
			trigger.setCredentials(companyB());
			await trigger.activate();
			const [first, second] = modulesFor(simulator, trigger.webhookUrl);
			trigger.setCredentials(credentials());
			const later = lastRegistration(trigger) + WINDOW;
			expect(answers([await at(later, async () => await deliver(trigger, first.secret, 'c-1')), await at(later, async () => await deliver(trigger, second.secret, 'c-2'))])).toEqual([
				[200, true],
				[200, true],
			]);
			expect(warnings()).toEqual([]);
		});

		it('Timeout changed and published, then the key rotated without publishing: only the newer module runs once the older one\'s window has passed', async () => {
			const { trigger, older, newer } = await replacedByTimeoutChange();
			trigger.setCredentials(companyB());
			const later = lastRegistration(trigger) + WINDOW;
			expect(answers([await at(later, async () => await deliver(trigger, older.secret, 'c-1')), await at(later, async () => await deliver(trigger, newer.secret, 'c-1'))])).toEqual([
				[401, false],
				[200, true],
			]);
		});

		it('Base URL written otherwise (case, default port, trailing slash) is the same account: nothing registered again', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await trigger.activate();
			for (const written of [`${simulator.url}/`, simulator.url.replace('http://', 'HTTP://'), `${simulator.url}//`]) {
				trigger.setCredentials({ baseUrl: written, apiKey: DEMO.apiKey });
				expect(await trigger.checkExists()).toBe(true);
			}
			trigger.setCredentials({ baseUrl: simulator.url.replace('127.0.0.1', 'localhost'), apiKey: DEMO.apiKey });
			expect(await trigger.checkExists()).toBe(false);
		});
	});

	describe('a credential n8n cannot read (deleted while published)', () => {
		it('the current module\'s deliveries run, with one error line; a replaced module past its window is refused', async () => {
			const { trigger, older, newer } = await replacedByTimeoutChange();
			trigger.setCredentials(unreadable());
			const later = lastRegistration(trigger) + WINDOW;
			expect(answers([await at(later, async () => await deliver(trigger, newer.secret, 'c-1')), await at(later, async () => await deliver(trigger, newer.secret, 'c-2'))])).toEqual([
				[200, true],
				[200, true],
			]);
			expect(answers([await at(later, async () => await deliver(trigger, older.secret, 'c-3'))])).toEqual([[401, false]]);
			expect(await errorsLogged(1)).toEqual([
				`Campaign Calling Trigger "Campaign Calling Trigger": could not read its credential (deleted, or not decryptable). Deliveries through its current modules still run; modules replaced by later ones are refused once their retries have ended. Select a working credential, then ${REPUBLISH}.`,
			]);
			expect(warnings()).toEqual([expect.stringContaining(`refused a delivery through webhook module ${older.id} (call.ended)`)]);
		});

		it('one whose read hangs instead (a database that does not answer): a replaced module past its window is refused with 401 within about a second, not left pending', async () => {
			const { trigger, older, newer } = await replacedByTimeoutChange();
			const hanging = jest.spyOn(WebhookContext.prototype, 'getCredentials').mockImplementation(async () => await new Promise<never>(() => undefined));
			try {
				const later = lastRegistration(trigger) + WINDOW;
				const started = performance.now();
				// Bounded here so that a delivery left pending fails the test with its own line, not jest's timeout.
				const refused = await at(later, async () => await Promise.race([deliver(trigger, older.secret, 'c-1'), sleep(5_000).then(() => 'still pending' as const)]));
				const took = performance.now() - started;
				expect(refused === 'still pending' ? refused : answers([refused])).toEqual([[401, false]]);
				// It waited for the read, up to its bound; the race above shows it did not wait on.
				expect(took).toBeGreaterThanOrEqual(990);
				expect(warnings()).toEqual([
					`Campaign Calling Trigger "Campaign Calling Trigger": refused a delivery through webhook module ${older.id} (call.ended): module ${newer.id} replaced it on ${new Date(lastRegistration(trigger)).toISOString()}, and its retries have ended. The credential could not be read, so whether it still reaches this module's account was not checked.`,
				]);
				// The current module's verdict needs no account: its delivery runs whatever the read does.
				expect(answers([await at(later, async () => await deliver(trigger, newer.secret, 'c-2'))])).toEqual([[200, true]]);
				expect(hanging).toHaveBeenCalledTimes(1);
			} finally {
				hanging.mockRestore();
			}
		});

		it('checkExists answers from the stored records instead of throwing (n8n 1.x would leave the webhook unregistered at start-up)', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await trigger.activate();
			const restarted = restartedTrigger(trigger, { credentials: unreadable() });
			const hookLog = { info: jest.fn(), warn: jest.fn(), error: jest.fn(), debug: jest.fn() };
			const hookLogger = jest.spyOn(HookContext.prototype, 'logger', 'get').mockReturnValue(hookLog as unknown as HookContext['logger']);
			try {
				expect(await restarted.checkExists()).toBe(true);
				expect(hookLog.warn.mock.calls).toEqual([['Campaign Calling Trigger "Campaign Calling Trigger": could not read its credential; the stored webhook modules are taken as they are.']]);
				restarted.setParameters({ events: ['call.ended', 'call.failed'], options: {} });
				expect(await restarted.checkExists()).toBe(false);
				await expect(restarted.create()).rejects.toThrow('does not exist');
			} finally {
				hookLogger.mockRestore();
			}
		});
	});

	describe("n8n's webhook URL", () => {
		const NEW_BASE_URL = 'http://localhost:5678/webhook';

		it('before a module exists for the new URL, the old URL\'s module runs its deliveries, and the log says once to publish again', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
			await trigger.activate();
			const [old] = modulesFor(simulator, trigger.webhookUrl);
			const oldUrl = trigger.webhookUrl;
			const restarted = restartedTrigger(trigger, { webhookBaseUrl: NEW_BASE_URL });

			expect(answers([await deliver(restarted, old.secret, 'c-1'), await deliver(restarted, old.secret, 'c-2')])).toEqual([
				[200, true],
				[200, true],
			]);
			expect(warnings()).toEqual([
				`Campaign Calling Trigger "Campaign Calling Trigger": accepted a delivery through webhook module ${old.id} (call.ended), registered for the earlier webhook URL ${oldUrl}: ${REPUBLISH} to register a module for the current webhook URL ${restarted.webhookUrl}.`,
			]);
		});

		it('one process serving two workflows whose modules are for the earlier URL says it once for each workflow', async () => {
			const [first, second] = [new TriggerHarness({ events: ['call.ended'], options: {} }, credentials()), new TriggerHarness({ events: ['call.ended'], options: {} }, credentials())];
			await first.activate();
			const firstModule = modulesFor(simulator, first.webhookUrl).at(-1)!;
			await second.activate();
			const secondModule = modulesFor(simulator, second.webhookUrl).at(-1)!;
			const restarted = restartedTrigger(first, { webhookBaseUrl: NEW_BASE_URL });
			const secondRestarted = restartedTrigger(second, { webhookBaseUrl: NEW_BASE_URL, nodeType: restarted.nodeType });
			await deliver(restarted, firstModule.secret, 'c-1');
			await deliver(secondRestarted, secondModule.secret, 'c-1');
			expect(warnings()).toEqual([
				expect.stringContaining(`accepted a delivery through webhook module ${firstModule.id} (call.ended), registered for the earlier webhook URL`),
				expect.stringContaining(`accepted a delivery through webhook module ${secondModule.id} (call.ended), registered for the earlier webhook URL`),
			]);
		});

		it('once a module exists for the new URL, the old URL\'s module runs for its window (an event through both runs once), then is refused, logged once', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: { repeatKey: 'data.call_id' } }, credentials());
			await trigger.activate();
			const [old] = modulesFor(simulator, trigger.webhookUrl);
			trigger.setWebhookBaseUrl(NEW_BASE_URL);
			expect(await trigger.checkExists()).toBe(false);
			await trigger.activate();
			const [current] = modulesFor(simulator, trigger.webhookUrl);
			const replacedAt = lastRegistration(trigger);

			const inWindow = [await deliver(trigger, old.secret, 'c-1'), await deliver(trigger, current.secret, 'c-1')];
			const afterWindow = [await at(replacedAt + WINDOW, async () => await deliver(trigger, old.secret, 'c-2')), await at(replacedAt + WINDOW, async () => await deliver(trigger, old.secret, 'c-3'))];
			expect(answers([...inWindow, ...afterWindow])).toEqual([
				[200, true],
				[200, false],
				[401, false],
				[401, false],
			]);
			expect(warnings()).toEqual([
				`Campaign Calling Trigger "Campaign Calling Trigger": refused a delivery through webhook module ${old.id} (call.ended): module ${current.id} replaced it for the webhook URL ${trigger.webhookUrl} on ${new Date(replacedAt).toISOString()}, and its retries have ended.`,
			]);
		});

		it('a test delivery (the editor\'s listen) is not judged by the production URL, which is all a webhook context gives', async () => {
			const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials(), 'http://127.0.0.1:5678/webhook-test');
			await trigger.activate();
			const [listening] = modulesFor(simulator, trigger.webhookUrl);
			// As n8n-core's WebhookContext does for a test delivery too: the production URL.
			const productionUrl = trigger.webhookUrl.replace('/webhook-test/', '/webhook/');
			const url = jest.spyOn(WebhookContext.prototype, 'getNodeWebhookUrl').mockReturnValue(productionUrl);
			try {
				const outcome = await trigger.deliver({
					headers: { [SECRET_HEADER]: listening.secret },
					body: { event_type: 'call.ended', data: { call_id: 'c-test' } },
					mode: 'manual',
				});
				expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
				expect(warnings()).toEqual([]);
			} finally {
				url.mockRestore();
			}
		});
	});

	it('a delivery whose secret is no module\'s is counted in the log: at once, then at most once a minute with the number since', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		const start = Date.now();
		const unknown = async (time: number) => await at(time, async () => await deliver(trigger, 'a-secret-of-no-module', 'c-1'));
		expect(answers([await unknown(start), await unknown(start + 1_000), await unknown(start + 59_999)])).toEqual([
			[401, false],
			[401, false],
			[401, false],
		]);
		await unknown(start + 60_000);
		const prefix = 'Campaign Calling Trigger "Campaign Calling Trigger": answered 401 to';
		const cause = "whose secret belongs to none of this node's modules";
		expect(warnings()).toEqual([
			`${prefix} 1 delivery(ies) ${cause}: a module whose record this workflow lost (imported without its static data, or restored from an older backup), or a request from elsewhere.`,
			`${prefix} 3 delivery(ies) ${cause} since ${new Date(start).toISOString()}: a module whose record this workflow lost (imported without its static data, or restored from an older backup), or a request from elsewhere.`,
		]);
	});

	it('a copy of the workflow (another id; the same node id and static data) takes none of the original\'s records: it registers its own modules, and refuses the original\'s', async () => {
		const original = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await original.activate();
		const [originals] = modulesFor(simulator, original.webhookUrl);
		const copy = new TriggerHarness(original.node.parameters, credentials(), undefined, {
			workflowId: `copy-of-${original.workflow.id}`,
			staticData: original.savedStaticData(),
			nodeType: original.nodeType,
		});
		expect(await copy.checkExists()).toBe(false);
		await copy.activate();
		const [, copys] = modulesFor(simulator, copy.webhookUrl);
		expect(answers([await deliver(copy, originals.secret, 'c-1'), await deliver(copy, copys.secret, 'c-1'), await deliver(original, originals.secret, 'c-2')])).toEqual([
			[401, false],
			[200, true],
			[200, true],
		]);
		const moduleIds = (trigger: TriggerHarness) => Object.values(trigger.staticData.modules as Record<string, { moduleId: string }>).map(({ moduleId }) => moduleId);
		expect([moduleIds(original), moduleIds(copy)]).toEqual([[originals.id], [copys.id]]);
	});

	it('a renamed node, after a restart, keeps its modules: nothing registered again, the module\'s deliveries run', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended', 'call.failed'], options: {} }, credentials());
		await trigger.activate();
		const modules = modulesFor(simulator, trigger.webhookUrl);
		const renamed = restartedTrigger(trigger, { nodeName: 'Call Outcomes' });
		expect(await renamed.checkExists()).toBe(true);
		await renamed.activate();
		expect(modulesFor(simulator, renamed.webhookUrl)).toEqual(modules);
		for (const { secret, event } of modules) {
			const outcome = await renamed.deliver({ headers: { [SECRET_HEADER]: secret }, body: { event_type: event, data: { call_id: 'c-1' } } });
			expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
		}
	});
});

describe("the static data an execution writes back whole at its end (n8n saves its copy when a node changed it)", () => {
	const counting = (global: IDataObject) => {
		global.counter = ((global.counter as number | undefined) ?? 0) + 1;
	};

	it.each([
		['from a copy of the saved data (one process, n8n 1.x workers)', 'saved' as const],
		["from an empty copy (n8n 2.x's queue-mode workers)", 'empty' as const],
	])("a later node's write %s keeps the trigger's records beside it: a restarted process still accepts the module's deliveries", async (_label, copy) => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		const [module] = modulesFor(simulator, trigger.webhookUrl);
		const records = trigger.staticData.modules;
		trigger.executionStaticData = copy;
		trigger.laterNode = counting;

		expect((await deliver(trigger, module.secret, 'c-1')).statusCode).toBe(200);
		expect(trigger.savedStaticData()).toEqual({ global: { counter: 1, [`campaignCallingTrigger:${trigger.workflow.id}:trigger-under-test`]: { modules: records } } });
		const restarted = restartedTrigger(trigger);
		expect((await deliver(restarted, module.secret, 'c-2')).statusCode).toBe(200);
	});

	it('an execution whose nodes change nothing is not written back: the trigger marks nothing changed', async () => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, credentials());
		await trigger.activate();
		const [module] = modulesFor(simulator, trigger.webhookUrl);
		trigger.executionStaticData = 'empty';
		const saved = trigger.workflow.staticData;
		expect((await deliver(trigger, module.secret, 'c-1')).statusCode).toBe(200);
		expect(trigger.workflow.staticData).toBe(saved);
	});
});
