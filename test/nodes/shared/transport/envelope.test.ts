import { inspect } from 'node:util';

import { interpretAnswer, isPlainObject } from '../../../../nodes/shared/transport/envelope';
import { runActionNode, runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import type { FaultSpec } from '../../../simulator/server.ts';
import { DEMO, NO_RETRIES, closedPort, sendJson, startScriptedServer, useSimulator, type ScriptedServer } from '../../../helpers/kit.ts';
import { getContact, getCampaign, addContact, createIntegration } from '../../../helpers/actionParameters.ts';

const sim = useSimulator();

/** Everything of an error a user or a log could see. */
function visible(error: Error & { description?: string }): string {
	return [error.message, error.description ?? '', error.stack ?? '', JSON.stringify(error), inspect(error, { depth: 8 })].join('\n');
}

describe('transport: answers that are failures', () => {
	it('turns an error envelope into a NodeApiError naming the operation and what the service said', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: getCampaign({ campaignId: '123e4567-e89b-12d3-a456-426614174000', requestOptions: NO_RETRIES }),
		});
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('Get Campaign failed: the service answered status "error" (error: campaign not found)');
	});

	const statusCases: Array<[string, FaultSpec, string, RegExp]> = [
		['401', { kind: 'http-401' }, 'Get Contact failed: the service answered HTTP 401 Unauthorized (unauthorized)', /Check the API key/],
		['403', { kind: 'http-403' }, 'Get Contact failed: the service answered HTTP 403 Forbidden (forbidden)', /Check the API key/],
		['429 without Retry-After', { kind: 'http-429' }, 'Get Contact failed: the service answered HTTP 429 Too Many Requests (too many requests)', /rate limiting/],
		['429 with Retry-After', { kind: 'http-429', retryAfterSeconds: 30 }, 'Get Contact failed: the service answered HTTP 429 Too Many Requests (too many requests)', /rate limiting/],
		['500', { kind: 'http-500' }, 'Get Contact failed: the service answered HTTP 500 Internal Server Error (internal server error)', /Try again later/],
		['502 with an HTML page', { kind: 'html' }, 'Get Contact failed: the service answered HTTP 502 Bad Gateway (an HTML error page)', /Try again later/],
		['503', { kind: 'http-503' }, 'Get Contact failed: the service answered HTTP 503 Service Unavailable (service unavailable)', /Try again later/],
	];
	it.each(statusCases)('turns HTTP %s into a clear error', async (_label, fault, message, description) => {
		sim.simulator.injectFault(fault);
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(error.message).toBe(message);
		expect(error.description).toMatch(description);
		expect((error as { httpCode?: string }).httpCode).toBe(message.match(/HTTP (\d+)/)?.[1]);
		expect(sim.requests()).toHaveLength(1);
	});

	const scripted: Array<[string, number, string, string]> = [
		['404 with a JSON message', 404, '{"status":"error","message":"no such route"}', 'Get Contact failed: the service answered HTTP 404 Not Found (no such route)'],
		['418 with an error field', 418, '{"error":"short and stout"}', 'Get Contact failed: the service answered HTTP 418 (short and stout)'],
		['400 with a text body', 400, 'bad things', 'Get Contact failed: the service answered HTTP 400 Bad Request'],
		['409 with an empty body', 409, '', 'Get Contact failed: the service answered HTTP 409 Conflict'],
	];
	it.each(scripted)('turns HTTP %s into a clear error', async (_label, status, body, message) => {
		const server = await startScriptedServer((_request, response) => sendJson(response, status, body));
		try {
			const error = await runActionNodeExpectingError({
				credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
				parameters: getContact({ requestOptions: NO_RETRIES }),
			});
			expect(error.message).toBe(message);
			expect(error.description).toBeUndefined();
		} finally {
			await server.close();
		}
	});

	const malformed: Array<[FaultSpec['kind'], string]> = [
		['malformed-json', 'Get Contact failed: the service answered with something that is not JSON'],
		['empty', 'Get Contact failed: the service answered with an empty body'],
		['not-envelope', 'Get Contact failed: the answer is not the service\'s {status, message, data} envelope'],
		['error-envelope', 'Get Contact failed: the service answered status "error" (error)'],
	];
	it.each(malformed)('turns the answer "%s" into a clear error', async (kind, message) => {
		sim.simulator.injectFault({ kind });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(error.message).toBe(message);
		expect(sim.requests()).toHaveLength(1);
	});

	it('refuses a module answer that is not a JSON object, and an empty one', async () => {
		const answers = ['[{"id": "x"}]', ''];
		const server = await startScriptedServer((_request, response) => sendJson(response, 200, answers.shift() ?? ''));
		try {
			const options = { credentials: { baseUrl: server.url, apiKey: DEMO.apiKey }, parameters: createIntegration({ requestOptions: NO_RETRIES }) };
			expect((await runActionNodeExpectingError(options)).message).toBe('Create Integration failed: the answer is not a JSON object');
			expect((await runActionNodeExpectingError(options)).message).toBe('Create Integration failed: the service answered with an empty body');
		} finally {
			await server.close();
		}
	});

	it('reads the envelope status whatever its case', async () => {
		const server = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ERROR', message: 'Key revoked', data: '' }));
		try {
			const error = await runActionNodeExpectingError({
				credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
				parameters: getContact({ requestOptions: NO_RETRIES }),
			});
			expect(error.message).toBe('Get Contact failed: the service answered status "error" (Key revoked)');
		} finally {
			await server.close();
		}
	});

	it('reports a dropped connection', async () => {
		sim.simulator.injectFault({ kind: 'reset' });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(error.message).toMatch(/^Get Contact failed: the connection to http:\/\/127\.0\.0\.1:\d+ was dropped before an answer came$/);
		expect(error.description).toMatch(/closed the connection\. Try again later; reads are retried automatically\.$/);
	});

	it('gives up on a slow answer after Timeout (Seconds)', async () => {
		sim.simulator.injectFault({ kind: 'slow', delayMs: 1500 });
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: getContact({ requestOptions: { maxRetries: 0, timeoutSeconds: 1 } }),
		});
		expect(error.message).toMatch(/^Get Contact failed: no answer from http:\/\/127\.0\.0\.1:\d+ within 1 seconds$/);
		expect(error.description).toBe('If the service is slow, raise Request Options → Timeout; otherwise check that it is reachable from n8n.');
		expect(sim.requests()).toHaveLength(1);
	});

	it('waits for a slow answer within the timeout', async () => {
		sim.simulator.injectFault({ kind: 'slow', delayMs: 300 });
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: getContact({ requestOptions: { maxRetries: 0, timeoutSeconds: 1 } }),
		});
		expect(output[0].json.id).toBe(DEMO.completedContactId);
	});

	it('reports a refused connection (a closed port)', async () => {
		const port = await closedPort();
		const error = await runActionNodeExpectingError({
			credentials: { baseUrl: `http://127.0.0.1:${port}`, apiKey: DEMO.apiKey },
			parameters: getContact({ requestOptions: NO_RETRIES }),
		});
		expect(error.message).toBe(`Get Contact failed: the connection to 127.0.0.1:${port} was refused: nothing listens there`);
		expect(error.description).toBe(
			'Nothing was sent to the service. Check the Base URL\'s host and port, and that the service is running (or, if n8n uses a proxy, the proxy and n8n\'s HTTP_PROXY / HTTPS_PROXY setting).',
		);
	});

});

