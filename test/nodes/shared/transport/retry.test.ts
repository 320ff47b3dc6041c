import {
	DEFAULT_RETRY_POLICY,
	isRetryable,
	networkErrorCode,
	networkFailureFacts,
	retryDelayMs,
} from '../../../../nodes/shared/transport/retry';
import { runActionNode, runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import type { FaultSpec } from '../../../simulator/server.ts';
import { DEMO, NO_RETRIES, closedPort, useSimulator } from '../../../helpers/kit.ts';
import { getContact, getCampaign, addContact, createIntegration } from '../../../helpers/actionParameters.ts';

const sim = useSimulator();

/** A wait of the backoff's range (DEFAULT_RETRY_POLICY); other timers keep their delay. */
const isBackoff = (ms: number | undefined) => ms !== undefined && ms >= DEFAULT_RETRY_POLICY.initialDelayMs && ms <= DEFAULT_RETRY_POLICY.maxDelayMs;
const realSetTimeout = globalThis.setTimeout;

describe('transport: retries', () => {
	let timers: jest.SpyInstance;
	beforeEach(() => {
		// Each backoff is recorded as the transport asked for it, then runs at once: the cases check the waits
		// asked for (waitsOf), not the clock, and need not spend them.
		timers = jest.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
			realSetTimeout(callback, isBackoff(ms) ? 0 : ms, ...args)) as typeof setTimeout);
	});
	afterEach(() => timers.mockRestore());
	/** The waits the transport asked for between attempts. */
	const waitsOf = (...candidates: number[]) =>
		timers.mock.calls.map((call) => call[1] as number).filter((ms) => candidates.includes(ms));

	it('repeats a read after a 503, then succeeds', async () => {
		sim.simulator.injectFault({ kind: 'http-503', times: 1 });
		const output = await runActionNode({ credentials: sim.credentials(), parameters: getContact() });
		expect(sim.requests().map((request) => request.path)).toEqual([`/contacts/${DEMO.completedContactId}`, `/contacts/${DEMO.completedContactId}`]);
		expect(output[0].json.id).toBe(DEMO.completedContactId);
		expect(waitsOf(500)).toEqual([500]);
	});

	it('repeats a read after a dropped connection, then succeeds', async () => {
		sim.simulator.injectFault({ kind: 'reset', times: 1 });
		const output = await runActionNode({ credentials: sim.credentials(), parameters: getCampaign() });
		expect(sim.requests()).toHaveLength(2);
		expect(output[0].json.id).toBe(DEMO.campaignId);
	});

	it('honours Retry-After on a 429 instead of its own backoff', async () => {
		sim.simulator.injectFault({ kind: 'http-429', retryAfterSeconds: 1, times: 1 });
		const output = await runActionNode({ credentials: sim.credentials(), parameters: getContact() });
		expect(sim.requests()).toHaveLength(2);
		expect(output[0].json.id).toBe(DEMO.completedContactId);
		expect(waitsOf(500, 1000)).toEqual([1000]);
	});

	it('gives up after Max Retries and reports the last answer', async () => {
		sim.simulator.injectFault({ kind: 'http-502', times: 5 });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: getContact({ requestOptions: { maxRetries: 1 } }) });
		expect(error.message).toBe('Get Contact failed: the service answered HTTP 502 Bad Gateway (bad gateway)');
		expect(sim.requests()).toHaveLength(2);
	});

	it.each<[string, FaultSpec]>([
		['a 500', { kind: 'http-500', times: 5 }],
		['a 503', { kind: 'http-503', times: 5 }],
		['a 429', { kind: 'http-429', retryAfterSeconds: 0, times: 5 }],
		['a dropped connection', { kind: 'reset', times: 5 }],
	])('never repeats a write after %s', async (_label, fault) => {
		sim.simulator.injectFault(fault);
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: addContact() });
		expect(error.message).toMatch(/^Add to Campaign failed: /);
		expect(error.message).not.toMatch(/attempts/);
		expect(sim.requests()).toHaveLength(1);
		expect([...sim.simulator.state.contacts.values()].filter((contact) => contact.phone_number === '+14155550199')).toHaveLength(0);
	});

	it('never repeats a module creation after a dropped connection', async () => {
		sim.simulator.injectFault({ kind: 'reset', times: 5 });
		await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: createIntegration() });
		expect(sim.requests()).toHaveLength(1);
	});

	it('repeats a write whose connection was refused (it never reached the service)', async () => {
		const port = await closedPort();
		const error = await runActionNodeExpectingError({
			credentials: { baseUrl: `http://127.0.0.1:${port}`, apiKey: DEMO.apiKey },
			parameters: addContact({ requestOptions: { maxRetries: 1 } }),
		});
		expect(error.message).toBe(`Add to Campaign failed: the connection to 127.0.0.1:${port} was refused: nothing listens there (2 attempts)`);
		expect(waitsOf(500)).toEqual([500]);
	});

	it('makes one attempt only with Max Retries 0', async () => {
		sim.simulator.injectFault({ kind: 'http-503', times: 2 });
		await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: getContact({ requestOptions: NO_RETRIES }) });
		expect(sim.requests()).toHaveLength(1);
		expect(waitsOf(500, 1000)).toEqual([]);
	});
});

