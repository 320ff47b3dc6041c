/**
 * The trigger behind a real reverse proxy with TLS (issue 62, point 4), in real n8n on both lines: Debian's nginx,
 * then Debian's Caddy, as plain processes on 127.0.0.1, each running the very block docs/reverse-proxy.md shows
 * (read from the page; its address, ports, certificate files and n8n's port replaced), with a server certificate
 * for 127.0.0.1 from a local CA made with openssl. n8n runs with the page's settings (N8N_PROXY_HOPS=1, both
 * webhook URL variables and the editor's URL at the proxy's https address). The service simulator runs as a process
 * of its own that trusts the local CA (NODE_EXTRA_CA_CERTS), as a service trusts a public one, and delivers through
 * the proxy: nothing reaches n8n's port but the proxy and the test's own control calls.
 * Per proxy: n8n's Webhook URLs (production and test, as the editor builds them from /rest/settings) show the
 * proxied https address; "Listen for test event" registers the test URL there and a delivery through the proxy runs
 * the workflow; publishing registers one module per event at the production URL there, and the service's delivery
 * through the proxy is answered 200 and runs once; plain http is redirected to https.
 * Also: the compose examples (examples/docker-compose/) pass Debian's `docker-compose config`, put n8n and the proxy
 * on one network, give n8n the page's settings and mount the page's blocks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeliveryResult, WebhookModuleRecord } from '../simulator/types.ts';
import { BROWSER_ID, OWNER, type N8nInstance, nodeOutput, simulatorCredential, startN8n } from './harness/n8n.ts';
import { freePort, log, runDir, sleep } from './harness/process.ts';
import {
	COMPOSE_DIR,
	COMPOSE_FILES,
	COMPOSE_PROXY_CONFIGS,
	COMPOSE_UPSTREAM,
	DOC_UPSTREAM,
	PROXY_KINDS,
	PUBLIC_HOST,
	composeConfig,
	composeServices,
	documentedBlock,
	documentedN8nSettings,
	httpsCall,
	makeLocalTls,
	proxyWorkDir,
	removeWorkDir,
	requireReverseProxyPackages,
	startProxy,
	startSimulatorProcess,
	type LocalTls,
	type ProxyKind,
	type RunningProxy,
	type SimulatorProcess,
} from './harness/reverseProxy.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, setNode, triggerWorkflow, type CredentialRef } from './harness/workflows.ts';

const EVENTS = ['call.ended', 'call.failed'];
const DOWNSTREAM = 'Downstream';
const START_TIMEOUT_MS = 400_000;

interface RunAnswer {
	data?: { executionId?: string; waitingForWebhook?: boolean };
}

interface FrontendSettings {
	urlBaseWebhook: string;
	urlBaseEditor: string;
	/** 2.x only: the test URL's base (1.x's editor builds the test URL from urlBaseEditor). */
	urlBaseWebhookTest?: string;
	endpointWebhook: string;
	endpointWebhookTest: string;
}

/** As the editor's root store keeps each base URL: with a trailing slash (n8n sends urlBaseEditor without one). */
const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/**
 * The Webhook URLs panel's two addresses, as n8n's editor builds them from /rest/settings (n8n-editor-ui's root
 * store): production `urlBaseWebhook + endpointWebhook`; test `urlBaseWebhookTest + endpointWebhookTest` on 2.x,
 * `urlBaseEditor + endpointWebhookTest` on 1.x. The node's part (`/<webhookId>/webhook`) follows.
 */
function webhookUrlsPanel(settings: FrontendSettings): { production: string; test: string } {
	return {
		production: `${withSlash(settings.urlBaseWebhook)}${settings.endpointWebhook}`,
		test: `${withSlash(settings.urlBaseWebhookTest ?? settings.urlBaseEditor)}${settings.endpointWebhookTest}`,
	};
}

describe('the compose examples (examples/docker-compose/), read back by Debian\'s docker-compose config', () => {
	beforeAll(() => requireReverseProxyPackages());

	it.each(PROXY_KINDS)('%s: valid; n8n and the proxy on one network, only the proxy publishing ports; n8n with the page\'s settings; the proxy mounting the page\'s block', (kind) => {
		const file = join(COMPOSE_DIR, COMPOSE_FILES[kind]);
		const config = composeConfig(file);
		const services = composeServices(config);
		log(`docker-compose -f ${file} config: services ${Object.entries(services).map(([name, service]) => `${name} (${service.image}; networks ${service.networks.join(', ')}; ports ${service.ports.join(', ') || 'none'})`).join(', ')}`);
		expect(Object.keys(services).sort()).toEqual([kind, 'n8n'].sort());
		const { n8n, [kind]: proxy } = services;
		expect(n8n.image).toMatch(/^n8nio\/n8n:\d/);
		expect(proxy.networks).toHaveLength(1);
		expect(n8n.networks).toEqual(proxy.networks);
		expect(n8n.ports).toEqual([]);
		expect(proxy.ports.sort()).toEqual(['443:443', '80:80']);
		// n8n's settings are the page's, which the real-n8n cases below run.
		expect(n8n.environment).toEqual(documentedN8nSettings(`https://${PUBLIC_HOST}/`));
		// The proxy's configuration is a file of the example, and it is the page's block with n8n reached by its service name.
		const mounted = proxy.volumes.find((volume) => volume.endsWith(':ro') && volume.includes(COMPOSE_PROXY_CONFIGS[kind]));
		expect(mounted).toBeDefined();
		const source = mounted!.split(':')[0];
		expect(existsSync(source)).toBe(true);
		expect(readFileSync(source, 'utf8')).toBe(documentedBlock(kind).replaceAll(DOC_UPSTREAM, COMPOSE_UPSTREAM));
	});
});

