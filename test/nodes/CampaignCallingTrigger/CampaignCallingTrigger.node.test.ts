import { createHash, scryptSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { IDataObject, IHookFunctions, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { SECRET_HEADER } from '../../../nodes/CampaignCallingTrigger/delivery';
import { CampaignCallingTrigger } from '../../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { IGNORE_REPEATS_DEFAULT } from '../../../nodes/CampaignCallingTrigger/parameters';
import { rememberRegistration, secretVerifier } from '../../../nodes/CampaignCallingTrigger/registrations';
import { FINGERPRINT_SCRYPT } from '../../../nodes/shared/transport/request';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness, moduleSecret, modulesFor, restartedTrigger } from '../../helpers/triggerContext.ts';

/** The largest event the trigger takes: 1 MiB (docs/trigger.md). */
const MAX_BODY_BYTES = 1024 * 1024;
import { nodeTypesFor } from '../../helpers/n8nContext.ts';

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
		const secrets = bodies.map((body) => body.settings.headers[SECRET_HEADER] as string);
		expect(new Set(secrets).size).toBe(2);
		for (const [index, body] of bodies.entries()) {
			const secret = secrets[index];
			expect(secret).toMatch(/^[A-Za-z0-9]{64}$/);
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

	it('keeps each module\'s URL, event, delivery settings, account fingerprint, sequence, time and id, and the SHA-256 of its secret in static data, never the secret or the key', async () => {
		const trigger = harness(['call.ended', 'campaign.completed'], { timeout: 45 });
		const before = Date.now();
		await trigger.activate();
		const modules = modulesFor(simulator, trigger.webhookUrl);
		const verifierOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');
		// scrypt of the Base URL and key under one salt per trigger (workflow and node): records of one account compare equal.
		const fingerprint = scryptSync(`${simulator.url}\n${DEMO.apiKey}`, `campaignCallingTrigger:${trigger.workflow.id}:${trigger.node.id}`, 32, FINGERPRINT_SCRYPT).toString('base64url');
		expect(trigger.staticData).toEqual({
			modules: Object.fromEntries(
				modules.map(({ event, id, secret }, index) => [
					verifierOf(secret),
					{
						url: trigger.webhookUrl,
						event,
						verifier: verifierOf(secret),
						timeout: 45,
						retryLimit: 3,
						account: fingerprint,
						// In registration order, from 1: the first activation read no records.
						sequence: index + 1,
						registeredAt: expect.any(Number),
						moduleId: id,
					},
				]),
			),
		});
		const records = Object.values(trigger.staticData.modules as Record<string, { registeredAt: number }>);
		expect(records.every(({ registeredAt }) => registeredAt >= before && registeredAt <= Date.now())).toBe(true);
		const saved = JSON.stringify(trigger.savedStaticData());
		for (const { secret } of modules) expect(saved).not.toContain(secret);
		expect(saved).not.toContain(DEMO.apiKey);
	});

	it('re-activation with the same events registers nothing new', async () => {
		const trigger = harness(['call.ended']);
		await trigger.activate();
		await trigger.delete();
		await trigger.activate();
		await trigger.activate();
		expect(moduleRequests()).toHaveLength(1);
	});

	it('widening the event set registers only the new events, each with its own secret and the next sequences; the earlier module\'s is still accepted', async () => {
		const trigger = harness(['call.ended']);
		await trigger.activate();
		await trigger.delete();
		trigger.setParameters({ events: ['call.ended', 'call.failed', 'conversation.transcript'], options: {} });
		expect(await trigger.checkExists()).toBe(false);
		await trigger.activate();
		const modules = modulesFor(simulator, trigger.webhookUrl);
		expect(modules.map((module) => module.event)).toEqual(['call.ended', 'call.failed', 'conversation.transcript']);
		expect(new Set(modules.map((module) => module.secret)).size).toBe(3);
		// Each registration follows the highest sequence among the records its activation read.
		const records = Object.values(trigger.staticData.modules as Record<string, { event: string; sequence: number }>);
		expect(records.map(({ event, sequence }) => [event, sequence])).toEqual([
			['call.ended', 1],
			['call.failed', 2],
			['conversation.transcript', 3],
		]);
		for (const { event, secret } of modules) {
			const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body: { event_type: event } });
			expect(outcome.output).toEqual([{ json: { event_type: event }, pairedItem: { item: 0 } }]);
		}
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

	it('a failed registration fails activation with the service\'s reason, and says what a module the service created all the same means', async () => {
		simulator.injectFault({ kind: 'http-500', path: '/v1/modules/webhook' });
		const trigger = harness(['call.ended']);
		await expect(trigger.activate()).rejects.toMatchObject({
			message: expect.stringMatching(/Registering the webhook module for call.ended failed: the service answered HTTP 500/),
			description: expect.stringContaining(
				'may have carried out this request before it failed. If the service created the module all the same, its deliveries are refused, since this trigger never learnt its secret; activating again registers a new one.',
			),
		});
	});
});