describe('transport helpers', () => {
	const answer = (statusCode: number, headers: Record<string, unknown> = {}) => ({ statusCode, headers, body: '' });
	const networkError = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

	it.each<[string, ReturnType<typeof answer> | undefined, unknown, boolean, boolean]>([
		['GET 503', answer(503), undefined, true, true],
		['GET 500', answer(500), undefined, true, true],
		['GET 429', answer(429), undefined, true, true],
		['GET 404', answer(404), undefined, true, false],
		['GET 200', answer(200), undefined, true, false],
		['POST 503', answer(503), undefined, false, false],
		['POST 429', answer(429), undefined, false, false],
		['GET reset', undefined, networkError('ECONNRESET'), true, true],
		['GET timeout', undefined, networkError('ECONNABORTED'), true, true],
		['POST reset', undefined, networkError('ECONNRESET'), false, false],
		['POST timeout', undefined, networkError('ETIMEDOUT'), false, false],
		['POST refused', undefined, networkError('ECONNREFUSED'), false, true],
		['POST unresolved (the name does not exist)', undefined, networkError('ENOTFOUND'), false, false],
		['GET unresolved (the name does not exist)', undefined, networkError('ENOTFOUND'), true, false],
		['POST name lookup failed for now', undefined, networkError('EAI_AGAIN'), false, true],
		['GET name lookup failed for now', undefined, networkError('EAI_AGAIN'), true, true],
		['POST blocked by n8n\'s SSRF protection', undefined, Object.assign(new Error('The request was blocked because it resolves to a restricted IP address'), { name: 'SsrfBlockedIpError' }), false, false],
		['GET TLS certificate refused', undefined, networkError('CERT_HAS_EXPIRED'), true, false],
		['GET unknown error', undefined, new Error('boom'), true, false],
	])('isRetryable: %s', (_label, httpAnswer, error, isRead, expected) => {
		expect(isRetryable(httpAnswer, error, isRead)).toBe(expected);
	});

	it('retryDelayMs doubles from 500 ms up to the cap, and prefers a numeric Retry-After within it', () => {
		const policy = DEFAULT_RETRY_POLICY;
		expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(undefined, attempt, policy))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
		expect(retryDelayMs(answer(429, { 'Retry-After': '2' }), 0, policy)).toBe(2000);
		expect(retryDelayMs(answer(429, { 'retry-after': ['3'] }), 0, policy)).toBe(3000);
		expect(retryDelayMs(answer(429, { 'retry-after': '120' }), 0, policy)).toBe(8000);
		expect(retryDelayMs(answer(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), 1, policy)).toBe(1000);
		expect(retryDelayMs(answer(429, { 'retry-after': '-1' }), 0, policy)).toBe(500);
	});

	it('networkErrorCode digs the socket code out of wrappers and messages', () => {
		expect(networkErrorCode(networkError('ECONNREFUSED'))).toBe('ECONNREFUSED');
		expect(networkErrorCode({ message: 'wrapped', cause: { code: 'ECONNRESET' } })).toBe('ECONNRESET');
		expect(networkErrorCode({ errorResponse: { code: 'ETIMEDOUT' } })).toBe('ETIMEDOUT');
		expect(networkErrorCode(new Error('socket hang up: read ECONNRESET'))).toBe('ECONNRESET');
		expect(networkErrorCode(new Error('timeout of 1000ms exceeded'))).toBe('ECONNABORTED');
		expect(networkErrorCode({ message: 'self-signed certificate', cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } })).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
		expect(networkErrorCode(Object.assign(new Error('nope'), { code: 'ERR_BAD_RESPONSE_x' }))).toBeUndefined();
		// n8n 1.x's NodeApiError: no cause, the code under httpCode, the library's message under messages.
		expect(networkErrorCode({ message: 'The service refused the connection - perhaps it is offline', httpCode: 'ECONNREFUSED' })).toBe('ECONNREFUSED');
		expect(networkErrorCode({ message: 'The connection was aborted', httpCode: null, messages: ['timeout of 1000ms exceeded'] })).toBe('ECONNABORTED');
		expect(networkErrorCode({ message: 'Bad gateway', httpCode: '502' })).toBeUndefined();
		expect(networkErrorCode('ECONNRESET')).toBeUndefined();
		expect(networkErrorCode(undefined)).toBeUndefined();
	});

	it('networkErrorCode reads a message only for codes Node and libuv have: not ERROR, not any word in capitals', () => {
		expect(networkErrorCode(new Error('ERROR: the upstream answered'))).toBeUndefined();
		expect(networkErrorCode({ message: 'wrapped', messages: ['EXAMPLE ENOSUCHCODE'] })).toBeUndefined();
		expect(networkErrorCode(new Error('ERROR: getaddrinfo EAI_AGAIN api.example.test'))).toBe('EAI_AGAIN');
		expect(networkErrorCode({ message: 'wrapped', messages: ['connect EHOSTUNREACH 10.0.0.9:443'] })).toBe('EHOSTUNREACH');
		// A write whose failure only says ERROR is not repeated as if it provably never left.
		expect(isRetryable(undefined, new Error('ERROR ECONNREFUSEDX'), false)).toBe(false);
	});
});

