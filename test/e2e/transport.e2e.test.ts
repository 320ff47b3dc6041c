/**
 * The transport's failures inside real n8n, the run's shared n8n of each line for the first two:
 * - redirects: the credential Test and the node's own requests follow none, so a redirect to another
 *   origin (a second local server on another port) receives no request, and so never the key;
 * - a Get's answer is one record: `data` null or a list fails the node with a clear error, never a
 *   JavaScript TypeError or two items, and goes to the item under Continue On Fail;
 * - a request n8n refuses to build: the unit tests provoke one through n8n-core's HTTP stack with a
 *   proxy setting that is no web address; here, both lines refuse to start with that setting.
 * `E2E_PACKAGE_ROOT=<another checkout, built>` runs the same cases against earlier code.
 */
import { startScriptedServer, type ScriptedServer } from '../helpers/kit.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { executionError, nodeOutput, simulatorCredential, startN8n, type Execution, type N8nInstance } from './harness/n8n.ts';
import { e2eVersions } from './harness/runtime.ts';
import { CREDENTIAL_TYPE, campaignCallingNode, webhookDriven, type CredentialRef } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

/** A shared, busy machine can take minutes to start n8n. */
const READY_TIMEOUT_MS = 400_000;

const ACTION = 'Campaign Calling';

const REDIRECT_HINT =
	'A followed redirect would carry the API key to another address. Enter the address the service answers at as the Base URL of the Campaign Calling credential.';

describe.each(e2eVersions())('the transport in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let elsewhere: ScriptedServer;
	let credential: CredentialRef;

	beforeAll(async () => {
		simulator = await startSimulator();
		elsewhere = await startScriptedServer((_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ status: 'ok', message: 'ok', data: { id: 'elsewhere' } }));
		});
		n8n = await sharedN8n(version);
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		await simulator?.close();
		await elsewhere?.close();
	});

	beforeEach(() => {
		simulator.reset();
		elsewhere.requests.length = 0;
	});

	/** Runs the action node once, from a webhook, and returns its execution. */
	async function runAction(path: string, parameters: Record<string, unknown>, extra: { credential?: CredentialRef; onError?: string } = {}): Promise<Execution> {
		const action = campaignCallingNode(ACTION, parameters, extra.credential ?? credential);
		if (extra.onError) Object.assign(action, { onError: extra.onError });
		const workflow = await n8n.api.createWorkflow(webhookDriven(path, [action]));
		try {
			await n8n.api.activate(workflow.id);
			await n8n.api.callWebhook(path, {});
			const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
			return execution;
		} finally {
			await n8n.api.deleteWorkflow(workflow.id);
		}
	}

	const keyRequestsElsewhere = () => elsewhere.requests.filter((request) => String(request.headers.authorization ?? '').includes(DEMO.apiKey)).length;

	describe('a redirect to another origin', () => {
		it('the credential Test follows none: the other origin receives nothing', async () => {
			simulator.injectFault({ kind: 'redirect', path: '/v1/webhooks', location: `${elsewhere.url}/v1/webhooks` });
			const result = await n8n.api.testCredential({ ...credential, type: CREDENTIAL_TYPE, data: { baseUrl: simulator.url, apiKey: DEMO.apiKey } });
			console.log(`n8n ${version}: credential Test redirected: ${result.status} ${result.message}; requests elsewhere: ${elsewhere.requests.length}, carrying the key: ${keyRequestsElsewhere()}`);
			expect(result.status).toBe('Error');
			expect(simulator.requests).toHaveLength(1);
			expect(elsewhere.requests).toHaveLength(0);
		});

		it.each([
			['Campaign → Get', 'redirect-get-campaign', { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId }, '/v1/campaigns/by-id/', 'Get Campaign'],
			['Add to Campaign', 'redirect-add-contact', { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, firstName: 'Ada', lastName: 'Lovelace', phoneNumber: '+14155550199' }, '/addToCampaign/', 'Add to Campaign'],
		])('%s follows none: fails naming the operation, the status and the origin; the other origin receives nothing', async (label, path, parameters, faultPath, operation) => {
			simulator.injectFault({ kind: 'redirect', path: faultPath, location: `${elsewhere.url}${faultPath}x?key=${DEMO.apiKey}` });
			const execution = await runAction(path, parameters);
			const error = executionError(execution);
			console.log(`n8n ${version}: ${label} redirected: ${error?.message} | ${error?.description}; requests elsewhere: ${elsewhere.requests.length}, carrying the key: ${keyRequestsElsewhere()}`);
			expect(execution.status).toBe('error');
			expect(error?.message).toBe(`${operation} failed: the service answered HTTP 302 Found, a redirect to ${elsewhere.url}, which the node does not follow`);
			expect(error?.description).toBe(REDIRECT_HINT);
			expect(simulator.requests).toHaveLength(1);
			expect(elsewhere.requests).toHaveLength(0);
		});
	});

	describe('a Get\'s answer is one record', () => {
		it('Contact → Get answered data null fails with the operation and what came back', async () => {
			simulator.injectFault({ kind: 'null-data', path: '/contacts/' });
			const execution = await runAction('null-contact', { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId });
			const error = executionError(execution);
			console.log(`n8n ${version}: Contact → Get, data null: ${execution.status} ${error?.message}`);
			expect(execution.status).toBe('error');
			expect(error?.message).toBe('Get Contact failed: the service answered without a contact record (data was null)');
		});

		it('Campaign → Get answered a list fails instead of giving two items', async () => {
			simulator.injectFault({ kind: 'list-data', path: '/v1/campaigns/by-id/' });
			const execution = await runAction('list-campaign', { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId });
			const error = executionError(execution);
			console.log(`n8n ${version}: Campaign → Get, data a list: ${execution.status} ${error?.message}`);
			expect(execution.status).toBe('error');
			expect(error?.message).toBe('Get Campaign failed: the service answered without a campaign record (data was a list of 2)');
		});

		it('under Continue On Fail, the error goes to the item', async () => {
			simulator.injectFault({ kind: 'null-data', path: '/contacts/' });
			const execution = await runAction('null-contact-continue', { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId }, { onError: 'continueRegularOutput' });
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, ACTION)).toEqual([{ error: 'Get Contact failed: the service answered without a contact record (data was null)' }]);
		});
	});
});

describe.each(e2eVersions())('a request n8n %s cannot build', (version) => {
	// Unit tests provoke it through n8n-core's HTTP stack (test/nodes/shared/transport/failures.test.ts);
	// in real n8n, the same setting stops n8n from starting, so no workflow can meet it.
	it('cannot come from a proxy setting that is no web address: n8n refuses to start with it', async () => {
		const proxyEnv = { HTTP_PROXY: 'http://proxy host:3128', HTTPS_PROXY: 'http://proxy host:3128', NO_PROXY: '127.0.0.1' };
		const started = startN8n({ version, withPackage: true, extraEnv: proxyEnv, readyTimeoutMs: READY_TIMEOUT_MS });
		// 2.x logs the cause; 1.x's command loader reports only that "start" failed to load.
		await expect(started).rejects.toThrow(version.startsWith('2.') ? /TypeError: Invalid URL/ : /exited \(code 1\) before ready/);
	});
});
