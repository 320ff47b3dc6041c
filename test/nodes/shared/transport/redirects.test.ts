/**
 * The node's requests follow no redirect, as the credential's Test does not (its case is in
 * test/credentials): n8n would send the Authorization header along to any host. A redirect fails
 * with the operation, the status and the target's origin; the other host receives nothing.
 */
import { runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import { NO_RETRIES, sendJson, startScriptedServer, type ScriptedServer } from '../../../helpers/kit.ts';
import { addContact, getCampaign } from '../../../helpers/actionParameters.ts';

const key = 'sk-live-REDIRECT-0123456789';

describe('transport: a redirect is not followed', () => {
	let elsewhere: ScriptedServer;
	let redirecting: ScriptedServer & { status: number; location: (path: string) => string };

	beforeEach(async () => {
		elsewhere = await startScriptedServer((_request, response) => sendJson(response, 200, { status: 'ok', message: 'ok', data: { id: 'elsewhere' } }));
		const server = await startScriptedServer((request, response) => {
			response.writeHead(redirecting.status, { location: redirecting.location(request.path) });
			response.end();
		});
		redirecting = Object.assign(server, { status: 302, location: (path: string) => `${elsewhere.url}${path}?token=${key}` });
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
		const error = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: key }, parameters: { ...parameters, requestOptions: { maxRetries: 3 } } });
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe(message.replace('%s', elsewhere.url));
		expect(error.description).toBe(
			'A followed redirect would carry the API key to another address. Enter the address the service answers at as the Base URL of the Campaign Calling credential.',
		);
		expect((error as { httpCode?: string }).httpCode).toBe(String(status));
		expect(error.context?.itemIndex).toBe(0);
		expect(redirecting.requests).toHaveLength(1);
		expect(elsewhere.requests).toHaveLength(0);
		expect(JSON.stringify(error)).not.toContain(key);
	});

	it('names the Base URL\'s own origin for a relative Location, "no address" for none, and says so of one that is no address', async () => {
		redirecting.location = (path) => `/moved${path}`;
		const relative = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: key }, parameters: getCampaign({ requestOptions: NO_RETRIES }) });
		expect(relative.message).toBe(`Get Campaign failed: the service answered HTTP 302 Found, a redirect to ${redirecting.url}, which the node does not follow`);
		redirecting.location = () => '';
		const none = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: key }, parameters: getCampaign({ requestOptions: NO_RETRIES }) });
		expect(none.message).toBe('Get Campaign failed: the service answered HTTP 302 Found, a redirect to no address, which the node does not follow');
		redirecting.location = () => 'http://[not an address';
		const invalid = await runActionNodeExpectingError({ credentials: { baseUrl: redirecting.url, apiKey: key }, parameters: getCampaign({ requestOptions: NO_RETRIES }) });
		expect(invalid.message).toBe('Get Campaign failed: the service answered HTTP 302 Found, a redirect to an address that is not valid, which the node does not follow');
		expect(redirecting.requests).toHaveLength(3);
	});
});