describe('networkFailureFacts: what an error chain says of a network failure', () => {
	it('keeps the first address, host name and port of the chain, and reads no further than six links', () => {
		const chain = { message: 'outer', address: '10.0.0.1', port: 3128, cause: { message: '', address: '10.0.0.2', hostname: 'proxy.internal', port: 80 } };
		expect(networkFailureFacts(chain)).toMatchObject({ address: '10.0.0.1', port: 3128, hostname: 'proxy.internal', detail: 'outer' });
		const deep = { message: 'level 1', cause: { cause: { cause: { cause: { cause: { cause: { address: '10.9.9.9', message: 'level 7' } } } } } } };
		expect(networkFailureFacts(deep)).toMatchObject({ address: undefined, detail: 'level 1' });
	});

	it('takes no empty or non-text value as an address, and stops at a null cause', () => {
		expect(networkFailureFacts({ address: '', cause: { address: 42, cause: { address: '10.0.0.3', cause: null } } }).address).toBe('10.0.0.3');
		expect(networkFailureFacts(null)).toEqual({ code: undefined });
	});

	it('keeps an address it was given over one in a "connect E…" text, and reads the text when it has none', () => {
		expect(networkFailureFacts({ address: '10.0.0.1', port: 3128, message: 'connect ECONNREFUSED 10.0.0.2:80' })).toMatchObject({ address: '10.0.0.1', port: 3128 });
		expect(networkFailureFacts({ message: 'connect ECONNREFUSED 10.0.0.2:80' })).toMatchObject({ address: '10.0.0.2', port: 80 });
	});

	it('reads n8n 2.x\'s SSRF errors, with the address and host name, and n8n\'s message only at its start', () => {
		expect(networkFailureFacts({ name: 'SsrfBlockedIpError', ip: '10.0.0.1', hostname: 'internal.example', message: 'blocked' }).ssrfBlocked).toEqual({ ip: '10.0.0.1', hostname: 'internal.example' });
		expect(networkFailureFacts({ message: 'The request was blocked because the address is private' }).ssrfBlocked).toEqual({});
		expect(networkFailureFacts({ message: 'Upstream: The request was blocked because of a rule' }).ssrfBlocked).toBeUndefined();
	});

	it('names the header Node refused to send, in each of its wordings', () => {
		const refused = (message: string) => networkFailureFacts(Object.assign(new TypeError(message), { code: 'ERR_INVALID_CHAR' })).notSent;
		expect(refused('Invalid character in header content ["X-Trace"]')).toEqual({ detail: 'Invalid character in header content ["X-Trace"]', header: 'X-Trace' });
		expect(refused('Invalid value "a\nb" for header "X-Trace"')?.header).toBe('X-Trace');
		expect(refused('Header name must be a valid HTTP token ["X Trace"]')?.header).toBe('X Trace');
	});

	it('takes a RangeError without a code as a request n8n refused to build, with no reason given when it says none', () => {
		expect(networkFailureFacts(new RangeError('')).notSent).toEqual({ detail: 'no reason given', header: undefined });
		expect(networkFailureFacts('a thrown text').notSent).toBeUndefined();
	});
});

describe('retryDelayMs', () => {
	it('takes a Retry-After of 0 as "now"', () => {
		expect(retryDelayMs({ statusCode: 429, headers: { 'retry-after': '0' }, body: '' }, 2, DEFAULT_RETRY_POLICY)).toBe(0);
	});
});
