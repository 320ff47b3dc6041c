/**
 * The service on another machine, in real n8n: the simulator runs in a network namespace of its own,
 * on a veth pair with addresses from the benchmarking range (198.18.0.0/15), so its Base URL is not
 * loopback and traffic between the two ends stays on this machine (the namespace has no other link
 * and no route).
 * - n8n's webhook URL left on 127.0.0.1: activation, and "Listen for test event", fail with the
 *   trigger's message, and the service holds no module.
 * - n8n's webhook URL set to the host end of the veth, where a plain TCP forwarder stands in for the
 *   reverse proxy in front of n8n: activation registers one module per event, and an event the
 *   service delivers there runs the workflow.
 * Needs root, or sudo without a password, for `ip netns`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { join } from 'node:path';
import type { DeliveryResult, WebhookModuleRecord } from '../simulator/types.ts';
import { triggerUrl } from './harness/deliveries.ts';
import { type N8nInstance, nodeOutput, simulatorCredential, startN8n } from './harness/n8n.ts';
import { answersOk, cleanEnv, freePort, log, runDir, sleep, spawnLogged, type LoggedProcess } from './harness/process.ts';
import { describeEachVersion, ensureRuntime } from './harness/runtime.ts';
import { sharedN8n } from './harness/shared.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, triggerWorkflow, type CredentialRef, type WorkflowNode } from './harness/workflows.ts';

const NAMESPACE = 'cc-reach-e2e';
const HOST_LINK = 'ccreach-host';
const SERVICE_LINK = 'ccreach-svc';
/** This machine's end of the veth: an address of this machine that is not loopback. */
const HOST_ADDRESS = '198.19.77.1';
const SERVICE_ADDRESS = '198.19.77.2';
const SERVICE_PORT = 4010;
const SERVICE_URL = `http://${SERVICE_ADDRESS}:${SERVICE_PORT}`;
const EVENTS = ['call.ended', 'call.failed'];
const CHECKLIST = 'https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling/blob/main/docs/installation.md#behind-a-reverse-proxy';
const START_TIMEOUT_MS = 400_000;

/** `ip netns` needs root: as root directly, otherwise through sudo without a password (a CI runner). */
const asRoot = (command: string, args: string[]): [string, string[]] => (process.getuid?.() === 0 ? [command, args] : ['sudo', ['-n', command, ...args]]);

function ip(...args: string[]): void {
	const [command, fullArgs] = asRoot('ip', args);
	try {
		execFileSync(command, fullArgs, { stdio: 'pipe' });
	} catch (error) {
		const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
		throw new Error(`${command} ${fullArgs.join(' ')} failed (this test needs root, or sudo without a password, for ip netns): ${stderr}`);
	}
}

/** Removes the namespace (its veth end goes with it, and so the pair) and a host end left over by a crashed run. */
function removeNamespace(): void {
	for (const args of [['netns', 'del', NAMESPACE], ['link', 'del', HOST_LINK]]) {
		const [command, fullArgs] = asRoot('ip', args);
		spawnSync(command, fullArgs, { stdio: 'ignore' });
	}
}

function makeNamespace(): void {
	removeNamespace();
	ip('netns', 'add', NAMESPACE);
	ip('link', 'add', HOST_LINK, 'type', 'veth', 'peer', 'name', SERVICE_LINK);
	ip('link', 'set', SERVICE_LINK, 'netns', NAMESPACE);
	ip('addr', 'add', `${HOST_ADDRESS}/30`, 'dev', HOST_LINK);
	ip('link', 'set', HOST_LINK, 'up');
	ip('netns', 'exec', NAMESPACE, 'ip', 'addr', 'add', `${SERVICE_ADDRESS}/30`, 'dev', SERVICE_LINK);
	ip('netns', 'exec', NAMESPACE, 'ip', 'link', 'set', SERVICE_LINK, 'up');
	ip('netns', 'exec', NAMESPACE, 'ip', 'link', 'set', 'lo', 'up');
}

