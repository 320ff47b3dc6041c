import axios from 'axios';
import type { ICredentialDataDecryptedObject, IDataObject, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { CampaignCallingApi } from '../../credentials/CampaignCallingApi.credentials';
import { CampaignCalling } from '../../nodes/CampaignCalling/CampaignCalling.node';
import { authenticate, nodeTypesFor } from '../helpers/n8nContext.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';

const credential = new CampaignCallingApi();

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());
beforeEach(() => simulator.reset());

/** Resolves a credential template (`={{$credentials.x}}`) with n8n's own expression engine. */
function resolve(template: string, data: IDataObject): unknown {
	const node: INode = {
		id: 'credential-test',
		name: 'Credential test',
		type: 'n8n-nodes-campaign-calling.campaignCalling',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypesFor(new CampaignCalling()) });
	return workflow.expression.getSimpleParameterValue(node, template, 'internal', { $credentials: data });
}

/** The request n8n sends for the Test button: test.request resolved, the authenticate headers added. */
async function testRequestFor(data: IDataObject) {
	const { request } = credential.test;
	const { headers } = await authenticate(data as ICredentialDataDecryptedObject, { url: String(request.url), headers: {} });
	return {
		method: request.method ?? 'GET',
		baseURL: String(resolve(String(request.baseURL), data)),
		url: request.url,
		headers: headers as Record<string, string>,
	};
}

/** Sends the test request as n8n does (axios, baseURL + url), then applies the credential's rules. */
async function runCredentialTest(data: IDataObject): Promise<{ status: 'OK' | 'Error'; message: string; path: string }> {
	const request = await testRequestFor(data);
	const response = await axios.request({ ...request, validateStatus: () => true });
	const path = simulator.requests.at(-1)?.path ?? '';
	if (response.status < 200 || response.status >= 300) return { status: 'Error', message: `HTTP ${response.status}`, path };
	for (const rule of credential.test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const body = response.data as IDataObject;
		if (body[rule.properties.key] === rule.properties.value) return { status: 'Error', message: rule.properties.message, path };
	}
	return { status: 'OK', message: 'Connection tested successfully', path };
}

describe('Campaign Calling API credential', () => {
	it('has the contract\'s name and fields', () => {
		expect(credential.name).toBe('campaignCallingApi');
		expect(credential.displayName).toBe('Campaign Calling API');
		expect(credential.properties.map((property) => [property.name, property.type, property.required])).toEqual([
			['baseUrl', 'string', true],
			['apiKey', 'string', true],
		]);
		expect(credential.properties[1].typeOptions).toEqual({ password: true });
	});

	it('authenticates with Authorization: Bearer <key>, keeping the request\'s own headers', async () => {
		const { headers } = await testRequestFor({ baseUrl: 'https://api.example.com', apiKey: 'key-123' });
		expect(headers).toEqual({ Authorization: 'Bearer key-123' });
		const options = await authenticate({ apiKey: 'key-123' }, { url: '/x', headers: { 'x-other': '1' } });
		expect(options).toEqual({ url: '/x', headers: { 'x-other': '1', Authorization: 'Bearer key-123' } });
	});

	it('tests with GET {baseUrl}/v1/webhooks, a trailing slash tolerated', async () => {
		expect(credential.test.request).toEqual(expect.objectContaining({ method: 'GET', url: '/v1/webhooks' }));
		const request = await testRequestFor({ baseUrl: 'https://api.example.com/', apiKey: 'k' });
		expect(request.baseURL).toBe('https://api.example.com/');
		expect(axios.getUri(request)).toBe('https://api.example.com/v1/webhooks');
	});

	it('fails when the envelope says status "error"', () => {
		expect(credential.test.rules).toEqual([
			{
				type: 'responseSuccessBody',
				properties: expect.objectContaining({ key: 'status', value: 'error', message: expect.stringMatching(/refused this API key/) }),
			},
		]);
	});

	it('passes with a good key against the service', async () => {
		const result = await runCredentialTest({ baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		expect(result).toEqual({ status: 'OK', message: 'Connection tested successfully', path: '/v1/webhooks' });
		expect(simulator.requests[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		expect(simulator.requests[0].method).toBe('GET');
	});

	it('passes with a JWT, which Get Webhooks accepts', async () => {
		const result = await runCredentialTest({ baseUrl: simulator.url, apiKey: DEMO.jwt });
		expect(result.status).toBe('OK');
	});

	it('fails with the credential\'s message for a key the service refuses (HTTP 200, status "error")', async () => {
		const result = await runCredentialTest({ baseUrl: simulator.url, apiKey: 'not-a-real-key-000' });
		expect(result).toEqual({
			status: 'Error',
			message: 'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.',
			path: '/v1/webhooks',
		});
		expect(simulator.requests).toHaveLength(1);
		expect(simulator.requests[0].headers.authorization).toBe('Bearer not-a-real-key-000');
	});

	it('fails for an error envelope even when the key is good', async () => {
		simulator.injectFault({ kind: 'error-envelope', path: '/v1/webhooks' });
		const result = await runCredentialTest({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/refused this API key/);
	});
});