describe('an activation that fails part-way (n8n drops what create() wrote)', () => {
	const EVENTS = ['call.started', 'call.ended', 'campaign.completed'];

	async function failOnSecondModule(trigger: TriggerHarness) {
		simulator.injectFault({ kind: 'http-500', path: '/v1/modules/webhook', after: 1 });
		await expect(trigger.activate()).rejects.toThrow(/Registering the webhook module for call\.\w+ failed/);
		expect(modulesFor(simulator, trigger.webhookUrl).map((module) => module.event)).toEqual(['call.started']);
	}

	/** Each module's own delivery starts exactly one item, of its own event. */
	async function expectEachModuleAccepted(trigger: TriggerHarness) {
		const modules = modulesFor(simulator, trigger.webhookUrl);
		expect(modules.map((module) => module.event).sort()).toEqual([...EVENTS].sort());
		for (const { event, secret } of modules) {
			const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret, 'x-campaign-calling-event': event }, body: {} });
			expect([event, outcome.statusCode, outcome.output]).toEqual([event, 200, [{ json: { event_type: event }, pairedItem: { item: 0 } }]]);
		}
	}

	it('keeps the registered module through n8n\'s cleanup: the next activation registers only the missing events', async () => {
		const trigger = harness(EVENTS);
		await failOnSecondModule(trigger);
		expect(await trigger.checkExists()).toBe(false);
		await trigger.activate();
		expect(moduleRequests().map((request) => (request.body as Record<string, unknown>).event_type)).toEqual([
			'call.started',
			'call.ended',
			'call.ended',
			'campaign.completed',
		]);
		await expectEachModuleAccepted(trigger);
	});

	it('after the failure, a restarted n8n (nothing in memory) still knows the first module', async () => {
		const trigger = harness(EVENTS);
		await failOnSecondModule(trigger);
		const restarted = restartedTrigger(trigger);
		await restarted.activate();
		await expectEachModuleAccepted(restarted);
	});

	it('when even the cleanup\'s save is lost, a retry in the same n8n process registers no event twice', async () => {
		const trigger = harness(EVENTS);
		await failOnSecondModule(trigger);
		const lostEverything = new TriggerHarness(trigger.node.parameters, credentials(), undefined, {
			workflowId: trigger.workflow.id as string,
			staticData: {},
			nodeType: trigger.nodeType,
		});
		await lostEverything.activate();
		await expectEachModuleAccepted(lostEverything);
	});

	it('control: with neither the cleanup\'s save nor this process\'s memory, the retry registers call.started again', async () => {
		// Without both records, nothing tells the retry that call.started has a module: that is what they guard against.
		const trigger = harness(EVENTS);
		await failOnSecondModule(trigger);
		const restartedWithoutCleanup = restartedTrigger(trigger, { staticData: {} });
		await restartedWithoutCleanup.activate();
		expect(modulesFor(simulator, trigger.webhookUrl).map((module) => module.event)).toEqual([
			'call.started',
			'call.started',
			'call.ended',
			'campaign.completed',
		]);
	});
});

describe('webhook(): deliveries', () => {
	async function activeTrigger(events: string[], options: Record<string, unknown> = {}) {
		const trigger = harness(events, options);
		await trigger.activate();
		return { trigger, secret: moduleSecret(simulator, trigger.webhookUrl) };
	}

	it('emits the delivered body as one item and acknowledges with JSON', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const body = { event_type: 'call.ended', data: { contact_id: DEMO.completedContactId, duration: 42 } };
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body });
		expect(outcome.output).toEqual([{ json: body, pairedItem: { item: 0 } }]);
		// Answered by the execution's first node (execute()), so only once n8n created the execution.
		expect(outcome.result.webhookResponse).toBeUndefined();
		expect([outcome.statusCode, outcome.json]).toEqual([200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }]);
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
		expect(outcome.json).toEqual({ status: 'error', message: 'Unauthorized' });
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
		expect(outcome.result.webhookResponse).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 0 });
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

	it('passes on every field of an event, one named with an empty text included', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const event = { event_type: 'call.ended', '': 'kept', data: { call_id: 'c-empty-name' } };
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body: event });
		expect(outcome.output?.map((item) => item.json)).toEqual([event]);
	});

	it('adds no headers field when Include Headers is off', async () => {
		const { trigger, secret } = await activeTrigger(['call.ended']);
		const outcome = await trigger.deliver({ headers: { [SECRET_HEADER]: secret }, body: { event_type: 'call.ended' } });
		expect(Object.keys(outcome.result.workflowData?.[0][0].json ?? {})).not.toContain('headers');
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
		expect(delivery.headers[SECRET_HEADER]).toBe(moduleSecret(simulator, trigger.webhookUrl));
		expect(JSON.stringify(trigger.savedStaticData())).not.toContain(String(delivery.headers[SECRET_HEADER]));
		const outcome = await trigger.deliver({
			headers: Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)])),
			raw: delivery.body,
		});
		const item = outcome.result.workflowData?.[0][0].json;
		expect(item).toEqual(expect.objectContaining({ event_type: 'call.ended', data: expect.objectContaining({ contact_id: DEMO.completedContactId }) }));
	});
});

