import * as net from 'node:net';

import { CampaignCallingApi } from '../../credentials/CampaignCallingApi.credentials';
import { CampaignCalling } from '../../nodes/CampaignCalling/CampaignCalling.node';
import { CampaignCallingTrigger } from '../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { runCredentialTest } from '../helpers/credentialTester.ts';
import { authenticate } from '../helpers/n8nContext.ts';
import { closedPort, sendJson, startScriptedServer, type ScriptedServer } from '../helpers/kit.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';

const credential = new CampaignCallingApi();

let simulator: Simulator;
/** Answers every request with whatever the current test put in `nextAnswer`. */
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

const WHAT_IS_CORRECT =
	'Enter the API address your provider gave you, without /v1 (for example https://api.example.com): GET {Base URL}/v1/webhooks must answer the service\'s JSON, {"status": "ok", "message": "...", "data": [ ...webhook flows ]}.';
const NOT_THE_SERVICE = `The Base URL answered GET /v1/webhooks, but not with the Campaign Calling API's JSON: it sent a web page, an empty answer, plain text or another API's JSON. ${WHAT_IS_CORRECT}`;
const REFUSED_KEY = 'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.';

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

	it('shows the form as a user fills it in: labels, placeholder, descriptions, hint, icon and documentation link', () => {
		expect(credential.properties.map(({ displayName, placeholder, description, hint }) => ({ displayName, placeholder, description, hint }))).toEqual([
			{
				displayName: 'Base URL',
				placeholder: 'e.g. https://api.example.com',
				description: 'The address of the Campaign Calling API as your provider gives it. https:// is recommended; http:// is accepted. A trailing slash is fine.',
				hint: 'Without /v1 at the end, for example https://api.example.com',
			},
			{
				displayName: 'API Key',
				placeholder: undefined,
				description: 'A user API key of your company, sent as a Bearer token on every request. Add to Campaign accepts only a user API key. The Test reads the webhook-flow listing, which other bearer tokens (a JWT, for one) pass too, so a passing Test does not prove that the key can add contacts.',
				hint: undefined,
			},
		]);
		expect(credential.properties.map((property) => property.default)).toEqual(['', '']);
		expect(credential.icon).toEqual({ light: 'file:../nodes/CampaignCalling/campaignCalling.svg', dark: 'file:../nodes/CampaignCalling/campaignCalling.dark.svg' });
		expect(credential.documentationUrl).toBe('https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling#credentials');
	});

	it('authenticates with Authorization: Bearer <key>, keeping the request\'s own headers', async () => {
		const options = await authenticate({ apiKey: 'key-123' }, { url: '/x', headers: { 'x-other': '1' } });
		expect(options).toEqual({ url: '/x', headers: { 'x-other': '1', Authorization: 'Bearer key-123' } });
	});

	it('gives the Test\'s request (the only one with a baseURL) 15 s, and leaves the nodes\' own timeouts alone', async () => {
		const test = await authenticate({ apiKey: 'key-123' }, { baseURL: 'https://api.example.com', url: '/v1/webhooks', timeout: 300_000 });
		expect(test.timeout).toBe(15_000);
		const operation = await authenticate({ apiKey: 'key-123' }, { url: 'https://api.example.com/contacts/x', timeout: 600_000 });
		expect(operation.timeout).toBe(600_000);
	});

	it('is tested by its own declarative test (n8n\'s HTTP stack), and neither node brings a test function', () => {
		expect(credential.test?.request).toEqual(expect.objectContaining({ method: 'GET', url: '/v1/webhooks', disableFollowRedirect: true }));
		for (const node of [new CampaignCalling(), new CampaignCallingTrigger()]) {
			expect(node.description.credentials).toEqual([{ name: 'campaignCallingApi', required: true }]);
			expect((node as { methods?: { credentialTest?: unknown } }).methods?.credentialTest).toBeUndefined();
		}
	});

	it('gives every rule a message that says what to fix, and a rule to every status from 300-308, 400-431 and 500-511', () => {
		const rules = credential.test?.rules ?? [];
		for (const rule of rules) expect(rule.properties.message).toMatch(/(Enter|Check|Wait|Add) /);
		const statuses = rules.filter((rule) => rule.type === 'responseCode').map((rule) => rule.properties.value);
		expect(statuses).toHaveLength(9 + 32 + 12);
		expect(statuses).toEqual(expect.arrayContaining([300, 308, 400, 404, 418, 431, 500, 511]));
	});

	it('words each kind of status for what the user can fix: a redirect, a refused key, a proxy, a rate limit, a server error, another address', () => {
		const messageFor = (status: number) => credential.test?.rules?.find((rule) => rule.type === 'responseCode' && rule.properties.value === status)?.properties.message;
		expect(messageFor(308)).toBe(`The Base URL answered GET /v1/webhooks with HTTP 308, a redirect, which the Test does not follow: it would carry the API key to another address. ${WHAT_IS_CORRECT}`);
		expect(messageFor(403)).toBe('The service refused this API key (HTTP 403). Check the key, and that the Base URL is your provider\'s API address.');
		expect(messageFor(407)).toBe('A proxy between n8n and the service asks for authentication (HTTP 407). Add the proxy\'s user and password to n8n\'s HTTP_PROXY / HTTPS_PROXY setting.');
		expect(messageFor(429)).toBe('The service is limiting the rate of requests (HTTP 429). Wait a moment, then test again.');
		expect(messageFor(511)).toBe(`The Base URL answered GET /v1/webhooks with HTTP 511: the service, or a gateway in front of it, had a problem. Test again later; if it persists, check the Base URL. ${WHAT_IS_CORRECT}`);
		expect(messageFor(400)).toBe(`The Base URL answered GET /v1/webhooks with HTTP 400: it is not the Campaign Calling API's address. ${WHAT_IS_CORRECT}`);
		expect(messageFor(499)).toBeUndefined();
	});
});

