/**
 * The one error of a failed request. Each root cause of a request that got no answer goes through
 * n8n-core's real HTTP stack (the errors its httpRequestWithAuthentication throws): the message names
 * the cause, the description what to do, a write that may have been carried out says so, and the key
 * is in neither. Error shapes no loopback test can provoke (n8n 1.x's, an expired certificate) are
 * handed to serviceError as n8n throws them. n8n's SSRF protection has its own file,
 * failures.ssrf.test.ts: n8n reads that setting once, when its HTTP stack is first used.
 */
import { execFileSync } from 'node:child_process';
import * as dns from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INode } from 'n8n-workflow';

import type { Failure, ServiceRequest } from '../../../../nodes/shared/transport/failures';
import { redactSecret, serviceError } from '../../../../nodes/shared/transport/failures';

import { runActionNode, runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import { DEMO, NO_RETRIES, closedPort, sendJson, startScriptedServer, useSimulator } from '../../../helpers/kit.ts';
import { addContact, createIntegration, getCampaign, getContact } from '../../../helpers/actionParameters.ts';

const sim = useSimulator();
const key = 'sk-live-ROOT-CAUSE-0123456789';

/** Everything of an error a user could see. */
const NO_RETRIES_WRITE = { requestOptions: NO_RETRIES };

const shown = (error: Error & { description?: string }) => `${error.message}\n${error.description ?? ''}`;

const REFUSED_CHECKS = 'Check the Base URL\'s host and port, and that the service is running (or, if n8n uses a proxy, the proxy and n8n\'s HTTP_PROXY / HTTPS_PROXY setting).';

/** A request and where it went, for error shapes handed to serviceError directly. */
type RequestSent = ServiceRequest & { baseUrl: string; apiKey: string; timeoutMs: number };
const errorOf = (failure: Failure, overrides: Partial<RequestSent> = {}) => {
	const { baseUrl = 'http://127.0.0.1:8080', apiKey = key, timeoutMs = 60_000, ...request } = overrides;
	const node = { name: 'Campaign Calling' } as INode;
	return serviceError(node, { operation: 'Get Contact', method: 'GET', path: '/contacts/x', answer: 'record', ...request }, { baseUrl, apiKey, timeoutMs }, failure);
};
const noAnswer = (error: unknown, overrides: Partial<RequestSent> = {}) => errorOf({ kind: 'noAnswer', error, attempts: 1 }, overrides);
const WRITE: Partial<RequestSent> = { operation: 'Add to Campaign', method: 'POST' };

async function listen(server: http.Server | https.Server): Promise<number> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return (server.address() as AddressInfo).port;
}

describe('transport: a refused connection', () => {
	it('to the Base URL: nothing listens there, nothing was sent', async () => {
		const port = await closedPort();
		const error = await runActionNodeExpectingError({ credentials: { baseUrl: `http://127.0.0.1:${port}`, apiKey: key }, parameters: addContact(NO_RETRIES_WRITE) });
		expect(error.message).toBe(`Add to Campaign failed: the connection to 127.0.0.1:${port} was refused: nothing listens there`);
		expect(error.description).toBe(`Nothing was sent to the service. ${REFUSED_CHECKS}`);
		expect(shown(error)).not.toContain(key);
	});
});


describe('transport: n8n\'s proxy (HTTP_PROXY / HTTPS_PROXY)', () => {
	afterEach(() => {
		delete process.env.HTTP_PROXY;
		delete process.env.HTTPS_PROXY;
	});

	it.each([['http', 'http://service.example:8080'], ['https', 'https://service.example']])(
		'names the address and port the refused connection went to, the proxy\'s, from the error\'s fields (%s Base URL)',
		async (_scheme, baseUrl) => {
			const proxyPort = await closedPort();
			process.env.HTTP_PROXY = process.env.HTTPS_PROXY = `http://127.0.0.1:${proxyPort}`;
			const error = await runActionNodeExpectingError({ credentials: { baseUrl, apiKey: key }, parameters: getContact({ requestOptions: NO_RETRIES }) });
			expect(error.message).toBe(`Get Contact failed: the connection to 127.0.0.1:${proxyPort} was refused: nothing listens there`);
			expect(error.description).toBe(`Nothing was sent to the service. ${REFUSED_CHECKS}`);
		},
	);

	it('names the proxy when it asks for authentication (HTTP 407)', async () => {
		const proxy = http.createServer((_request, response) => {
			response.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' });
			response.end();
		});
		process.env.HTTP_PROXY = `http://127.0.0.1:${await listen(proxy)}`;
		try {
			const error = await runActionNodeExpectingError({ credentials: { baseUrl: 'http://service.example', apiKey: key }, parameters: getContact({ requestOptions: NO_RETRIES }) });
			expect(error.message).toBe('Get Contact failed: the service answered HTTP 407');
			expect(error.description).toBe('A proxy between n8n and the service asks for authentication: add its user and password to n8n\'s HTTP_PROXY / HTTPS_PROXY setting.');
		} finally {
			proxy.close();
		}
	});
});

