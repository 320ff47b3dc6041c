import * as crypto from 'node:crypto';

import { FINGERPRINT_SCRYPT, accountFingerprint, canonicalBaseUrl, credentialBaseUrl } from '../../../../nodes/shared/transport/request';
import { executeContextFor, runActionNode, runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator } from '../../../helpers/kit.ts';
import { getContact, getCampaign, addContact } from '../../../helpers/actionParameters.ts';

const sim = useSimulator();

describe('transport: requests', () => {
	it('sends Authorization: Bearer <key> and JSON on every request', async () => {
		await runActionNode({ credentials: sim.credentials(), parameters: addContact() });
		await runActionNode({ credentials: sim.credentials(), parameters: getCampaign() });
		const [post, get] = sim.requests();
		expect(post.headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		expect(post.headers['content-type']).toMatch(/^application\/json/);
		// Only JSON: axios alone would also accept text/plain and anything else.
		expect([post.headers.accept, get.headers.accept]).toEqual(['application/json', 'application/json']);
		expect(get.headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		expect(get.body).toBeUndefined();
	});

	it.each(['/', '//', '/ '])('works with a base URL ending in "%s"', async (suffix) => {
		const output = await runActionNode({
			credentials: { baseUrl: `${sim.simulator.url}${suffix}`, apiKey: DEMO.apiKey },
			parameters: getCampaign(),
		});
		expect(sim.requests().map((request) => request.path)).toEqual([`/v1/campaigns/by-id/${DEMO.campaignId}`]);
		expect(output[0].json.id).toBe(DEMO.campaignId);
	});

	it('reads the credential once per execution and hands it to n8n with each request', async () => {
		const items = Array.from({ length: 250 }, (_, index) => ({
			json: { first: `Lead${index}`, phone: `+1415${String(index).padStart(7, '0')}` },
		}));
		const { context, nodeType } = executeContextFor({
			credentials: sim.credentials(),
			items,
			parameters: addContact({ firstName: '={{ $json.first }}', phoneNumber: '={{ $json.phone }}' }),
		});
		// n8n's httpRequestWithAuthentication reads through the same context when not handed the credential.
		const reads = jest.spyOn(context, 'getCredentials');
		const [output] = await nodeType.execute.call(context);
		expect(output).toHaveLength(250);
		expect(sim.requests()).toHaveLength(3);
		expect(sim.requests().every((request) => request.headers.authorization === `Bearer ${DEMO.apiKey}`)).toBe(true);
		expect(reads).toHaveBeenCalledTimes(1);
	});

	it('keeps a path prefix of the base URL', async () => {
		const server = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data: { id: 'x' } }));
		try {
			await runActionNode({ credentials: { baseUrl: `${server.url}/api/`, apiKey: DEMO.apiKey }, parameters: getContact() });
			expect(server.requests.map((request) => request.path)).toEqual([`/api/contacts/${DEMO.completedContactId}`]);
		} finally {
			await server.close();
		}
	});

	it('fails before any request on a base URL without a scheme', async () => {
		const error = await runActionNodeExpectingError({
			credentials: { baseUrl: sim.simulator.url.replace('http://', ''), apiKey: DEMO.apiKey },
			parameters: getCampaign(),
		});
		expect(error.message).toMatch(/^Get Campaign failed: The credential's Base URL "127\.0\.0\.1:\d+" is not a web address\. Enter it with its scheme/);
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('credentialBaseUrl', () => {
	const baseUrlOf = (baseUrl: unknown) =>
		credentialBaseUrl(executeContextFor({ credentials: { baseUrl, apiKey: DEMO.apiKey } as never, parameters: getCampaign() }).context);

	it('keeps http(s) addresses, dropping trailing slashes and spaces', async () => {
		await expect(baseUrlOf('https://api.example.com/')).resolves.toBe('https://api.example.com');
		await expect(baseUrlOf(' http://127.0.0.1:4010/api// ')).resolves.toBe('http://127.0.0.1:4010/api');
		await expect(baseUrlOf('HTTPS://API.example.com')).resolves.toBe('HTTPS://API.example.com');
	});

	it.each([['api.example.com'], ['localhost:4010'], ['ftp://api.example.com'], [''], [42]])('refuses %p', async (raw) => {
		await expect(baseUrlOf(raw)).rejects.toThrow(/Base URL .* is not a web address/);
	});

	it('names a Base URL that is not text as an empty one', async () => {
		await expect(baseUrlOf(undefined)).rejects.toThrow('The credential\'s Base URL "" is not a web address.');
	});
});

describe('accountFingerprint', () => {
	const fingerprintOf = async (credentials: { baseUrl: string; apiKey?: string }, salt = 'salt-1') =>
		await accountFingerprint(executeContextFor({ credentials: credentials as never, parameters: getCampaign() }).context, salt);
	const scryptOf = (text: string, salt = 'salt-1') => crypto.scryptSync(text, salt, 32, FINGERPRINT_SCRYPT).toString('base64url');

	it('is scrypt (N 2^15, r 8, p 1: 32 MiB a guess) of the canonical Base URL and the key under the salt, in base64url', async () => {
		expect(FINGERPRINT_SCRYPT).toEqual({ N: 32_768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
		await expect(fingerprintOf({ baseUrl: ' https://api.example.com// ', apiKey: DEMO.apiKey })).resolves.toBe(scryptOf(`https://api.example.com\n${DEMO.apiKey}`));
	});

	it('tells another key, another Base URL and another salt apart, and never holds the key', async () => {
		const one = await fingerprintOf({ baseUrl: 'https://api.example.com', apiKey: DEMO.apiKey });
		const others = await Promise.all([
			fingerprintOf({ baseUrl: 'https://api.example.com', apiKey: `${DEMO.apiKey}x` }),
			fingerprintOf({ baseUrl: 'https://other.example.com', apiKey: DEMO.apiKey }),
			fingerprintOf({ baseUrl: 'https://api.example.com/v2', apiKey: DEMO.apiKey }),
			fingerprintOf({ baseUrl: 'https://api.example.com', apiKey: DEMO.apiKey }, 'salt-2'),
		]);
		expect(new Set([one, ...others]).size).toBe(5);
		expect(one).not.toContain(DEMO.apiKey);
	});

	it('is the same for a Base URL written otherwise: scheme and host case, the default port, trailing slashes', async () => {
		const one = await fingerprintOf({ baseUrl: 'https://api.example.com', apiKey: DEMO.apiKey });
		for (const written of ['HTTPS://api.example.com', 'https://API.Example.com/', 'https://api.example.com:443', ' https://api.example.com:443// ']) {
			await expect(fingerprintOf({ baseUrl: written, apiKey: DEMO.apiKey })).resolves.toBe(one);
		}
		await expect(fingerprintOf({ baseUrl: 'https://api.example.com:8443', apiKey: DEMO.apiKey })).resolves.not.toBe(one);
		await expect(fingerprintOf({ baseUrl: 'http://api.example.com', apiKey: DEMO.apiKey })).resolves.not.toBe(one);
	});

	it('reads a missing key as an empty one', async () => {
		await expect(fingerprintOf({ baseUrl: 'https://api.example.com' })).resolves.toBe(scryptOf('https://api.example.com\n'));
	});

	it('computes scrypt once for a credential read again: a delivery that reads it costs no 0.1 s of scrypt', async () => {
		const scrypt = jest.spyOn(crypto, 'scrypt');
		try {
			const credentials = { baseUrl: 'https://once.example.com', apiKey: DEMO.apiKey };
			const [first, again] = [await fingerprintOf(credentials, 'salt-once'), await fingerprintOf({ ...credentials }, 'salt-once')];
			expect(again).toBe(first);
			expect(scrypt).toHaveBeenCalledTimes(1);
		} finally {
			scrypt.mockRestore();
		}
	});
});

describe('canonicalBaseUrl', () => {
	it.each([
		['HTTPS://API.example.com:443/', 'https://api.example.com'],
		['http://api.example.com:80/v1//', 'http://api.example.com/v1'],
		['https://api.example.com/V1', 'https://api.example.com/V1'],
		[' not a url/ ', 'not a url'],
	])('writes %p as %p', (raw, canonical) => {
		expect(canonicalBaseUrl(raw)).toBe(canonical);
	});
});