/** The simulator inside the namespace, listening on its veth address, delivering to this machine's end. */
async function startServiceInNamespace(): Promise<LoggedProcess> {
	const [command, args] = asRoot('ip', ['netns', 'exec', NAMESPACE, process.execPath, join(process.cwd(), 'test', 'simulator', 'cli.ts')]);
	const service = spawnLogged({
		label: 'simulator in a network namespace',
		command,
		args,
		cwd: process.cwd(),
		env: { ...cleanEnv(), SIMULATOR_HOST: SERVICE_ADDRESS, SIMULATOR_PORT: String(SERVICE_PORT), SIMULATOR_DELIVERY_HOSTS: HOST_ADDRESS },
		logFile: join(runDir(), 'trigger-reach-simulator.log'),
	});
	const deadline = Date.now() + 30_000;
	while (!(await answersOk(`${SERVICE_URL}/__sim/health`))) {
		if (service.exited() || Date.now() > deadline) throw new Error(`The simulator did not answer at ${SERVICE_URL}; its log:\n${service.logs()}`);
		await sleep(200);
	}
	return service;
}

async function service<T>(method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${SERVICE_URL}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`${method} ${SERVICE_URL}${path}: HTTP ${response.status}`);
	return (await response.json()) as T;
}
const webhookModules = async () => (await service<{ webhooks: WebhookModuleRecord[] }>('GET', '/__sim/modules')).webhooks;
const requestsReceived = async () => await service<Array<{ method: string; path: string }>>('GET', '/__sim/requests');

/** A reverse proxy in front of n8n, as plain TCP: listens on `host`, forwards to n8n on 127.0.0.1. */
async function forwarder(host: string, toPort: () => number): Promise<Server & { port: number }> {
	const server = createServer((incoming) => {
		const outgoing = connect(toPort(), '127.0.0.1');
		incoming.pipe(outgoing).pipe(incoming);
		incoming.on('error', () => outgoing.destroy());
		outgoing.on('error', () => incoming.destroy());
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, host, () => resolve());
	});
	return Object.assign(server, { port: (server.address() as { port: number }).port });
}

let serviceProcess: LoggedProcess | undefined;
beforeAll(async () => {
	makeNamespace();
	serviceProcess = await startServiceInNamespace();
}, 60_000);
afterAll(async () => {
	await serviceProcess?.stop();
	removeNamespace();
});