describeEachVersion('the trigger behind a real reverse proxy with TLS (a local CA), n8n %s', (version) => {
	let workDir: string | undefined;
	let tls: LocalTls;
	let simulator: SimulatorProcess | undefined;
	let n8n: N8nInstance | undefined;
	let credential: CredentialRef;
	let httpsPort = 0;
	let httpPort = 0;
	/** The proxy's https address: n8n's public address, in both webhook URL variables and the editor's URL. */
	let publicUrl = '';

	beforeAll(async () => {
		requireReverseProxyPackages();
		workDir = proxyWorkDir();
		tls = makeLocalTls(workDir);
		httpsPort = await freePort();
		httpPort = await freePort();
		publicUrl = `https://127.0.0.1:${httpsPort}/`;
		simulator = await startSimulatorProcess(tls.caFile, join(runDir(), `reverse-proxy-simulator-${version}.log`));
		const settings = documentedN8nSettings(publicUrl);
		log(`n8n ${version}: started with the page's settings: ${Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(' ')}`);
		n8n = await startN8n({ version, withPackage: true, extraEnv: settings, readyTimeoutMs: START_TIMEOUT_MS });
		credential = await simulatorCredential(n8n.api, simulator.url, 'Campaign Calling (behind a reverse proxy)');
	}, 700_000);

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.stop();
		removeWorkDir(workDir);
	});

	const webhookModules = async () => (await simulator!.call<{ webhooks: WebhookModuleRecord[] }>('GET', '/__sim/modules')).webhooks;
	const activeModules = async () => (await webhookModules()).filter((module) => module.status === 'active');
	const describeModules = (modules: WebhookModuleRecord[]) => modules.map((module) => `${module.event_type} → ${module.settings.url} (${module.status})`).join(', ') || 'none';
	const deliver = async (marker: string) =>
		await simulator!.call<DeliveryResult[]>('POST', '/__sim/deliver', { event_type: 'call.ended', payload: { data: { marker } } });

	describe.each(PROXY_KINDS)('behind %s', (kind: ProxyKind) => {
		let proxy: RunningProxy | undefined;

		beforeAll(async () => {
			proxy = await startProxy(kind, workDir!, { httpsPort, httpPort, n8nPort: n8n!.port, tls });
			log(`n8n ${version}: ${kind} serves ${publicUrl} with docs/reverse-proxy.md's block, as run:\n${proxy.site}`);
		}, 60_000);

		afterAll(async () => {
			await proxy?.stop();
		});

		it("n8n's Webhook URLs (production and test) show the proxied https address; the editor answers through the proxy; plain http is redirected to https", async () => {
			const settings = (await n8n!.api.rest<{ data: FrontendSettings }>('GET', '/settings')).body.data;
			const panel = webhookUrlsPanel(settings);
			log(`n8n ${version}, /rest/settings: urlBaseWebhook ${settings.urlBaseWebhook}, urlBaseWebhookTest ${settings.urlBaseWebhookTest ?? '(1.x: none)'}, urlBaseEditor ${settings.urlBaseEditor}; the Webhook URLs panel: production ${panel.production}/…, test ${panel.test}/…`);
			expect(panel).toEqual({ production: `${publicUrl}webhook`, test: `${publicUrl}webhook-test` });

			// The editor through the proxy, over TLS that the local CA vouches for: its page, the owner's sign-in, and
			// the settings the Webhook URLs panel is built from, with that session.
			const editor = await httpsCall(publicUrl, tls.ca);
			expect([editor.status, String(editor.headers['content-type'])]).toEqual([200, expect.stringContaining('text/html')]);
			const signIn = await httpsCall(`${publicUrl}rest/login`, tls.ca, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
				body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, email: OWNER.email, password: OWNER.password }),
			});
			expect(signIn.status).toBe(200);
			const cookie = ([] as string[]).concat(signIn.headers['set-cookie'] ?? []).map((header) => header.split(';')[0]).find((pair) => pair.startsWith('n8n-auth='));
			expect(cookie).toBeDefined();
			const throughProxy = await httpsCall(`${publicUrl}rest/settings`, tls.ca, { headers: { cookie: cookie!, 'browser-id': BROWSER_ID } });
			expect(throughProxy.status).toBe(200);
			expect(webhookUrlsPanel((JSON.parse(throughProxy.text) as { data: FrontendSettings }).data)).toEqual(panel);

			const plain = await httpsCall(`http://127.0.0.1:${httpPort}/webhook/x`, tls.ca);
			log(`n8n ${version}, ${kind}: plain http answered ${plain.status}, location ${String(plain.headers.location)}`);
			expect(plain.status).toBeGreaterThanOrEqual(301);
			expect(plain.status).toBeLessThanOrEqual(308);
			expect(String(plain.headers.location)).toMatch(/^https:\/\/127\.0\.0\.1(:\d+)?\/webhook\/x$/);
		});

		it('"Listen for test event" registers the test URL at the proxied https address, and the service\'s delivery through the proxy runs the workflow', async () => {
			await simulator!.call('POST', '/__sim/reset');
			const trigger = campaignCallingTriggerNode(['call.ended'], credential);
			const body = { active: false, ...triggerWorkflow(`Behind ${kind}, listening (${version})`, trigger, [setNode(DOWNSTREAM, { marker: '={{ $json.data.marker }}' })]) };
			const created = await n8n!.api.rest<{ data: { id: string } }>('POST', '/workflows', body);
			expect(created.status).toBe(200);
			const workflowId = created.body.data.id;
			try {
				const saved = await n8n!.api.rest<{ data: Record<string, unknown> }>('GET', `/workflows/${workflowId}`);
				const listening = await n8n!.api.rest<RunAnswer>('POST', `/workflows/${workflowId}/run`, { workflowData: saved.body.data, triggerToStartFrom: { name: TRIGGER_NODE_NAME } });
				expect([listening.status, listening.body.data]).toEqual([200, { waitingForWebhook: true }]);
				const testUrl = `${publicUrl}webhook-test/${trigger.webhookId}/webhook`;
				const modules = await activeModules();
				log(`n8n ${version}, ${kind}, listening: the service holds ${modules.length} module(s): ${describeModules(modules)}`);
				expect(modules.map((module) => [module.event_type, module.settings.url])).toEqual([['call.ended', testUrl]]);

				const delivered = await deliver(`test-through-${kind}`);
				log(`n8n ${version}, ${kind}: the service's delivery to the test URL: ${JSON.stringify(delivered)}`);
				expect(delivered.map(({ url, ok, status, attempts }) => ({ url, ok, status, attempts }))).toEqual([{ url: testUrl, ok: true, status: 200, attempts: 1 }]);
				const executions = await n8n!.api.waitForExecutions(workflowId, 1, 60_000);
				expect(executions.map((execution) => [execution.mode, execution.status])).toEqual([['manual', 'success']]);
				expect(nodeOutput(executions[0], DOWNSTREAM).map((item) => item.marker)).toEqual([`test-through-${kind}`]);
			} finally {
				await n8n!.api.deleteWorkflow(workflowId).catch(() => undefined);
			}
		});

		it("publishing registers one module per event at the proxied https production URL, and the service's delivery through the proxy is answered 200 and runs once", async () => {
			await simulator!.call('POST', '/__sim/reset');
			const trigger = campaignCallingTriggerNode(EVENTS, credential);
			const created = await n8n!.api.createWorkflow(triggerWorkflow(`Behind ${kind} (${version})`, trigger, [setNode(DOWNSTREAM, { marker: '={{ $json.data.marker }}' })]));
			try {
				await n8n!.api.activate(created.id);
				const productionUrl = `${publicUrl}webhook/${trigger.webhookId}/webhook`;
				const modules = await activeModules();
				log(`n8n ${version}, ${kind}, published: the service holds ${modules.length} module(s): ${describeModules(modules)}`);
				expect(modules.map((module) => [module.event_type, module.settings.url]).sort()).toEqual(EVENTS.map((event) => [event, productionUrl]));

				const delivered = await deliver(`production-through-${kind}`);
				log(`n8n ${version}, ${kind}: the service's delivery to the production URL: ${JSON.stringify(delivered)}`);
				expect(delivered.map(({ url, ok, status, attempts }) => ({ url, ok, status, attempts }))).toEqual([{ url: productionUrl, ok: true, status: 200, attempts: 1 }]);
				const executions = await n8n!.api.waitForExecutions(created.id, 1, 60_000);
				expect(executions.map((execution) => [execution.mode, execution.status])).toEqual([['webhook', 'success']]);
				expect(nodeOutput(executions[0], TRIGGER_NODE_NAME).map((item) => item.event_type)).toEqual(['call.ended']);
				expect(nodeOutput(executions[0], DOWNSTREAM).map((item) => item.marker)).toEqual([`production-through-${kind}`]);
				// Still one execution a moment later: nothing was delivered twice.
				await sleep(2_000);
				expect(await n8n!.api.listExecutions(created.id)).toHaveLength(1);
			} finally {
				await n8n!.api.deleteWorkflow(created.id).catch(() => undefined);
			}
		});
	});
});