describe('the trigger in the editor', () => {
	it('has version 2 alone, so that n8n evaluates no expression per delivery for it', () => {
		const { version, defaultVersion } = new CampaignCallingTrigger().description;
		expect({ version, defaultVersion }).toEqual({ version: 2, defaultVersion: undefined });
	});

	it('warns, in two sentences and in n8n\'s words, that publishing and "Listen for test event" leave modules at the service, and links the way that registers nothing', () => {
		const notice = new CampaignCallingTrigger().description.properties.find((property) => property.type === 'notice');
		expect(notice?.displayName).toMatch(/^Publishing this workflow \(n8n 1\.x: activating it\) and "Listen for test event" register one webhook module per selected event/);
		expect(notice?.displayName).toMatch(/which keeps it after you unpublish; only your provider can remove it\./);
		expect(notice?.displayName).toMatch(/To see an item without registering anything, pin <a href="[^"]+" target="_blank">the sample event<\/a> with "set mock data" in the output panel\.$/);
		expect(notice?.displayName.split(/\.\s/)).toHaveLength(2);
		expect(notice?.displayName).not.toMatch(/see the docs|restart/);
	});

	it('links the notice to the guide\'s section with the sample event, in the repository package.json names', () => {
		const notice = new CampaignCallingTrigger().description.properties.find((property) => property.type === 'notice');
		const link = /href="([^"]+)"/.exec(notice?.displayName ?? '')?.[1];
		const { repository } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { repository: { url: string } };
		expect(link).toBe(`${repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/main/docs/trigger.md#seeing-an-item-without-registering-anything`);
		expect(readFileSync(join(__dirname, '../../../docs/trigger.md'), 'utf8')).toMatch(/^## Seeing an item without registering anything$/m);
	});

	describe('"Listen for test event" (n8n starts each listen from empty static data and saves none of it)', () => {
		const TEST_BASE_URL = 'http://127.0.0.1:5678/webhook-test';
		const EVENTS = ['call.ended', 'call.failed'];

		/** One listen as n8n's TestWebhooks runs it: a Workflow with empty static data, checkExists, then create if needed. */
		async function listen(nodeType: CampaignCallingTrigger, workflowId: string): Promise<TriggerHarness> {
			const listening = new TriggerHarness({ events: EVENTS }, credentials(), TEST_BASE_URL, { workflowId, staticData: {}, nodeType });
			await listening.activate();
			return listening;
		}

		it('three listens in one n8n process register one module per event, and each listen accepts its deliveries', async () => {
			const nodeType = new CampaignCallingTrigger();
			const listens = [];
			for (let count = 0; count < 3; count += 1) listens.push(await listen(nodeType, 'listened-workflow'));
			const modules = modulesFor(simulator, listens[0].webhookUrl);
			expect(modules.map((module) => module.event)).toEqual(EVENTS);
			for (const { event, secret } of modules) {
				const outcome = await listens[2].deliver({ headers: { [SECRET_HEADER]: secret, 'x-campaign-calling-event': event }, body: {}, mode: 'manual' });
				expect([event, outcome.statusCode]).toEqual([event, 200]);
			}
		});

		it('control: the first listen after n8n restarts, with the workflow not activated since, registers each event again', async () => {
			const first = await listen(new CampaignCallingTrigger(), 'restarted-workflow');
			const restarted = restartedTrigger(first, { staticData: {} });
			await listen(restarted.nodeType, 'restarted-workflow');
			expect(modulesFor(simulator, first.webhookUrl).map((module) => module.event)).toEqual([...EVENTS, ...EVENTS]);
		});

		it('after an activation stored them, a restarted n8n that reactivates the workflow reuses the test modules: the next listen registers nothing and accepts their deliveries', async () => {
			const workflowId = 'activated-after-listening';
			const beforeRestart = new CampaignCallingTrigger();
			const listened = await listen(beforeRestart, workflowId);
			const production = new TriggerHarness({ events: EVENTS }, credentials(), undefined, { workflowId, staticData: {}, nodeType: beforeRestart });
			await production.activate();

			// n8n restarts and reactivates the active workflow from its stored static data, then the user listens again.
			const reactivated = restartedTrigger(production);
			await reactivated.activate();
			const listenedAgain = await listen(reactivated.nodeType, workflowId);

			expect(modulesFor(simulator, listened.webhookUrl).map((module) => module.event)).toEqual(EVENTS);
			expect(modulesFor(simulator, production.webhookUrl).map((module) => module.event)).toEqual(EVENTS);
			for (const { event, secret } of modulesFor(simulator, listened.webhookUrl)) {
				const outcome = await listenedAgain.deliver({ headers: { [SECRET_HEADER]: secret, 'x-campaign-calling-event': event }, body: {}, mode: 'manual' });
				expect([event, outcome.statusCode]).toEqual([event, 200]);
			}
		});
	});

	it('shows Ignore Repeats with the default the code applies when the option was never added', () => {
		const options = new CampaignCallingTrigger().description.properties.find((property) => property.name === 'options');
		const ignoreRepeats = options?.options?.find((option) => 'name' in option && option.name === 'ignoreRepeats') as { default?: unknown };
		expect(ignoreRepeats.default).toBe(IGNORE_REPEATS_DEFAULT);
		expect(IGNORE_REPEATS_DEFAULT).toBe(true);
	});

	it('labels the event choice "Trigger On", as n8n\'s UX guidelines name it, while saved workflows keep the name events', () => {
		const events = new CampaignCallingTrigger().description.properties.find((property) => property.name === 'events');
		expect({ displayName: events?.displayName, type: events?.type }).toEqual({ displayName: 'Trigger On', type: 'multiOptions' });
	});

	it.each([
		[['call.ended'], 'Call Ended'],
		[['call.started', 'campaign.quota_reached'], 'Call Started, Campaign Quota Reached'],
	])('shows the subtitle of %j as "%s", evaluated by n8n\'s expression engine as the canvas does', (events, title) => {
		const trigger = new CampaignCallingTrigger();
		const node: INode = {
			id: 'subtitle',
			name: 'Campaign Calling Trigger',
			type: 'n8n-nodes-campaign-calling.campaignCallingTrigger',
			typeVersion: 2,
			position: [0, 0],
			parameters: { events },
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypesFor(trigger) });
		expect(workflow.expression.getSimpleParameterValue(node, trigger.description.subtitle as string, 'internal', {})).toBe(title);
	});
});

