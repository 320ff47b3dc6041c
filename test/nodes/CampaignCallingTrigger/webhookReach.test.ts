/**
 * The check of n8n's webhook URL against the credential's Base URL, through n8n-core's real
 * HookContext. A Base URL that is not on this machine is the name campaign-calling.test, whose
 * lookups the test answers with 127.0.0.1: the check sees a service on another machine, and a
 * request that got past it would reach the simulator here, where the test counts it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HookContext } from 'n8n-core';
import type { IHookFunctions, IWebhookData } from 'n8n-workflow';

import { checkWebhookReach } from '../../../nodes/CampaignCallingTrigger/webhookReach';
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { additionalDataFor, type CredentialData } from '../../helpers/n8nContext.ts';
import { REMOTE_SERVICE_NAME as SERVICE_NAME, answerLookupsWithLoopback, type LoopbackLookups } from '../../helpers/loopbackLookups.ts';
import { TriggerHarness, WEBHOOK_ID, modulesFor } from '../../helpers/triggerContext.ts';

const DOCS = 'https://docs.n8n.io/hosting/configuration/configuration-examples/webhook-url/';
const CHECKLIST = 'https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling/blob/main/docs/installation.md#behind-a-reverse-proxy';
const VARIABLE = 'both N8N_WEBHOOK_URL (read by n8n 2.30 and later) and WEBHOOK_URL (read by n8n 1.x and 2.0 to 2.28)';
/** What a refusal or a warning says to do once the variables are set: a new process, and on 2.x a new publish. */
const APPLY = 're-create n8n\'s container (docker restart keeps the old environment) or restart the n8n process with the new environment, and publish the workflow again (n8n 2.x: unpublish, then publish; 1.x: deactivate, then activate)';

let simulator: Simulator;
let lookups: LoopbackLookups;
beforeAll(async () => {
	simulator = await startSimulator();
	lookups = answerLookupsWithLoopback();
});
afterAll(async () => {
	lookups.restore();
	await simulator.close();
});
beforeEach(() => {
	simulator.reset();
	lookups.clear();
});

const port = () => new URL(simulator.url).port;
/** The simulator, reached by a name that is not loopback: a service on another machine, for the check. */
const remoteService = (): CredentialData => ({ baseUrl: `http://${SERVICE_NAME}:${port()}/`, apiKey: DEMO.apiKey });
const localService = (): CredentialData => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
const EVENTS = { events: ['call.ended', 'call.failed'], options: {} };

async function failureOf(promise: Promise<unknown>): Promise<Error & { description?: string }> {
	return (await promise.then(
		() => {
			throw new Error('expected a failure');
		},
		(error: unknown) => error,
	)) as Error & { description?: string };
}

/** n8n's HookContext for "Listen for test event" (the test URL) or for activation, with the given webhook base URLs. */
function hookContext(
	trigger: TriggerHarness,
	credentials: CredentialData,
	{ isTest, webhookBaseUrl, webhookTestBaseUrl }: { isTest: boolean; webhookBaseUrl: string; webhookTestBaseUrl: string },
): IHookFunctions {
	const additionalData = { ...additionalDataFor(credentials), webhookBaseUrl, webhookTestBaseUrl };
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: trigger.node.name,
		path: `${WEBHOOK_ID}/webhook`,
		webhookDescription: trigger.nodeType.description.webhooks![0],
		workflowId: trigger.workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: WEBHOOK_ID,
		isTest,
	};
	return new HookContext(trigger.workflow, trigger.node, additionalData, isTest ? 'manual' : 'trigger', isTest ? 'manual' : 'activate', webhookData);
}

