/**
 * ServiceFailureFactory on its own: the words of each failure, from what the service answered.
 * (Through n8n's real HTTP stack: envelope.test.ts, redirects.test.ts, rootCauses.test.ts.)
 */
import type { INode } from 'n8n-workflow';

import { ServiceFailureFactory, redactSecret } from '../../../../nodes/shared/transport/failures';

const failures = (isWrite = false) =>
	new ServiceFailureFactory({ name: 'Campaign Calling' } as INode, { operation: 'Get Contact' }, 'sk-test-key', 'https://api.example.com', { isWrite, timeoutMs: 60_000 });

describe('an error envelope', () => {
	it('says what the service said, trimmed, once when message and data say the same, nothing when it said nothing', () => {
		expect(failures().envelope({ status: 'error', message: '  Key revoked  ', data: { id: 1 } }).message).toBe('Get Contact failed: the service answered status "error" (Key revoked)');
		expect(failures().envelope({ status: 'error', message: 'not found', data: ' not found ' }).message).toBe('Get Contact failed: the service answered status "error" (not found)');
		expect(failures().envelope({ status: 'error', message: '', data: undefined }).message).toBe('Get Contact failed: the service answered status "error"');
	});
});

describe('an HTTP status', () => {
	it('adds what the service said, trimmed, and nothing for blank words', () => {
		expect(failures().httpStatus(404, { kind: 'json', value: { message: '  no such contact ' } }).message).toBe('Get Contact failed: the service answered HTTP 404 Not Found (no such contact)');
		expect(failures().httpStatus(404, { kind: 'json', value: { message: '   ' } }).message).toBe('Get Contact failed: the service answered HTTP 404 Not Found');
	});

	it('calls a body an HTML error page only when it starts as one', () => {
		expect(failures().httpStatus(502, { kind: 'invalid', text: '<!DOCTYPE html><p>down</p>' }).message).toBe('Get Contact failed: the service answered HTTP 502 Bad Gateway (an HTML error page)');
		expect(failures().httpStatus(502, { kind: 'invalid', text: 'upstream said <html>' }).message).toBe('Get Contact failed: the service answered HTTP 502 Bad Gateway');
	});

	it('warns that a write may have been carried out after a 408 or a 5xx, and not after a 404', () => {
		expect(failures(true).httpStatus(408, { kind: 'empty' }).description).toMatch(/^The service had a problem, and may have carried out this request before it failed\./);
		expect(failures(true).httpStatus(404, { kind: 'empty' }).description).toBeUndefined();
		expect(failures(false).httpStatus(408, { kind: 'empty' }).description).toBeUndefined();
	});

	it('carries the status as httpCode, and a failure without one carries none', () => {
		expect(failures().httpStatus(503, { kind: 'empty' }).httpCode).toBe('503');
		expect(failures().api('the answer is not a JSON object').httpCode).toBeFalsy();
	});
});

describe('a redirect', () => {
	it('names the origin of a Location given with blanks around it, and "no address" for a blank one', () => {
		expect(failures().redirect(302, '  https://elsewhere.example/path?key=1  ').message).toBe(
			'Get Contact failed: the service answered HTTP 302 Found, a redirect to https://elsewhere.example, which the node does not follow',
		);
		expect(failures().redirect(302, '   ').message).toBe('Get Contact failed: the service answered HTTP 302 Found, a redirect to no address, which the node does not follow');
	});
});

describe('redactSecret', () => {
	it('blanks a key of four characters or more wherever it appears, and leaves shorter ones (they would blank ordinary words)', () => {
		expect(redactSecret('key abcd in abcd', 'abcd')).toBe('key [redacted] in [redacted]');
		expect(redactSecret('key abc', 'abc')).toBe('key abc');
	});
});