describe("this trigger's key", () => {
	/** The keys under which delete() writes back this process's registrations into static data, each with the key its registration was made under. */
	async function keysOf(workflowId: string | undefined): Promise<Record<string, string>> {
		const global: IDataObject = {};
		const context = {
			getWorkflow: () => ({ id: workflowId }),
			getNode: () => ({ id: 'node-1', name: 'Campaign Calling Trigger' }),
			getWorkflowStaticData: () => global,
			logger: { info: () => undefined, warn: () => undefined },
		} as unknown as IHookFunctions;
		for (const key of ['workflow-1:node-1', ':node-1', 'workflow-2:node-1']) {
			const record = { url: 'https://n8n.example.test/webhook', event: 'call.ended', verifier: secretVerifier(key), timeout: 30, retryLimit: 3, account: 'salt.a', sequence: 1, registeredAt: 1_000, moduleId: key };
			rememberRegistration.call(context, key, record);
		}
		await new CampaignCallingTrigger().webhookMethods.default.delete.call(context);
		return Object.fromEntries(
			Object.entries(global).map(([storeKey, stored]) => [storeKey, Object.values((stored as { modules: Record<string, { moduleId: string }> }).modules).map((module) => module.moduleId).join(', ')]),
		);
	}

	it("is its workflow's id and its node's id, the workflow's empty while it is not saved; its records sit in static data under it", async () => {
		expect(await keysOf('workflow-1')).toEqual({ 'campaignCallingTrigger:workflow-1:node-1': 'workflow-1:node-1' });
		expect(await keysOf(undefined)).toEqual({ 'campaignCallingTrigger::node-1': ':node-1' });
	});
});