describe('a loopback webhook host, as the URL parser gives it, is refused while the service is on another machine', () => {
	/** Whether activation with this webhook base URL, against a service on another machine, is refused. */
	async function refuses(webhookBaseUrl: string): Promise<boolean> {
		const trigger = new TriggerHarness(EVENTS, remoteService(), `${webhookBaseUrl}webhook`);
		const context = hookContext(trigger, remoteService(), { isTest: false, webhookBaseUrl, webhookTestBaseUrl: webhookBaseUrl });
		return await checkWebhookReach.call(context).then(
			() => false,
			() => true,
		);
	}

	it.each([
		'http://localhost:5678/',
		'http://LOCALHOST.:5678/',
		'http://n8n.localhost/',
		'http://localhost.localdomain/',
		'http://ip6-localhost/',
		'http://ip6-loopback/',
		'http://127.0.0.1:5678/',
		'http://127.1/',
		'http://127.255.255.254/',
		'http://0x7f.1/',
		'http://2130706433/',
		'http://0.0.0.0:5678/',
		'http://0/',
		'http://[::1]:5678/',
		'http://[0:0:0:0:0:0:0:1]/',
		'http://[::]/',
		'http://[::ffff:127.0.0.1]/',
		'http://[::ffff:0.0.0.0]/',
		'http://[::ffff:127.0.1.0]/',
	])('%s is loopback: refused', async (url) => {
		expect(await refuses(url)).toBe(true);
	});

	it.each([
		'http://10.1.2.3/',
		'http://172.16.0.5/',
		'http://192.168.1.10/',
		'http://169.254.1.1/',
		'http://100.64.0.1/',
		'http://128.0.0.1/',
		'http://1.127.0.0/',
		'http://[fd00::1]/',
		'http://[fe80::1]/',
		'http://[::ffff:10.0.0.1]/',
		'http://[::2]/',
		'http://n8n.local/',
		'http://n8n.internal/',
		'http://n8n/',
		'http://localhost.example.com/',
		'http://127.0.0.1.example.com/',
		'http://mylocalhost/',
		'http://n8n.example.com/',
	])('%s is not loopback: allowed', async (url) => {
		expect(await refuses(url)).toBe(false);
	});
});