describe('transport: the API key never shows', () => {
	const key = 'sk-live-SECRET-0123456789';
	const echoes: Array<[string, (authorization: string) => [number, string]]> = [
		['in an error envelope', (auth) => [200, JSON.stringify({ status: 'error', message: `refused ${auth}`, data: `token ${auth.slice(7)} unknown` })]],
		['in a 401 message', (auth) => [401, JSON.stringify({ status: 'error', message: `bad credentials: ${auth}` })]],
		['in a 500 error field', (auth) => [500, JSON.stringify({ error: `crash while checking ${auth.slice(7)}` })]],
		['in an HTML page', (auth) => [502, `<html><body>upstream said ${auth}</body></html>`]],
		['in a text body', (auth) => [200, `unexpected ${auth}`]],
	];

	it.each(echoes)('when the service echoes it %s', async (_label, answer) => {
		const server = await startScriptedServer((request, response) => {
			const [status, body] = answer(String(request.headers.authorization));
			sendJson(response, status, body);
		});
		try {
			const run = { credentials: { baseUrl: server.url, apiKey: key }, parameters: getContact({ requestOptions: NO_RETRIES }) };
			const error = await runActionNodeExpectingError(run);
			expect(server.requests[0].headers.authorization).toBe(`Bearer ${key}`);
			expect(error.message).toMatch(/^Get Contact failed: /);
			expect(visible(error)).not.toContain(key);
			const output = await runActionNode({ ...run, continueOnFail: true });
			expect(output[0].json.error).toBe(error.message);
			expect(JSON.stringify(output)).not.toContain(key);
		} finally {
			await server.close();
		}
	});

	it('shows the redacted echo so the user still sees what the service said', async () => {
		const server = await startScriptedServer((request, response) =>
			sendJson(response, 200, { status: 'error', message: `key ${String(request.headers.authorization).slice(7)} revoked`, data: '' }),
		);
		try {
			const error = await runActionNodeExpectingError({ credentials: { baseUrl: server.url, apiKey: key }, parameters: getContact({ requestOptions: NO_RETRIES }) });
			expect(error.message).toBe('Get Contact failed: the service answered status "error" (key [redacted] revoked)');
		} finally {
			await server.close();
		}
	});

	it.each<[string, FaultSpec | undefined]>([
		['a dropped connection', { kind: 'reset' }],
		['an error envelope', { kind: 'error-envelope' }],
		['an HTTP 500', { kind: 'http-500' }],
	])('for %s, in none of the error\'s fields', async (_label, fault) => {
		if (fault) sim.simulator.injectFault(fault);
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: getContact({ requestOptions: NO_RETRIES }),
		});
		expect(visible(error)).not.toContain(DEMO.apiKey);
	});

	it('for a refused connection and a bad base URL holding the key', async () => {
		const port = await closedPort();
		const refused = await runActionNodeExpectingError({
			credentials: { baseUrl: `http://127.0.0.1:${port}`, apiKey: key },
			parameters: addContact({ requestOptions: NO_RETRIES }),
		});
		expect(visible(refused)).not.toContain(key);
		const pasted = await runActionNodeExpectingError({
			credentials: { baseUrl: key, apiKey: key },
			parameters: getContact(),
		});
		expect(pasted.message).toBe('Get Contact failed: The credential\'s Base URL "[redacted]" is not a web address. Enter it with its scheme, for example https://api.example.com [item 0]');
		expect(visible(pasted)).not.toContain(key);
	});
});