describeEachVersion('the service at a non-loopback address of a test host, n8n %s', (version) => {
	beforeEach(async () => {
		await service('POST', '/__sim/reset');
	});

	describe("with n8n's webhook URL left on 127.0.0.1", () => {
		let n8n: N8nInstance;
		let credential: CredentialRef;
		beforeAll(async () => {
			n8n = await sharedN8n(version);
			credential = await simulatorCredential(n8n.api, SERVICE_URL, 'Campaign Calling (service in a namespace)');
		}, 700_000);

		const expectRefusal = (message: string, trigger: WorkflowNode, base: 'webhook' | 'webhook-test') => {
			const url = triggerUrl(n8n, trigger).replace('/webhook/', `/${base}/`);
			expect(message).toContain(
				`The service cannot reach n8n's webhook URL ${url}: 127.0.0.1 is a loopback address, and the service (${SERVICE_ADDRESS}:${SERVICE_PORT}, the credential's Base URL) runs on another machine, where that address is the service's own machine, not n8n. Set both N8N_WEBHOOK_URL (read by n8n 2.30 and later) and WEBHOOK_URL (read by n8n 1.x and 2.0 to 2.28) to the address at which the service reaches n8n, then re-create n8n's container (docker restart keeps the old environment) or restart the n8n process with the new environment, and publish the workflow again (n8n 2.x: unpublish, then publish; 1.x: deactivate, then activate): ${CHECKLIST} . Nothing was registered at the service.`,
			);
		};

		it('activation fails with the trigger\'s message, and the service holds no module', async () => {
			const trigger = campaignCallingTriggerNode(EVENTS, credential);
			const created = await n8n.api.createWorkflow(triggerWorkflow(`Reach refused ${version}`, trigger));
			try {
				const failure = await n8n.api.activate(created.id).then(
					() => undefined,
					(error: unknown) => error as Error,
				);
				log(`n8n ${version}, activation with the webhook URL on 127.0.0.1: ${failure?.message ?? 'succeeded'}`);
				const modules = await webhookModules();
				log(`n8n ${version}: the service holds ${modules.length} module(s): ${modules.map((module) => `${module.event_type} → ${module.settings.url}`).join(', ')}`);
				expect(failure).toBeDefined();
				expectRefusal(failure!.message, trigger, 'webhook');
				expect(modules).toEqual([]);
				expect(await requestsReceived()).toEqual([]);
			} finally {
				await n8n.api.deleteWorkflow(created.id).catch(() => undefined);
			}
		});

		it('"Listen for test event" fails with the same message for the test URL, and the service holds no module', async () => {
			const trigger = campaignCallingTriggerNode(EVENTS, credential);
			const body = { active: false, ...triggerWorkflow(`Reach refused, listening ${version}`, trigger) };
			const created = await n8n.api.rest<{ data: { id: string } }>('POST', '/workflows', body);
			expect(created.status).toBe(200);
			const workflowId = created.body.data.id;
			try {
				const saved = await n8n.api.rest<{ data: Record<string, unknown> }>('GET', `/workflows/${workflowId}`);
				const answer = await n8n.api.rest<{ message?: string; data?: unknown }>('POST', `/workflows/${workflowId}/run`, {
					workflowData: saved.body.data,
					triggerToStartFrom: { name: TRIGGER_NODE_NAME },
				});
				log(`n8n ${version}, "Listen for test event": HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 800)}`);
				const modules = await webhookModules();
				log(`n8n ${version}: the service holds ${modules.length} module(s): ${modules.map((module) => `${module.event_type} → ${module.settings.url}`).join(', ')}`);
				expect(answer.status).not.toBe(200);
				expectRefusal(answer.body.message ?? '', trigger, 'webhook-test');
				expect(modules).toEqual([]);
			} finally {
				await n8n.api.deleteWorkflow(workflowId).catch(() => undefined);
			}
		});
	});

	describe("with n8n's webhook URL at this machine's end of the veth, behind a forwarder", () => {
		let n8n: N8nInstance | undefined;
		let proxy: (Server & { port: number }) | undefined;
		let n8nPort = 0;
		beforeAll(async () => {
			n8nPort = await freePort();
			proxy = await forwarder(HOST_ADDRESS, () => n8nPort);
			const runtime = await ensureRuntime(version);
			n8n = await startN8n({
				version,
				withPackage: true,
				port: n8nPort,
				extraEnv: { [runtime.webhookUrlVariable]: `http://${HOST_ADDRESS}:${proxy.port}/` },
				readyTimeoutMs: START_TIMEOUT_MS,
			});
		}, 700_000);
		afterAll(async () => {
			await n8n?.stop();
			await new Promise((resolve) => proxy?.close(resolve) ?? resolve(undefined));
		});

		it('activation registers one module per event there, and an event the service delivers runs the workflow', async () => {
			const credential = await simulatorCredential(n8n!.api, SERVICE_URL, 'Campaign Calling (service in a namespace)');
			const trigger = campaignCallingTriggerNode(EVENTS, credential);
			const created = await n8n!.api.createWorkflow(triggerWorkflow(`Reach allowed ${version}`, trigger));
			await n8n!.api.activate(created.id);
			const url = `http://${HOST_ADDRESS}:${proxy!.port}/webhook/${trigger.webhookId}/webhook`;
			const modules = await webhookModules();
			log(`n8n ${version}, activation with the webhook URL at ${HOST_ADDRESS}: the service holds ${modules.length} module(s): ${modules.map((module) => `${module.event_type} → ${module.settings.url}`).join(', ')}`);
			expect(modules.map((module) => [module.event_type, module.settings.url]).sort()).toEqual(EVENTS.map((event) => [event, url]));

			const delivered = await service<DeliveryResult[]>('POST', '/__sim/deliver', { event_type: 'call.ended' });
			log(`n8n ${version}: the service's delivery: ${JSON.stringify(delivered)}`);
			expect(delivered.map(({ url: to, ok, status }) => ({ to, ok, status }))).toEqual([{ to: url, ok: true, status: 200 }]);
			const [execution] = await n8n!.api.waitForExecutions(created.id, 1, 60_000);
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, TRIGGER_NODE_NAME).map((item) => item.event_type)).toEqual(['call.ended']);
			await n8n!.api.deleteWorkflow(created.id);
		});
	});
});