describe('activation refuses a loopback webhook URL while the service is on another machine', () => {
	it('with n8n\'s default webhook URL: the message names the URL, why, what to set and n8n\'s page; nothing reaches the service', async () => {
		const trigger = new TriggerHarness(EVENTS, remoteService(), 'http://localhost:5678/webhook');
		const failure = await failureOf(trigger.activate());
		expect(failure.name).toBe('NodeOperationError');
		expect(failure.message).toBe(
			`The service cannot reach n8n's webhook URL http://localhost:5678/webhook/${WEBHOOK_ID}/webhook: localhost is a loopback address, and the service (${SERVICE_NAME}:${port()}, the credential's Base URL) runs on another machine, where that address is the service's own machine, not n8n. Set ${VARIABLE} to the address at which the service reaches n8n, then ${APPLY}: ${CHECKLIST} . Nothing was registered at the service.`,
		);
		expect(failure.description).toBe(
			`n8n gives its own host in webhook URLs until its webhook URL is set, for example N8N_WEBHOOK_URL=https://n8n.example.com/ and WEBHOOK_URL=https://n8n.example.com/ (n8n before 2.30 reads only WEBHOOK_URL) behind a reverse proxy. See ${DOCS}`,
		);
		expect(simulator.requests).toEqual([]);
		expect(lookups.names).toEqual([]);
	});

	it.each([
		'http://127.0.0.1:5678/webhook',
		'http://127.1:5678/webhook',
		'http://127.9.9.9:5678/webhook',
		'http://[::1]:5678/webhook',
		'http://0.0.0.0:5678/webhook',
		'http://[::ffff:127.0.0.1]:5678/webhook',
		'http://n8n.localhost:5678/webhook',
		'https://localhost/webhook',
	])('%s: refused, and the simulator holds no module', async (webhookBaseUrl) => {
		const trigger = new TriggerHarness(EVENTS, remoteService(), webhookBaseUrl);
		const failure = await failureOf(trigger.activate());
		expect(failure.message).toMatch(/^The service cannot reach n8n's webhook URL .* is a loopback address, .* Set both N8N_WEBHOOK_URL \(read by n8n 2\.30 and later\) and WEBHOOK_URL \(read by n8n 1\.x and 2\.0 to 2\.28\)/);
		expect(simulator.requests).toEqual([]);
		expect(simulator.state.webhookModules.size).toBe(0);
	});

	it('"Listen for test event": the test URL is checked the same way, and refused before anything is registered', async () => {
		const trigger = new TriggerHarness(EVENTS, remoteService());
		const context = hookContext(trigger, remoteService(), {
			isTest: true,
			webhookBaseUrl: 'https://n8n.example.com/webhook',
			webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		});
		const hooks = trigger.nodeType.webhookMethods.default;
		const failure = await failureOf(hooks.checkExists.call(context));
		expect(failure.message).toContain(`webhook URL http://localhost:5678/webhook-test/${WEBHOOK_ID}/webhook: localhost is a loopback address`);
		await failureOf(hooks.create.call(context));
		expect(simulator.requests).toEqual([]);
	});
});

describe('what the check lets through', () => {
	it('a loopback Base URL with a loopback webhook URL (n8n and the service on one machine, as in the demo): registered', async () => {
		const trigger = new TriggerHarness(EVENTS, localService(), 'http://127.0.0.1:5678/webhook');
		await trigger.activate();
		expect(modulesFor(simulator, trigger.webhookUrl).map(({ event }) => event)).toEqual(['call.ended', 'call.failed']);
	});

	it('a Base URL named localhost, with a loopback webhook URL: registered', async () => {
		const trigger = new TriggerHarness(EVENTS, { baseUrl: `http://localhost:${port()}`, apiKey: DEMO.apiKey }, 'http://127.0.0.1:5678/webhook');
		await trigger.activate();
		expect(modulesFor(simulator, trigger.webhookUrl)).toHaveLength(2);
	});

	it.each([
		['a public name', 'https://n8n.example.com/webhook'],
		['a private IPv4 address (10/8)', 'http://10.1.2.3:5678/webhook'],
		['a private IPv4 address (172.16/12)', 'http://172.16.0.5:5678/webhook'],
		['a private IPv4 address (192.168/16)', 'http://192.168.1.10:5678/webhook'],
		['a link-local address', 'http://169.254.10.20:5678/webhook'],
		['an IPv6 unique local address', 'http://[fd12:3456::1]:5678/webhook'],
		['an IPv6 link-local address', 'http://[fe80::1]:5678/webhook'],
		['a .local name', 'http://n8n.local:5678/webhook'],
		['an .internal name', 'http://n8n.internal:5678/webhook'],
		['a name of one label', 'http://n8n:5678/webhook'],
	])('%s, with the service on another machine: registered (the service may share that network)', async (_label, webhookBaseUrl) => {
		const trigger = new TriggerHarness(EVENTS, remoteService(), webhookBaseUrl);
		await trigger.activate();
		expect(modulesFor(simulator, trigger.webhookUrl).map(({ event }) => event)).toEqual(['call.ended', 'call.failed']);
	});

	it('"Listen for test event" with a test URL the service can reach passes the check', async () => {
		const trigger = new TriggerHarness(EVENTS, remoteService());
		const context = hookContext(trigger, remoteService(), {
			isTest: true,
			webhookBaseUrl: 'http://localhost:5678/webhook',
			webhookTestBaseUrl: 'https://n8n.example.com/webhook-test',
		});
		await expect(checkWebhookReach.call(context)).resolves.toBeUndefined();
	});

	it('a Base URL that is no web address is left to the registration, which refuses it with its own message', async () => {
		const trigger = new TriggerHarness(EVENTS, { baseUrl: 'campaign-calling', apiKey: DEMO.apiKey }, 'http://localhost:5678/webhook');
		const failure = await failureOf(trigger.activate());
		expect(failure.message).toBe(
			'Registering the webhook module for call.ended failed: The credential\'s Base URL "campaign-calling" is not a web address. Enter it with its scheme, for example https://api.example.com',
		);
	});
});

describe('a webhook URL that is no http(s) address (n8n\'s webhook URL setting without its scheme) is refused before anything is registered', () => {
	it('WEBHOOK_URL=n8n.example.com: the message names the URL n8n built, why, what to set and the checklist; nothing reaches the service', async () => {
		// n8n adds "/" and "webhook" to the setting as it is: n8n.example.com/webhook/<id>/webhook.
		const trigger = new TriggerHarness(EVENTS, remoteService(), 'n8n.example.com/webhook');
		const failure = await failureOf(trigger.activate());
		expect(failure.name).toBe('NodeOperationError');
		expect(failure.message).toBe(
			`The service cannot reach n8n's webhook URL n8n.example.com/webhook/${WEBHOOK_ID}/webhook: it is not an http:// or https:// address, so no delivery could ever arrive (n8n's webhook URL setting lacks its scheme). Set ${VARIABLE} to the full address at which the service reaches n8n, for example https://n8n.example.com/, then ${APPLY}: ${CHECKLIST} . Nothing was registered at the service.`,
		);
		expect(failure.description).toBe(`n8n puts the webhook URL setting, as it is, before /webhook/ in every webhook URL. See ${DOCS}`);
		expect(simulator.requests).toEqual([]);
		expect(simulator.state.webhookModules.size).toBe(0);
	});

	it.each([
		['a name and a port without a scheme', 'n8n.example.com:443/webhook'],
		['an address without a scheme', '203.0.113.7:5678/webhook'],
		['another scheme', 'ftp://n8n.example.com/webhook'],
		['a path alone', '/webhook'],
	])('%s (%s): refused, whatever the Base URL (here the service on this machine), and the simulator holds no module', async (_label, webhookBaseUrl) => {
		const trigger = new TriggerHarness(EVENTS, localService(), webhookBaseUrl);
		const failure = await failureOf(trigger.activate());
		expect(failure.message).toMatch(/^The service cannot reach n8n's webhook URL .*: it is not an http:\/\/ or https:\/\/ address/);
		expect(simulator.requests).toEqual([]);
		expect(simulator.state.webhookModules.size).toBe(0);
	});

	it('"Listen for test event" with a test URL without its scheme: refused by checkExists and create', async () => {
		const trigger = new TriggerHarness(EVENTS, localService());
		const context = hookContext(trigger, localService(), {
			isTest: true,
			webhookBaseUrl: 'https://n8n.example.com/webhook',
			webhookTestBaseUrl: 'n8n.example.com/webhook-test',
		});
		const hooks = trigger.nodeType.webhookMethods.default;
		expect((await failureOf(hooks.checkExists.call(context))).message).toContain(`webhook URL n8n.example.com/webhook-test/${WEBHOOK_ID}/webhook: it is not an http:// or https:// address`);
		await failureOf(hooks.create.call(context));
		expect(simulator.requests).toEqual([]);
	});
});

describe('what may keep the service from n8n is registered, with one warning for n8n\'s log', () => {
	const contextFor = (baseUrl: string, webhookBaseUrl: string) => {
		const credentials = { baseUrl, apiKey: DEMO.apiKey };
		return hookContext(new TriggerHarness(EVENTS, credentials), credentials, {
			isTest: false,
			webhookBaseUrl,
			webhookTestBaseUrl: `${webhookBaseUrl}-test`,
		});
	};
	const advice = `If that is not the https address at which the service reaches n8n, set ${VARIABLE} to it, then ${APPLY}: ${CHECKLIST} . Modules registered with this URL stay at the service.`;
	const warningOf = async (baseUrl: string, webhookBaseUrl: string) => await checkWebhookReach.call(contextFor(baseUrl, webhookBaseUrl));

	it('plain http against an https Base URL: the deliveries and their secret header travel unencrypted', async () => {
		expect(await warningOf('https://api.example.com', 'http://n8n.example.com/webhook')).toBe(
			`Campaign Calling Trigger "Campaign Calling Trigger": n8n's webhook URL http://n8n.example.com/webhook/${WEBHOOK_ID}/webhook is plain http while the service is reached over https: its deliveries, with this trigger's secret header, travel unencrypted. ${advice}`,
		);
	});

	it('plain http on a public host, against an http Base URL too: the deliveries cross the internet unencrypted', async () => {
		expect(await warningOf('http://api.example.com', 'http://n8n.example.com/webhook')).toBe(
			`Campaign Calling Trigger "Campaign Calling Trigger": n8n's webhook URL http://n8n.example.com/webhook/${WEBHOOK_ID}/webhook is plain http on a public host: the deliveries, with this trigger's secret header, cross the internet unencrypted. ${advice}`,
		);
	});

	it('port 5678 on a public host (a URL n8n built from N8N_HOST and N8N_PORT), with plain http: both in one line', async () => {
		expect(await warningOf('https://api.example.com', 'http://n8n.example.com:5678/webhook')).toBe(
			`Campaign Calling Trigger "Campaign Calling Trigger": n8n's webhook URL http://n8n.example.com:5678/webhook/${WEBHOOK_ID}/webhook is plain http while the service is reached over https: its deliveries, with this trigger's secret header, travel unencrypted; it names port 5678, n8n's own listen port by default, on a public host: n8n builds such a URL from N8N_HOST and N8N_PORT, and a reverse proxy in front of n8n usually serves another (443). ${advice}`,
		);
		expect(await warningOf('https://api.example.com', 'https://203.0.113.7:5678/webhook')).toMatch(/^Campaign Calling Trigger "Campaign Calling Trigger": n8n's webhook URL https:\/\/203\.0\.113\.7:5678\/\S+ names port 5678, n8n's own listen port by default, on a public host: /);
	});

	it.each([
		['a private IPv4 address', 'https://10.1.2.3/webhook', '10.1.2.3'],
		['an IPv4-mapped private address', 'https://[::ffff:192.168.1.10]/webhook', '[::ffff:c0a8:10a]'],
		['a shared address (100.64/10)', 'https://100.64.0.1/webhook', '100.64.0.1'],
		['the last shared address (100.64/10)', 'https://100.127.255.254/webhook', '100.127.255.254'],
		['the first address of 172.16/12', 'https://172.16.0.1/webhook', '172.16.0.1'],
		['the last address of 172.16/12', 'https://172.31.255.254/webhook', '172.31.255.254'],
		['an address of 192.168/16', 'https://192.168.0.1/webhook', '192.168.0.1'],
		['a link-local address (169.254/16)', 'https://169.254.10.20/webhook', '169.254.10.20'],
		['an IPv6 unique local address', 'https://[fd12:3456::1]/webhook', '[fd12:3456::1]'],
		['an IPv6 link-local address', 'https://[fe80::1]/webhook', '[fe80::1]'],
		['a name of one label', 'https://n8n/webhook', 'n8n'],
		['a .internal name', 'https://n8n.internal/webhook', 'n8n.internal'],
		['a .home.arpa name', 'https://n8n.home.arpa/webhook', 'n8n.home.arpa'],
	])('%s while the service is public: the service reaches it only if it shares that network', async (_label, webhookBaseUrl, host) => {
		expect(await warningOf('https://api.example.com', webhookBaseUrl)).toBe(
			`Campaign Calling Trigger "Campaign Calling Trigger": n8n's webhook URL ${webhookBaseUrl}/${WEBHOOK_ID}/webhook is on a local network (${host}) while the service (api.example.com) is not: the service reaches it only if it shares that network. ${advice}`,
		);
	});

	it.each([
		['https on a public host, against https', 'https://api.example.com', 'https://n8n.example.com/webhook'],
		['https on a public host with another port', 'https://api.example.com', 'https://n8n.example.com:8443/webhook'],
		['https on a public host, against http', 'http://api.example.com', 'https://n8n.example.com/webhook'],
		['plain http on a private host, against http on a private host', 'http://10.0.0.2:4010', 'http://10.0.0.1:5678/webhook'],
		['a private host against a private Base URL', 'https://api.internal', 'https://192.168.1.10/webhook'],
		['port 5678 on a private host', 'http://10.0.0.2', 'http://n8n.lan:5678/webhook'],
		['both on loopback (the demo)', 'http://127.0.0.1:4010', 'http://localhost:5678/webhook'],
		['IPv6 outside the local ranges', 'https://api.example.com', 'https://[2001:db8::1]/webhook'],
		['an address just above 172.16/12', 'https://api.example.com', 'https://172.32.0.1/webhook'],
		['an address just below 172.16/12', 'https://api.example.com', 'https://172.15.255.254/webhook'],
		['an address just above 100.64/10', 'https://api.example.com', 'https://100.128.0.1/webhook'],
		['an address just below 100.64/10', 'https://api.example.com', 'https://100.63.255.254/webhook'],
		['an address beside 192.168/16', 'https://api.example.com', 'https://192.169.0.1/webhook'],
		['an address beside 169.254/16', 'https://api.example.com', 'https://169.253.0.1/webhook'],
		['an address of 168.254/16, beside 169.254/16 and 192.168/16', 'https://api.example.com', 'https://168.254.0.1/webhook'],
		['an address beside 10/8', 'https://api.example.com', 'https://11.0.0.1/webhook'],
		['a second number of 172.16/12 under another first', 'https://api.example.com', 'https://11.20.0.1/webhook'],
		['a second number of 192.168/16 under another first', 'https://api.example.com', 'https://11.168.0.1/webhook'],
		['a second number of 100.64/10 under another first', 'https://api.example.com', 'https://11.100.0.1/webhook'],
		['an IPv6 address that starts like fc00::/7 but is not in it', 'https://api.example.com', 'https://[fc::1]/webhook'],
	])('%s: no warning', async (_label, baseUrl, webhookBaseUrl) => {
		expect(await checkWebhookReach.call(contextFor(baseUrl, webhookBaseUrl))).toBeUndefined();
	});
});

describe('the checklist the refusals and warnings link to', () => {
	it('is the "Behind a reverse proxy" section of docs/installation.md, in the repository package.json names', () => {
		const root = join(__dirname, '../../..');
		const repository = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository: { url: string } }).repository.url;
		expect(CHECKLIST).toBe(`${repository.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/main/docs/installation.md#behind-a-reverse-proxy`);
		expect(readFileSync(join(root, 'docs/installation.md'), 'utf8')).toMatch(/^## Behind a reverse proxy$/m);
	});
});
