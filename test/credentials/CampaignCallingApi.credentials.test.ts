import type { ICredentialDataDecryptedObject, ICredentialTestFunctions, ICredentialsDecrypted } from 'n8n-workflow';

import { CampaignCallingApi } from '../../credentials/CampaignCallingApi.credentials';
import { CampaignCalling } from '../../nodes/CampaignCalling/CampaignCalling.node';
import {
	CREDENTIAL_TEST_NAME,
	judgeTestAnswer,
	testCampaignCallingCredential,
} from '../../nodes/shared/credentialTest';
import { CampaignCallingTrigger } from '../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { authenticate } from '../helpers/n8nContext.ts';
import { closedPort, sendJson, startScriptedServer, type ScriptedServer } from '../helpers/kit.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';

const credential = new CampaignCallingApi();

let simulator: Simulator;
/** Answers GET /v1/webhooks with whatever the current test put in `nextAnswer`. */
let other: ScriptedServer;
let nextAnswer: { status: number; contentType?: string; body: string; headers?: Record<string, string> };

beforeAll(async () => {
	simulator = await startSimulator();
	other = await startScriptedServer((_request, response) => {
		const headers: Record<string, string> = { ...nextAnswer.headers };
		if (nextAnswer.contentType) headers['content-type'] = nextAnswer.contentType;
		response.writeHead(nextAnswer.status, headers);
		response.end(nextAnswer.body);
	});
});
afterAll(async () => {
	await simulator.close();
	await other.close();
});
beforeEach(() => {
	simulator.reset();
	other.requests.length = 0;
});

/** Runs the Test button's function as n8n's credentials tester does: `this` is its CredentialTestContext. */
async function runTest(data: ICredentialDataDecryptedObject) {
	const decrypted: ICredentialsDecrypted = { id: 'c1', name: 'Campaign Calling', type: 'campaignCallingApi', data };
	return await testCampaignCallingCredential.call({} as ICredentialTestFunctions, decrypted);
}

const NOT_THE_SERVICE = /^The Base URL does not look like the Campaign Calling API: GET http:\/\/127\.0\.0\.1:\d+\/v1\/webhooks answered /;
const WHAT_IS_CORRECT =
	'A correct Base URL is the API address your provider gave you, without /v1 (for example https://api.example.com): GET {Base URL}/v1/webhooks must answer the service\'s JSON, {"status": "ok", "message": "...", "data": [ ...webhook flows ]}.';

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
		const options = await authenticate({ apiKey: 'key-123' }, { url: '/x', headers: { 'x-other': '1' } });
		expect(options).toEqual({ url: '/x', headers: { 'x-other': '1', Authorization: 'Bearer key-123' } });
	});

	it('is tested by both nodes\' campaignCallingApiTest, with no declarative test that would take precedence', () => {
		expect(credential).not.toHaveProperty('test');
		for (const node of [new CampaignCalling(), new CampaignCallingTrigger()]) {
			expect(node.description.credentials).toEqual([{ name: 'campaignCallingApi', required: true, testedBy: CREDENTIAL_TEST_NAME }]);
			expect(node.methods.credentialTest[CREDENTIAL_TEST_NAME]).toBe(testCampaignCallingCredential);
		}
	});
});