describe('the credential Test against the service (n8n-core\'s RoutingNode, as n8n\'s tester runs it)', () => {
	it('passes with a good key: one GET {baseUrl}/v1/webhooks with the bearer header, asking for JSON, a trailing slash tolerated', async () => {
		const result = await runCredentialTest({ baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(simulator.requests).toHaveLength(1);
		expect(simulator.requests[0]).toEqual(expect.objectContaining({ method: 'GET', path: '/v1/webhooks' }));
		expect(simulator.requests[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		expect(simulator.requests[0].headers.accept).toBe('application/json');
	});

	it('passes with a JWT, which Get Webhooks accepts, and with a Base URL holding spaces', async () => {
		expect((await runCredentialTest({ baseUrl: ` ${simulator.url} `, apiKey: DEMO.jwt })).status).toBe('OK');
	});

	it('fails with the credential\'s message for a key the service refuses (HTTP 200, status "error")', async () => {
		expect(await runCredentialTest({ baseUrl: simulator.url, apiKey: 'not-a-real-key-000' })).toEqual({ status: 'Error', message: REFUSED_KEY });
		expect(simulator.requests).toHaveLength(1);
	});

	it('fails on HTTP 401 and 500 answers, saying which', async () => {
		// Twice: n8n's helper repeats a request answered 401 once (its pre-authentication refresh).
		simulator.injectFault({ kind: 'http-401', path: '/v1/webhooks', times: 2 });
		expect(await runCredentialTest({ baseUrl: simulator.url, apiKey: DEMO.apiKey })).toEqual({
			status: 'Error',
			message: 'The service refused this API key (HTTP 401). Check the key, and that the Base URL is your provider\'s API address.',
		});
		simulator.clearFaults();
		simulator.injectFault({ kind: 'http-500', path: '/v1/webhooks' });
		expect((await runCredentialTest({ baseUrl: simulator.url, apiKey: DEMO.apiKey })).message).toBe(
			`The Base URL answered GET /v1/webhooks with HTTP 500: the service, or a gateway in front of it, had a problem. Test again later; if it persists, check the Base URL. ${WHAT_IS_CORRECT}`,
		);
	});
});

describe('the credential Test against a server that is not the service', () => {
	const cases: Array<[string, typeof nextAnswer, string]> = [
		['a web page', { status: 200, contentType: 'text/html; charset=utf-8', body: '<!DOCTYPE html><html><head><title>n8n</title></head></html>' }, NOT_THE_SERVICE],
		['an empty 200', { status: 200, body: '' }, NOT_THE_SERVICE],
		['plain text', { status: 200, contentType: 'text/plain', body: 'OK' }, NOT_THE_SERVICE],
		['another JSON API', { status: 200, contentType: 'application/json', body: JSON.stringify({ id: 1, name: 'something else' }) }, NOT_THE_SERVICE],
		['another JSON API answering a list', { status: 200, contentType: 'application/json', body: JSON.stringify([{ id: 1 }]) }, NOT_THE_SERVICE],
		['status "error" in capitals', { status: 200, contentType: 'application/json', body: '{"status":"ERROR","message":"error","data":""}' }, REFUSED_KEY],
		[
			'an envelope without data',
			{ status: 200, contentType: 'application/json', body: JSON.stringify({ status: 'ok', message: 'ok' }) },
			`The Base URL answered GET /v1/webhooks with a "status" but no "data" list: that is not the Campaign Calling API's listing. ${WHAT_IS_CORRECT}`,
		],
		['a 404', { status: 404, contentType: 'text/html', body: '<html>Not Found</html>' }, `The Base URL answered GET /v1/webhooks with HTTP 404: it is not the Campaign Calling API's address. ${WHAT_IS_CORRECT}`],
		[
			'a redirect',
			{ status: 301, body: '', headers: { location: 'https://elsewhere.example/v1/webhooks' } },
			`The Base URL answered GET /v1/webhooks with HTTP 301, a redirect, which the Test does not follow: it would carry the API key to another address. ${WHAT_IS_CORRECT}`,
		],
		['a 503', { status: 503, body: 'down' }, `The Base URL answered GET /v1/webhooks with HTTP 503: the service, or a gateway in front of it, had a problem. Test again later; if it persists, check the Base URL. ${WHAT_IS_CORRECT}`],
	];

	it.each(cases)('fails for %s, saying what a correct Base URL answers', async (_label, answer, message) => {
		nextAnswer = answer;
		expect(await runCredentialTest({ baseUrl: other.url, apiKey: DEMO.apiKey })).toEqual({ status: 'Error', message });
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
			const result = await runCredentialTest({ baseUrl: other.url, apiKey });
			expect(result.status).toBe('Error');
			expect(result.message).not.toContain(apiKey);
		}
		// Five: n8n's helper repeats the request answered 401 once.
		expect(other.requests.map((request) => request.headers.authorization)).toEqual(new Array(5).fill(`Bearer ${apiKey}`));
	});

	it('does not follow a redirect, so the key goes nowhere else', async () => {
		const target = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', data: [] }));
		try {
			nextAnswer = { status: 307, body: '', headers: { location: `${target.url}/v1/webhooks` } };
			expect((await runCredentialTest({ baseUrl: other.url, apiKey: DEMO.apiKey })).status).toBe('Error');
			expect(target.requests).toHaveLength(0);
		} finally {
			await target.close();
		}
	});

	it('gives up on a server that never answers after 15 s, with n8n\'s error code', async () => {
		const silent = net.createServer(() => undefined);
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		// The Test's request leaves the credential with its 15 s; the wait itself runs on a shortened copy of
		// that timeout: ECONNABORTED is the code of a request n8n's HTTP stack gave up at its timeout.
		const timeouts: Array<number | undefined> = [];
		const SHORTENED_MS = 300;
		try {
			const result = await runCredentialTest({ baseUrl: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, apiKey: DEMO.apiKey }, (options) => {
				timeouts.push(options.timeout);
				return { ...options, timeout: SHORTENED_MS };
			});
			expect(timeouts).toEqual([15_000]);
			expect(result).toEqual({ status: 'Error', message: 'ECONNABORTED' });
		} finally {
			silent.close();
		}
	});

	it('fails with n8n\'s error code when nothing answers', async () => {
		const port = await closedPort();
		expect(await runCredentialTest({ baseUrl: `http://127.0.0.1:${port}`, apiKey: DEMO.apiKey })).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});
});