describe('transport: a Get\'s answer is one record, a listing a list of records', () => {
	/** Runs the node against a server that answers every request with `data` in an ok envelope. */
	async function withData<T>(data: unknown, run: (baseUrl: string) => Promise<T>): Promise<T> {
		const server = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data }));
		try {
			return await run(server.url);
		} finally {
			await server.close();
		}
	}
	const credentialsAt = (baseUrl: string) => ({ baseUrl, apiKey: DEMO.apiKey });

	it.each<[string, Record<string, unknown>, unknown, string]>([
		['Contact → Get, data null', getContact(), null, 'Get Contact failed: the service answered without a contact record (data was null)'],
		['Contact → Get, no data', getContact(), undefined, 'Get Contact failed: the service answered without a contact record (data was missing)'],
		['Contact → Get, data a string', getContact(), 'ok', 'Get Contact failed: the service answered without a contact record (data was a string)'],
		['Campaign → Get, data a list', getCampaign(), [{ id: 'a' }, { id: 'b' }], 'Get Campaign failed: the service answered without a campaign record (data was a list of 2)'],
		['Get Many Webhook Flows, data an object', { resource: 'webhookFlow', operation: 'getAll' }, { id: 'a' }, 'Get Many Webhook Flows failed: the service answered without a list of webhook flows (data was an object)'],
		['Get Many Webhook Flows, a string in the list', { resource: 'webhookFlow', operation: 'getAll' }, [{ id: 'a' }, 'b'], 'Get Many Webhook Flows failed: the service answered without a list of webhook flows (data held a string at position 2)'],
	])('%s: a NodeApiError naming the operation, the item and what came back', async (_label, parameters, data, message) => {
		const error = await withData(data, async (baseUrl) =>
			runActionNodeExpectingError({ credentials: credentialsAt(baseUrl), parameters: { ...parameters, requestOptions: NO_RETRIES } }),
		);
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe(message);
		expect(error.context?.itemIndex).toBe(0);
	});

	it('Get Many Webhook Flows reads an answer without data as no flows', async () => {
		const output = await withData(null, async (baseUrl) =>
			runActionNode({ credentials: credentialsAt(baseUrl), parameters: { resource: 'webhookFlow', operation: 'getAll', requestOptions: NO_RETRIES } }),
		);
		expect(output).toEqual([]);
	});

	it('under Continue On Fail, each item gets its error item, paired with it', async () => {
		const output = await withData(null, async (baseUrl) =>
			runActionNode({ credentials: credentialsAt(baseUrl), parameters: getContact({ requestOptions: NO_RETRIES }), items: [{ json: {} }, { json: {} }], continueOnFail: true }),
		);
		expect(output).toEqual([0, 1].map((item) => ({
			json: { error: 'Get Contact failed: the service answered without a contact record (data was null)' },
			pairedItem: { item },
		})));
	});

	it('with "Continue (using error output)", the error item is one n8n moves to the error output', async () => {
		const output = await withData([{ id: 'a' }, { id: 'b' }], async (baseUrl) =>
			runActionNode({ credentials: credentialsAt(baseUrl), parameters: getCampaign({ requestOptions: NO_RETRIES }), onError: 'continueErrorOutput' }),
		);
		expect(output).toEqual([{ json: { error: 'Get Campaign failed: the service answered without a campaign record (data was a list of 2)' }, pairedItem: { item: 0 } }]);
	});
});