describe('transport: TLS', () => {
	let folder: string;
	let tlsServer: https.Server;
	let plainServer: http.Server;
	let tlsPort: number;
	let plainPort: number;
	beforeAll(async () => {
		folder = mkdtempSync(join(tmpdir(), 'campaign-calling-tls-'));
		execFileSync('openssl', [
			'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost',
			'-addext', 'subjectAltName=DNS:localhost', '-keyout', join(folder, 'key.pem'), '-out', join(folder, 'cert.pem'),
		], { stdio: 'ignore' });
		tlsServer = https.createServer({ key: readFileSync(join(folder, 'key.pem')), cert: readFileSync(join(folder, 'cert.pem')) }, (_request, response) =>
			sendJson(response, 200, { status: 'ok', message: 'ok', data: {} }),
		);
		tlsPort = await listen(tlsServer);
		plainServer = http.createServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data: {} }));
		plainPort = await listen(plainServer);
	});
	afterAll(() => {
		tlsServer.close();
		plainServer.close();
		rmSync(folder, { recursive: true, force: true });
	});

	it('names a certificate n8n does not trust (self-signed), and what to do', async () => {
		const error = await runActionNodeExpectingError({ credentials: { baseUrl: `https://localhost:${tlsPort}`, apiKey: key }, parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(error.message).toBe(
			`Get Contact failed: the TLS connection to https://localhost:${tlsPort} failed: its certificate is self-signed, not issued by an authority n8n trusts (DEPTH_ZERO_SELF_SIGNED_CERT)`,
		);
		expect(error.description).toMatch(/^Nothing was sent to the service\. .*NODE_EXTRA_CA_CERTS\.$/);
	});

	it('names an https:// Base URL whose port does not speak TLS', async () => {
		const error = await runActionNodeExpectingError({ credentials: { baseUrl: `https://127.0.0.1:${plainPort}`, apiKey: key }, parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(error.message).toMatch(new RegExp(`^Get Contact failed: the TLS connection to https://127\\.0\\.0\\.1:${plainPort} failed: it did not answer in TLS \\(is the port an http:// one\\?\\) \\((EPROTO|ERR_SSL_WRONG_VERSION_NUMBER)\\)$`));
	});

	it('names an expired certificate (the error shape n8n\'s helper throws for a refused certificate)', () => {
		const socketError = Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' });
		const thrown = Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED', isAxiosError: true, cause: socketError });
		expect(noAnswer({ message: 'certificate has expired', cause: thrown }, { baseUrl: 'https://api.example.com' }).message).toBe(
			'Get Contact failed: the TLS connection to https://api.example.com failed: its certificate has expired (CERT_HAS_EXPIRED)',
		);
	});
});

describe('transport: DNS (n8n\'s lookups answered here, not by a DNS server)', () => {
	let lookups: string[];
	let answers: Array<'ENOTFOUND' | 'EAI_AGAIN' | 'loopback'>;
	const realLookup = dns.lookup;
	beforeEach(() => {
		lookups = [];
		answers = [];
		(dns as { lookup: unknown }).lookup = (hostname: string, options: unknown, callback?: (...args: unknown[]) => void) => {
			const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
			const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
			lookups.push(hostname);
			const answer = answers.shift() ?? 'ENOTFOUND';
			if (answer === 'loopback') {
				process.nextTick(() => (all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));
				return;
			}
			const error = Object.assign(new Error(`getaddrinfo ${answer} ${hostname}`), { code: answer, syscall: 'getaddrinfo', hostname });
			process.nextTick(() => done(error));
		};
	});
	afterEach(() => {
		(dns as { lookup: unknown }).lookup = realLookup;
	});

	it('a host name that does not exist: named, nothing sent, a write not repeated', async () => {
		const error = await runActionNodeExpectingError({
			credentials: { baseUrl: 'http://campaign-calling.test', apiKey: key },
			parameters: addContact({ requestOptions: { maxRetries: 3 } }),
		});
		expect(error.message).toBe('Add to Campaign failed: the host name campaign-calling.test was not found: the DNS has no address for it');
		expect(error.description).toBe(
			'Nothing was sent to the service. Check the spelling of the Base URL\'s host name, that n8n\'s DNS can resolve it, and n8n\'s HTTP_PROXY / HTTPS_PROXY setting if n8n uses a proxy (ENOTFOUND).',
		);
		expect(lookups).toEqual(['campaign-calling.test']);
	});

	it('a lookup that failed for now (EAI_AGAIN): a write is repeated, and reaches the service exactly once', async () => {
		answers = ['EAI_AGAIN', 'loopback'];
		const { port } = new URL(sim.simulator.url);
		const output = await runActionNode({
			credentials: { baseUrl: `http://campaign-calling.test:${port}`, apiKey: DEMO.apiKey },
			parameters: addContact({ requestOptions: { maxRetries: 1 } }),
		});
		expect(output[0].json.error).toBeUndefined();
		expect(lookups).toEqual(['campaign-calling.test', 'campaign-calling.test']);
		expect(sim.requests('/addToCampaign')).toHaveLength(1);
	});

	it('a lookup that keeps failing for now: named as such', async () => {
		answers = ['EAI_AGAIN', 'EAI_AGAIN'];
		const error = await runActionNodeExpectingError({
			credentials: { baseUrl: 'http://campaign-calling.test', apiKey: key },
			parameters: getCampaign({ requestOptions: { maxRetries: 1 } }),
		});
		expect(error.message).toBe('Get Campaign failed: the host name campaign-calling.test could not be looked up just now: n8n\'s DNS server did not answer (2 attempts)');
		expect(error.description).toBe('Nothing was sent to the service. Check the spelling of the Base URL\'s host name, that n8n\'s DNS can resolve it, and n8n\'s HTTP_PROXY / HTTPS_PROXY setting if n8n uses a proxy (EAI_AGAIN).');
	});
});

describe('transport: a write that may have reached the service says so, and never invites a blind retry', () => {
	const CHECK_CONTACTS =
		'Check whether these contacts were added (Get Contact for contacts whose IDs you hold, or the campaign in the service\'s app) before sending them again: a repeat may call the same people twice.';

	it('a 5xx answer to Add to Campaign', async () => {
		sim.simulator.injectFault({ kind: 'http-500', times: 5 });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: addContact() });
		expect(error.message).toBe('Add to Campaign failed: the service answered HTTP 500 Internal Server Error (internal server error)');
		expect(error.description).toBe(`The service had a problem, and may have carried out this request before it failed. ${CHECK_CONTACTS}`);
		expect(error.description).not.toMatch(/Try again/);
		expect(sim.requests()).toHaveLength(1);
	});

	it('a connection dropped before the answer to Update Campaign', async () => {
		sim.simulator.injectFault({ kind: 'reset', times: 5 });
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: { resource: 'campaign', operation: 'update', campaignId: DEMO.campaignId, updateFields: { name: 'Renamed' } },
		});
		expect(error.message).toMatch(/^Update Campaign failed: the connection to http:\/\/127\.0\.0\.1:\d+ was dropped before an answer came; the service may have carried it out$/);
		expect(error.description).toBe('Read the campaign with Get Campaign to see whether the change was applied before you repeat it.');
	});

	it('a timed-out Add to Campaign, which the service did carry out', async () => {
		// The service takes the write and never answers: the node gives up after its timeout, and the
		// server sees the client leave (an event, not a wait).
		let left!: Promise<void>;
		const server = await startScriptedServer((_request, response) => {
			left = new Promise((resolve) => response.on('close', () => resolve()));
		});
		try {
			const error = await runActionNodeExpectingError({ credentials: { baseUrl: server.url, apiKey: key }, parameters: addContact({ requestOptions: { maxRetries: 3, timeoutSeconds: 1 } }) });
			expect(error.message).toMatch(/^Add to Campaign failed: no answer from http:\/\/127\.0\.0\.1:\d+ within 1 seconds; the service may have carried it out$/);
			expect(error.description).toBe(`${CHECK_CONTACTS} If the service is slow, raise Request Options → Timeout.`);
			await left;
			expect(server.requests).toHaveLength(1);
		} finally {
			await server.close();
		}
	});

	it('a 502 answer to a module creation', async () => {
		sim.simulator.injectFault({ kind: 'http-502', times: 5 });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: createIntegration() });
		expect(error.description).toBe(
			'The service had a problem, and may have carried out this request before it failed. Check in the service\'s app whether the module was created before you create it again: the service offers no way to list or delete modules, and a second one would act on every event twice.',
		);
	});

	it('a read keeps its retry hint', async () => {
		sim.simulator.injectFault({ kind: 'http-503', times: 5 });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(error.description).toBe('The service had a problem. Try again later; reads are retried automatically.');
	});
});

