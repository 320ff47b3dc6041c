import { errorCode } from '../../../../nodes/shared/transport/failures';
import { DEFAULT_RETRY_POLICY, isRetryable, retryDelayMs } from '../../../../nodes/shared/transport/request';
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
		expect([0, 1, 2, 3, 4, 5].map((attempt) => retryDelayMs(undefined, attempt))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
		expect(retryDelayMs(answer(429, { 'Retry-After': '2' }), 0)).toBe(2000);
		expect(retryDelayMs(answer(429, { 'retry-after': ['3'] }), 0)).toBe(3000);
		expect(retryDelayMs(answer(429, { 'retry-after': '120' }), 0)).toBe(8000);
		expect(retryDelayMs(answer(429, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), 1)).toBe(1000);
		expect(retryDelayMs(answer(429, { 'retry-after': '-1' }), 0)).toBe(500);
	});

	it('errorCode reads the code from the fields of the error chain: code, or n8n\'s httpCode, through cause and errorResponse', () => {
		expect(errorCode(networkError('ECONNREFUSED'))).toBe('ECONNREFUSED');
		expect(errorCode({ message: 'wrapped', cause: { code: 'ECONNRESET' } })).toBe('ECONNRESET');
		expect(errorCode({ errorResponse: { code: 'ETIMEDOUT' } })).toBe('ETIMEDOUT');
		expect(errorCode({ message: 'self-signed certificate', cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } })).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
		expect(errorCode(Object.assign(new Error('nope'), { code: 'ERR_BAD_RESPONSE_x' }))).toBeUndefined();
		// n8n 1.x's NodeApiError: no cause, the code under httpCode.
		expect(errorCode({ message: 'The service refused the connection - perhaps it is offline', httpCode: 'ECONNREFUSED' })).toBe('ECONNREFUSED');
		expect(errorCode({ message: 'Bad gateway', httpCode: '502' })).toBeUndefined();
		expect(errorCode({ httpCode: 'Timeout ETIMEDOUT' })).toBeUndefined();
		expect(errorCode('ECONNRESET')).toBeUndefined();
		expect(errorCode(undefined)).toBeUndefined();
		// A thrown null, or a link whose cause is null, ends the chain without reading a field of null.
		expect(errorCode(null)).toBeUndefined();
		expect(errorCode({ code: 'ECONNRESET', cause: null, errorResponse: null })).toBe('ECONNRESET');
	});

	it('errorCode never reads a message: a code only in words is no code, and a write failing so is not repeated', () => {
		expect(errorCode(new Error('socket hang up: read ECONNRESET'))).toBeUndefined();
		expect(errorCode({ message: 'wrapped', messages: ['connect ECONNREFUSED 10.0.0.9:443'] })).toBeUndefined();
		expect(isRetryable(undefined, new Error('connect ECONNREFUSED 10.0.0.9:443'), false)).toBe(false);
	});

	it('errorCode stops at a cycle and after six links', () => {
		const cycle: Record<string, unknown> = { message: 'a' };
		cycle.cause = cycle;
		expect(errorCode(cycle)).toBeUndefined();
		const deep = { cause: { cause: { cause: { cause: { cause: { cause: { code: 'ECONNRESET' } } } } } } };
		expect(errorCode(deep)).toBeUndefined();
		expect(errorCode(deep.cause)).toBe('ECONNRESET');
	});
});

describe('retryDelayMs', () => {
	it('takes a Retry-After of 0 as "now"', () => {
		expect(retryDelayMs({ statusCode: 429, headers: { 'retry-after': '0' }, body: '' }, 2)).toBe(0);
	});
});