describe('interpretAnswer on its own (what n8n\'s helper hands back)', () => {
	const answer = (body: unknown, statusCode = 200, headers: Record<string, unknown> = {}) => ({ statusCode, headers, body });
	const contacts = { data: 'list' as const, names: 'contacts' };
	const value = (v: unknown) => ({ ok: true, value: v });
	const failure = (f: unknown) => ({ ok: false, failure: f });

	it('takes no body, null, an empty text and blanks alike as an empty answer', () => {
		for (const body of [undefined, null, '', '  \n ']) {
			expect(interpretAnswer(answer(body), 'passThrough')).toEqual(value({}));
			expect(interpretAnswer(answer(body), 'envelope')).toEqual(failure({ kind: 'unexpected', reason: 'the service answered with an empty body' }));
		}
	});

	it('takes a body n8n\'s helper already parsed as it is', () => {
		expect(interpretAnswer(answer({ status: 'success', data: { id: 1 } }), { data: 'record', names: 'a contact record' })).toEqual(value({ id: 1 }));
	});

	it('fails a 1xx answer as an HTTP status, as any answer outside 2xx', () => {
		expect(interpretAnswer(answer('', 101), 'passThrough')).toEqual(failure({ kind: 'status', statusCode: 101 }));
	});

	it('finds a redirect with where it points, whatever the case of its Location header', () => {
		expect(interpretAnswer(answer('', 302, { LOCATION: ['https://elsewhere.test/x'] }), 'envelope')).toEqual(
			failure({ kind: 'redirect', statusCode: 302, location: 'https://elsewhere.test/x' }),
		);
	});

	it('gives what a failed status said: its JSON message trimmed, or that it is an HTML page, nothing for blank words', () => {
		expect(interpretAnswer(answer('{"message":" busy "}', 503), 'envelope')).toEqual(failure({ kind: 'status', statusCode: 503, said: 'busy' }));
		expect(interpretAnswer(answer('{"error":"  "}', 500), 'envelope')).toEqual(failure({ kind: 'status', statusCode: 500 }));
		expect(interpretAnswer(answer('<!DOCTYPE html><p>down</p>', 502), 'envelope')).toEqual(failure({ kind: 'status', statusCode: 502, said: 'an HTML error page' }));
		expect(interpretAnswer(answer('oops <html>', 502), 'envelope')).toEqual(failure({ kind: 'status', statusCode: 502 }));
		expect(interpretAnswer(answer('<html>', 200), 'envelope')).toEqual(failure({ kind: 'unexpected', reason: 'the service answered with something that is not JSON' }));
	});

	it('refuses a record answer that is not a JSON object', () => {
		expect(interpretAnswer(answer('[1]'), 'record')).toEqual(failure({ kind: 'unexpected', reason: 'the answer is not a JSON object' }));
	});

	it('reads a list envelope without data as an empty list, and a list of objects as it is', () => {
		expect(interpretAnswer(answer('{"status":"success"}'), contacts)).toEqual(value([]));
		expect(interpretAnswer(answer('{"status":"success","data":[{"id":1},{"id":2}]}'), contacts)).toEqual(value([{ id: 1 }, { id: 2 }]));
	});

	it('says what an error envelope said, trimmed, once when message and data say the same, nothing when it said nothing', () => {
		expect(interpretAnswer(answer('{"status":"error","message":5}'), 'envelope')).toEqual(failure({ kind: 'envelope', said: '' }));
		expect(interpretAnswer(answer('{"status":"Error","message":" no ","data":"no"}'), 'envelope')).toEqual(failure({ kind: 'envelope', said: 'no' }));
		expect(interpretAnswer(answer('{"status":"error","message":"a","data":" b "}'), 'passThrough')).toEqual(failure({ kind: 'envelope', said: 'a: b' }));
	});
});