describe('the credential Test against the service', () => {
	it('passes with a good key: one GET {baseUrl}/v1/webhooks with the bearer header, a trailing slash tolerated', async () => {
		const result = await runTest({ baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		expect(result).toEqual({ status: 'OK', message: 'Connection tested successfully' });
		expect(simulator.requests).toHaveLength(1);
		expect(simulator.requests[0]).toEqual(expect.objectContaining({ method: 'GET', path: '/v1/webhooks' }));
		expect(simulator.requests[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
	});

	it('passes with a JWT, which Get Webhooks accepts', async () => {
		expect((await runTest({ baseUrl: simulator.url, apiKey: DEMO.jwt })).status).toBe('OK');
	});

	it('fails with the credential\'s message for a key the service refuses (HTTP 200, status "error")', async () => {
		const result = await runTest({ baseUrl: simulator.url, apiKey: 'not-a-real-key-000' });
		expect(result).toEqual({
			status: 'Error',
			message: 'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.',
		});
		expect(simulator.requests).toHaveLength(1);
	});

	it('fails for an error envelope even when the key is good', async () => {
		simulator.injectFault({ kind: 'error-envelope', path: '/v1/webhooks' });
		expect((await runTest({ baseUrl: simulator.url, apiKey: DEMO.apiKey })).message).toMatch(/refused this API key/);
	});

	it('fails on HTTP 401 and 500 answers, saying which', async () => {
		simulator.injectFault({ kind: 'http-401', path: '/v1/webhooks' });
		const refused = await runTest({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
		expect(refused.status).toBe('Error');
		expect(refused.message).toMatch(/answered HTTP 401: the API key was refused/);
		simulator.clearFaults();
		simulator.injectFault({ kind: 'http-500', path: '/v1/webhooks' });
		const broken = await runTest({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
		expect(broken.message).toMatch(/answered HTTP 500: the service had a problem/);
	});
});

describe('the credential Test against a server that is not the service', () => {
	const cases: Array<[string, typeof nextAnswer, string]> = [
		[
			'a web page (n8n\'s own address answers its editor page)',
			{ status: 200, contentType: 'text/html; charset=utf-8', body: '<!DOCTYPE html><html><head><title>n8n</title></head></html>' },
			'with a web page (HTML), not JSON',
		],
		['an empty 200', { status: 200, body: '' }, 'HTTP 200 with an empty body'],
		['plain text', { status: 200, contentType: 'text/plain', body: 'OK' }, 'with text that is not JSON'],
		[
			'another JSON API (no status)',
			{ status: 200, contentType: 'application/json', body: JSON.stringify({ id: 1, name: 'something else' }) },
			'with JSON that is not the service\'s envelope (it has no "status" text)',
		],
		[
			'another JSON API answering a list',
			{ status: 200, contentType: 'application/json', body: JSON.stringify([{ id: 1 }]) },
			'with JSON that is not the service\'s envelope (it has no "status" text)',
		],
		[
			'an envelope-like answer whose data is not a list',
			{ status: 200, contentType: 'application/json', body: JSON.stringify({ status: 'ok', data: { flows: [] } }) },
			'with JSON whose "data" is not a list of webhook flows',
		],
		['a 404', { status: 404, contentType: 'text/html', body: '<html>Not Found</html>' }, 'HTTP 404'],
		[
			'a redirect',
			{ status: 301, body: '', headers: { location: 'https://elsewhere.example/v1/webhooks' } },
			'HTTP 301, a redirect to https://elsewhere.example/v1/webhooks',
		],
	];

	it.each(cases)('fails for %s, saying what it got and what a correct Base URL looks like', async (_label, answer, what) => {
		nextAnswer = answer;
		const result = await runTest({ baseUrl: other.url, apiKey: DEMO.apiKey });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(NOT_THE_SERVICE);
		expect(result.message).toBe(`${result.message.split(' answered ')[0]} answered ${what}. ${WHAT_IS_CORRECT}`);
		expect(other.requests).toHaveLength(1);
	});

	it('never puts the API key in its message, even when the server echoes it', async () => {
		const apiKey = 'sk-live-echo-4242-secret';
		for (const answer of [
			{ status: 200, contentType: 'text/plain', body: `token=${apiKey}` },
			{ status: 200, contentType: 'application/json', body: JSON.stringify({ status: 'error', message: apiKey }) },
			{ status: 401, contentType: 'application/json', body: JSON.stringify({ message: apiKey }) },
			{ status: 302, body: '', headers: { location: `https://elsewhere.example/?key=${apiKey}` } },
		]) {
			nextAnswer = answer;
			const result = await runTest({ baseUrl: other.url, apiKey });
			expect(result.status).toBe('Error');
			expect(result.message).not.toContain(apiKey);
		}
		expect(other.requests.map((request) => request.headers.authorization)).toEqual(new Array(4).fill(`Bearer ${apiKey}`));
	});

	it('does not follow a redirect, so the key goes nowhere else', async () => {
		const target = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', data: [] }));
		try {
			nextAnswer = { status: 307, body: '', headers: { location: `${target.url}/v1/webhooks` } };
			const result = await runTest({ baseUrl: other.url, apiKey: DEMO.apiKey });
			expect(result.status).toBe('Error');
			expect(target.requests).toHaveLength(0);
		} finally {
			await target.close();
		}
	});

	it('fails before any request for a Base URL that is not a web address, or an empty key', async () => {
		expect(await runTest({ baseUrl: 'api.example.com', apiKey: DEMO.apiKey })).toEqual({
			status: 'Error',
			message:
				'The credential\'s Base URL "api.example.com" is not a web address. Enter it with its scheme, for example https://api.example.com',
		});
		expect(await runTest({ baseUrl: other.url, apiKey: ' ' })).toEqual({
			status: 'Error',
			message: 'The API Key is empty. Enter the user API key of your company.',
		});
		expect(other.requests).toHaveLength(0);
	});

	it('fails with the reason when the connection drops before an answer', async () => {
		const dropping = await startScriptedServer((_request, response) => {
			response.socket?.destroy();
		});
		try {
			const result = await runTest({ baseUrl: dropping.url, apiKey: DEMO.apiKey });
			expect(result.message).toBe(`Could not reach ${dropping.url}: the connection was dropped before an answer came. ${WHAT_IS_CORRECT}`);
		} finally {
			await dropping.close();
		}
	});

	it('fails with the reason when nothing answers', async () => {
		const port = await closedPort();
		const result = await runTest({ baseUrl: `http://127.0.0.1:${port}`, apiKey: DEMO.apiKey });
		expect(result.status).toBe('Error');
		expect(result.message).toBe(`Could not reach http://127.0.0.1:${port}: the connection was refused. ${WHAT_IS_CORRECT}`);
	});
});

describe('judgeTestAnswer', () => {
	const url = 'https://api.example.com/v1/webhooks';
	it('passes the service\'s listing envelope, empty or not, whatever its success word', () => {
		for (const body of [{ status: 'ok', message: 'ok', data: [] }, { status: 'success', data: [{ id: 'x' }] }]) {
			expect(judgeTestAnswer(url, { statusCode: 200, contentType: 'application/json', body: JSON.stringify(body) })).toEqual({
				status: 'OK',
				message: 'Connection tested successfully',
			});
		}
	});

	it('reads status "error" in any case as a refused key', () => {
		const result = judgeTestAnswer(url, { statusCode: 200, contentType: '', body: '{"status":"ERROR","message":"error","data":""}' });
		expect(result.message).toMatch(/refused this API key/);
	});

	it('tells a web page without a content type by its opening tag', () => {
		const result = judgeTestAnswer(url, { statusCode: 200, contentType: '', body: '  <html><body>hi</body></html>' });
		expect(result.message).toContain('answered with a web page (HTML), not JSON');
	});
});