describe('transport: n8n 1.x\'s errors, which keep no cause (its NodeApiError resets it): the code from httpCode, the place from the Base URL', () => {
	const n8n1Error = (message: string, httpCode: string, raw: string) => ({ name: 'NodeApiError', message, httpCode, messages: [raw] });

	it.each<[string, ReturnType<typeof n8n1Error>, string]>([
		['refused', n8n1Error('The service refused the connection - perhaps it is offline', 'ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:3128'), 'Get Contact failed: the connection to 127.0.0.1:8080 was refused: nothing listens there'],
		['dropped', n8n1Error('The connection to the server was closed unexpectedly', 'ECONNRESET', 'socket hang up'), 'Get Contact failed: the connection to http://127.0.0.1:8080 was dropped before an answer came'],
		['timed out', n8n1Error('The connection was aborted, perhaps the server is offline', 'ECONNABORTED', 'timeout of 60000ms exceeded'), 'Get Contact failed: no answer from http://127.0.0.1:8080 within 60 seconds'],
		['not found', n8n1Error('The connection cannot be established', 'ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.test'), 'Get Contact failed: the host name 127.0.0.1 was not found: the DNS has no address for it'],
		['TLS', n8n1Error('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'Get Contact failed: the TLS connection to http://127.0.0.1:8080 failed: its certificate is self-signed, not issued by an authority n8n trusts (DEPTH_ZERO_SELF_SIGNED_CERT)'],
	])('%s', (_label, error, message) => {
		expect(noAnswer(error).message).toBe(message);
	});

	it('says how many attempts were made when there were more than one', () => {
		expect(errorOf({ kind: 'noAnswer', error: { httpCode: 'ECONNRESET' }, attempts: 4 }).message).toBe(
			'Get Contact failed: the connection to http://127.0.0.1:8080 was dropped before an answer came (4 attempts)',
		);
	});
});

describe('transport: an answer the transport does not name', () => {
	it('passes on what n8n\'s HTTP client reported, without the key', () => {
		const error = noAnswer(new Error(`Proxy connection ended before receiving CONNECT response for ${key}`), { ...WRITE, baseUrl: 'https://api.example.com' });
		expect(error.message).toBe('Add to Campaign failed: the request to https://api.example.com failed without an answer; the service may have carried it out');
		expect(error.description).toBe(
			'n8n\'s HTTP client reported: Proxy connection ended before receiving CONNECT response for [redacted]. Check the Base URL in the Campaign Calling credential and that the service is reachable from n8n. Check at the service whether it was carried out before you repeat it.',
		);
	});

	it('a failure with neither a code nor a text, or no error at all: says no reason was given', () => {
		for (const error of [{}, undefined, 'thrown as text']) {
			expect(noAnswer(error).description).toBe(
				"n8n's HTTP client reported: no reason given. Check the Base URL in the Campaign Calling credential and that the service is reachable from n8n.",
			);
		}
	});

	it('passes on the innermost words of the error chain, skipping a link that has none', () => {
		expect(noAnswer({ message: 'outer words', cause: { message: 'inner words', cause: { message: '', cause: { message: 42 } } } }).description).toMatch(/^n8n's HTTP client reported: inner words\. /);
	});

	it('a dropped connection is no request n8n refused to build, whatever error type carries its code', () => {
		expect(noAnswer({ message: 'socket hang up', code: 'ECONNRESET', cause: new TypeError('terminated') }).message).toBe(
			'Get Contact failed: the connection to http://127.0.0.1:8080 was dropped before an answer came',
		);
	});

	it('reads no word of a message as an error code', () => {
		const error = noAnswer(new Error('connect ECONNREFUSED 10.0.0.1:3128'), WRITE);
		expect(error.message).toBe('Add to Campaign failed: the request to http://127.0.0.1:8080 failed without an answer; the service may have carried it out');
		expect(error.description).toMatch(/^n8n's HTTP client reported: connect ECONNREFUSED 10\.0\.0\.1:3128\. /);
	});
});

describe('transport: a request n8n refused to build is no network failure', () => {
	afterEach(() => {
		delete process.env.HTTP_PROXY;
	});

	it('through n8n-core\'s HTTP stack: a proxy setting that is no web address, nothing sent, not "may have carried it out"', async () => {
		process.env.HTTP_PROXY = 'http://proxy host:3128';
		const error = await runActionNodeExpectingError({ credentials: { ...sim.credentials(), apiKey: key }, parameters: addContact({ requestOptions: { maxRetries: 3 } }) });
		expect(error.message).toBe('Add to Campaign failed: n8n could not build the request, so it could not send it');
		expect(error.description).toBe(
			'Nothing was sent to the service. n8n\'s HTTP client reported: Invalid URL (ERR_INVALID_URL).',
		);
		expect(sim.requests()).toHaveLength(0);
	});

	// Node's own error for a header value it will not send, as older HTTP clients (without axios' clean-up of header values) let it through.
	const invalidChar = () => Object.assign(new TypeError('Invalid character in header content ["Authorization"]'), { code: 'ERR_INVALID_CHAR' });

	it.each<[string, unknown]>([
		['n8n 2.x (the cause kept)', { name: 'NodeApiError', message: 'Invalid character in header content ["Authorization"]', cause: invalidChar() }],
		['n8n 1.x (no cause, the code in httpCode)', { name: 'NodeApiError', message: 'Invalid character in header content ["Authorization"]', httpCode: 'ERR_INVALID_CHAR', messages: ['Invalid character in header content ["Authorization"]'] }],
	])('an API key an HTTP header cannot carry, as %s: the header named, and that nothing was sent', (_label, error) => {
		const failure = noAnswer(error, WRITE);
		expect(failure.message).toBe('Add to Campaign failed: n8n could not build the request, so it could not send it');
		expect(failure.description).toBe('Nothing was sent to the service. n8n\'s HTTP client reported: Invalid character in header content ["Authorization"] (ERR_INVALID_CHAR).');
	});

	it('a TypeError with no code (a body n8n could not serialise): nothing was sent', () => {
		const failure = noAnswer({ name: 'NodeApiError', message: 'Converting circular structure to JSON', cause: new TypeError('Converting circular structure to JSON') }, WRITE);
		expect(failure.message).toBe('Add to Campaign failed: n8n could not build the request, so it could not send it');
		expect(failure.description).toBe('Nothing was sent to the service. n8n\'s HTTP client reported: Converting circular structure to JSON.');
	});

	it('a RangeError with no code (a value out of range for the request): nothing was sent', () => {
		const failure = noAnswer({ name: 'NodeApiError', message: 'Invalid array length', cause: new RangeError('Invalid array length') }, WRITE);
		expect(failure.message).toBe('Add to Campaign failed: n8n could not build the request, so it could not send it');
	});

	it('a code Node gives a request it refuses to build: nothing was sent, the code named', () => {
		const failure = noAnswer({ message: 'wrapped', cause: Object.assign(new RangeError('Port should be >= 0 and < 65536'), { code: 'ERR_SOCKET_BAD_PORT' }) }, WRITE);
		expect(failure.message).toBe('Add to Campaign failed: n8n could not build the request, so it could not send it');
		expect(failure.description).toBe('Nothing was sent to the service. n8n\'s HTTP client reported: Port should be >= 0 and < 65536 (ERR_SOCKET_BAD_PORT).');
	});
});

describe('transport: each TLS failure in words', () => {
	const untrustedAuthority = 'its certificate was issued by an authority n8n does not know';
	const notTls = 'it did not answer in TLS (is the port an http:// one?)';
	it.each([
		['CERT_HAS_EXPIRED', 'its certificate has expired'],
		['CERT_NOT_YET_VALID', 'its certificate is not valid yet'],
		['DEPTH_ZERO_SELF_SIGNED_CERT', 'its certificate is self-signed, not issued by an authority n8n trusts'],
		['SELF_SIGNED_CERT_IN_CHAIN', 'its certificate chain ends in a self-signed certificate n8n does not trust'],
		['UNABLE_TO_VERIFY_LEAF_SIGNATURE', untrustedAuthority],
		['UNABLE_TO_GET_ISSUER_CERT', untrustedAuthority],
		['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', untrustedAuthority],
		['CERT_REVOKED', 'its certificate has been revoked'],
		['ERR_TLS_CERT_ALTNAME_INVALID', 'its certificate is for another host name'],
		['EPROTO', notTls],
		['ERR_SSL_WRONG_VERSION_NUMBER', notTls],
		['ERR_SSL_SOMETHING_NEW', 'n8n did not accept its certificate'],
	])('%s: "%s", nothing sent, what to check', (code, words) => {
		const error = noAnswer({ code }, { baseUrl: 'https://api.example.com' });
		expect(error.message).toBe(`Get Contact failed: the TLS connection to https://api.example.com failed: ${words} (${code})`);
		expect(error.description).toMatch(/^Nothing was sent to the service\. Check the Base URL's host name and scheme\./);
		expect(error.description).toContain('NODE_EXTRA_CA_CERTS');
	});
});

describe('transport: where a failure was, from the error\'s fields or the Base URL', () => {
	it('a refusal names the address and port its error gives, else the Base URL\'s host and port', () => {
		expect(noAnswer({ code: 'ECONNREFUSED', cause: { address: '10.0.0.6', port: 3128 } }).message).toBe('Get Contact failed: the connection to 10.0.0.6:3128 was refused: nothing listens there');
		expect(noAnswer({ code: 'ECONNREFUSED', address: '10.0.0.6' }, { baseUrl: 'http://10.0.0.5:8080' }).message).toBe('Get Contact failed: the connection to 10.0.0.5:8080 was refused: nothing listens there');
		expect(noAnswer({ code: 'ECONNREFUSED' }, { baseUrl: 'https://api.example.com' }).message).toBe('Get Contact failed: the connection to api.example.com:443 was refused: nothing listens there');
		expect(noAnswer({ code: 'ECONNREFUSED' }, { baseUrl: 'http://api.example.com/v' }).message).toBe('Get Contact failed: the connection to api.example.com:80 was refused: nothing listens there');
	});

	it('a failed lookup names the host name its error gives, else the Base URL\'s', () => {
		expect(noAnswer({ code: 'ENOTFOUND', hostname: 'proxy.internal' }, { baseUrl: 'https://api.example.com' }).message).toBe(
			'Get Contact failed: the host name proxy.internal was not found: the DNS has no address for it',
		);
		expect(noAnswer({ code: 'EAI_AGAIN' }, { baseUrl: 'https://api.example.com' }).message).toBe(
			'Get Contact failed: the host name api.example.com could not be looked up just now: n8n\'s DNS server did not answer',
		);
	});

	it('an IPv6 Base URL blocked by n8n\'s SSRF protection: the setting to allow it, with a /128 range', () => {
		const error = noAnswer({ message: 'blocked', cause: { name: 'SsrfBlockedIpError', ip: 'fd00::5' } }, { baseUrl: 'http://[fd00::5]:8080' });
		expect(error.message).toBe("Get Contact failed: n8n's SSRF protection blocked the request to http://[fd00::5]:8080 (it resolves to fd00::5, an address in n8n's blocked ranges)");
		expect(error.description).toContain('N8N_SSRF_ALLOWED_IP_RANGES (for example fd00::5/128)');
	});

	it('an SSRF block names the host n8n blocked, and a host name ending or starting with digits is allowed by name', () => {
		const error = noAnswer({ name: 'SsrfBlockedHostnameError', hostname: 'internal.example' }, { baseUrl: 'http://db1:8080' });
		expect(error.message).toBe("Get Contact failed: n8n's SSRF protection blocked the request to http://db1:8080 (the host name internal.example is on n8n's list of blocked host names)");
		expect(error.description).toContain('N8N_SSRF_ALLOWED_HOSTNAMES (for example db1)');
		const unnamed = noAnswer({ name: 'SsrfBlockedHostnameError' }, { baseUrl: 'http://10.0.0.5.nip.io' });
		expect(unnamed.message).toBe("Get Contact failed: n8n's SSRF protection blocked the request to http://10.0.0.5.nip.io (the host name 10.0.0.5.nip.io is on n8n's list of blocked host names)");
		expect(unnamed.description).toContain('N8N_SSRF_ALLOWED_HOSTNAMES (for example 10.0.0.5.nip.io)');
	});
});

describe('transport: what the service answered, in words', () => {
	it('an error envelope: what the service said, cut at 300 characters, with the operation\'s hint', () => {
		expect(errorOf({ kind: 'envelope', said: 'Key revoked' }, { errorHint: 'Check the Contact ID.' })).toMatchObject({
			message: 'Get Contact failed: the service answered status "error" (Key revoked)',
			description: 'Check the Contact ID.',
		});
		expect(errorOf({ kind: 'envelope', said: '' }).message).toBe('Get Contact failed: the service answered status "error"');
		expect(errorOf({ kind: 'envelope', said: 'x'.repeat(300) }).message).toBe(`Get Contact failed: the service answered status "error" (${'x'.repeat(300)})`);
		expect(errorOf({ kind: 'envelope', said: 'x'.repeat(301) }).message).toBe(`Get Contact failed: the service answered status "error" (${'x'.repeat(300)}…)`);
	});

	it('an HTTP status: its name, what the service said, and the status as httpCode', () => {
		const error = errorOf({ kind: 'status', statusCode: 404, said: 'no such contact' });
		expect(error.message).toBe('Get Contact failed: the service answered HTTP 404 Not Found (no such contact)');
		expect(error.httpCode).toBe('404');
		expect(errorOf({ kind: 'status', statusCode: 418 }).message).toBe('Get Contact failed: the service answered HTTP 418');
		expect(errorOf({ kind: 'unexpected', reason: 'the answer is not a JSON object' }).httpCode).toBeFalsy();
	});

	it.each<[number, string]>([
		[401, 'Check the API key in the Campaign Calling credential, and that the record belongs to the company of that key.'],
		[403, 'Check the API key in the Campaign Calling credential, and that the record belongs to the company of that key.'],
		[429, 'The service is rate limiting. Wait a moment, or lower the batch size or the number of items per run.'],
		[407, 'A proxy between n8n and the service asks for authentication: add its user and password to n8n\'s HTTP_PROXY / HTTPS_PROXY setting.'],
	])('HTTP %d: what the user can act on', (statusCode, hint) => {
		expect(errorOf({ kind: 'status', statusCode }).description).toBe(hint);
		expect(errorOf({ kind: 'status', statusCode }, WRITE).description).toBe(hint);
	});

	it('warns that a write may have been carried out after a 408 or a 5xx, and not after a 404; a read\'s 408 has no hint', () => {
		expect(errorOf({ kind: 'status', statusCode: 408 }, WRITE).description).toMatch(/^The service had a problem, and may have carried out this request before it failed\./);
		expect(errorOf({ kind: 'status', statusCode: 404 }, WRITE).description).toBeUndefined();
		expect(errorOf({ kind: 'status', statusCode: 408 }).description).toBeUndefined();
		expect(errorOf({ kind: 'status', statusCode: 500 }).description).toBe('The service had a problem. Try again later; reads are retried automatically.');
	});

	it('a redirect: the origin of a Location given with blanks around it, "no address" for a blank one', () => {
		expect(errorOf({ kind: 'redirect', statusCode: 302, location: '  https://elsewhere.example/path?key=1  ' }).message).toBe(
			'Get Contact failed: the service answered HTTP 302 Found, a redirect to https://elsewhere.example, which the node does not follow',
		);
		expect(errorOf({ kind: 'redirect', statusCode: 302, location: '   ' }).message).toBe('Get Contact failed: the service answered HTTP 302 Found, a redirect to no address, which the node does not follow');
		expect(errorOf({ kind: 'redirect', statusCode: 307, location: 'http://[bad' }).message).toMatch(/a redirect to an address that is not valid,/);
	});

	it('the key is redacted from the message, the description and the response n8n keeps', () => {
		const error = errorOf({ kind: 'envelope', said: `bad key ${key}` }, { errorHint: `hint ${key}` });
		expect(JSON.stringify({ message: error.message, description: error.description, cause: error.cause })).not.toContain(key);
		expect(error.message).toContain('[redacted]');
	});
});

describe('redactSecret', () => {
	it('blanks a key of four characters or more wherever it appears, and leaves shorter ones (they would blank ordinary words)', () => {
		expect(redactSecret('key abcd in abcd', 'abcd')).toBe('key [redacted] in [redacted]');
		expect(redactSecret('key abc', 'abc')).toBe('key abc');
		expect(redactSecret('abc', undefined)).toBe('abc');
	});
});