/*
 * The node's requests follow no redirect, as the credential's Test does not (its case is in
 * test/credentials): n8n would send the Authorization header along to any host. A redirect fails
 * with the operation, the status and the target's origin; the other host receives nothing.
 */
const redirectKey = 'sk-live-REDIRECT-0123456789';

describe('transport: a redirect is not followed', () => {
	let elsewhere: ScriptedServer;
	let redirecting: ScriptedServer & { status: number; location: (path: string) => string };

	beforeEach(async () => {
		elsewhere = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data: { id: 'elsewhere' } }));
		const server = await startScriptedServer((request, response) => {
			response.writeHead(redirecting.status, { location: redirecting.location(request.path) });
			response.end();
		});
		redirecting = Object.assign(server, { status: 302, location: (path: string) => `${elsewhere.url}${path}?token=${redirectKey}` });
	});

	afterEach(async () => {
		await redirecting.close();
		await elsewhere.close();
	});

	it.each<[string, number, Record<string, unknown>, string]>([
		['Campaign → Get', 302, getCampaign(), 'Get Campaign failed: the service answered HTTP 302 Found, a redirect to %s, which the node does not follow'],
		['Campaign → Get', 301, getCampaign(), 'Get Campaign failed: the service answered HTTP 301 Moved Permanently, a redirect to %s, which the node does not follow'],
		['Add to Campaign', 307, addContact(), 'Add to Campaign failed: the service answered HTTP 307 Temporary Redirect, a redirect to %s, which the node does not follow'],
		['Add to Campaign', 308, addContact(), 'Add to Campaign failed: the service answered HTTP 308 Permanent Redirect, a redirect to %s, which the node does not follow'],
		// The first status of the 3xx range, where a redirect's answers begin.
		['Campaign → Get', 300, getCampaign(), 'Get Campaign failed: the service answered HTTP 300, a redirect to %s, which the node does not follow'],
	])('%s answered %d: fails naming the status and the target\'s origin, and the other host receives nothing', async (_label, status, parameters, message) => {
		redirecting.status = status;
		const error = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: redirectKey }, parameters: { ...parameters, requestOptions: { maxRetries: 3 } } });
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe(message.replace('%s', elsewhere.url));
		expect(error.description).toBe(
			'A followed redirect would carry the API key to another address. Enter the address the service answers at as the Base URL of the Campaign Calling credential.',
		);
		expect((error as { httpCode?: string }).httpCode).toBe(String(status));
		expect(error.context?.itemIndex).toBe(0);
		expect(redirecting.requests).toHaveLength(1);
		expect(elsewhere.requests).toHaveLength(0);
		expect(JSON.stringify(error)).not.toContain(redirectKey);
	});

	it('names the Base URL\'s own origin for a relative Location, "no address" for none, and says so of one that is no address', async () => {
		redirecting.location = (path) => `/moved${path}`;
		const relative = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: redirectKey }, parameters: getCampaign({ requestOptions: NO_RETRIES }) });
		expect(relative.message).toBe(`Get Campaign failed: the service answered HTTP 302 Found, a redirect to ${redirecting.url}, which the node does not follow`);
		redirecting.location = () => '';
		const none = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: redirectKey }, parameters: getCampaign({ requestOptions: NO_RETRIES }) });
		expect(none.message).toBe('Get Campaign failed: the service answered HTTP 302 Found, a redirect to no address, which the node does not follow');
		redirecting.location = () => 'http://[not an address';
		const invalid = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: redirectKey }, parameters: getCampaign({ requestOptions: NO_RETRIES }) });
		expect(invalid.message).toBe('Get Campaign failed: the service answered HTTP 302 Found, a redirect to an address that is not valid, which the node does not follow');
		expect(redirecting.requests).toHaveLength(3);
	});
});

describe('isPlainObject', () => {
	it('accepts objects only', () => {
		expect(isPlainObject({})).toBe(true);
		expect(isPlainObject([])).toBe(false);
		expect(isPlainObject(null)).toBe(false);
		expect(isPlainObject('x')).toBe(false);
	});
});
