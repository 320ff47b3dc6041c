/**
 * n8n 2.x's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refusing the service's address, through
 * n8n-core's real HTTP stack: the message names it and the settings an administrator would change,
 * and nothing is sent. Its own file: n8n reads the setting once, when its HTTP stack is first used.
 */
import { runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import { useSimulator } from '../../../helpers/kit.ts';
import { addContact, getCampaign } from '../../../helpers/actionParameters.ts';

const sim = useSimulator();
const settings = ['N8N_SSRF_PROTECTION_ENABLED', 'N8N_SSRF_BLOCKED_HOSTNAMES'] as const;
const before = settings.map((name) => process.env[name]);

beforeAll(() => {
	process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
	process.env.N8N_SSRF_BLOCKED_HOSTNAMES = 'blocked.campaign-calling.test';
});
afterAll(() => {
	settings.forEach((name, index) => {
		if (before[index] === undefined) delete process.env[name];
		else process.env[name] = before[index];
	});
});

describe('transport: n8n\'s SSRF protection', () => {
	it('a Base URL in a blocked range: named, with the settings to change, nothing sent, a write not repeated', async () => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: addContact({ requestOptions: { maxRetries: 3 } }) });
		expect(error.message).toBe(
			`Add to Campaign failed: n8n's SSRF protection blocked the request to ${sim.simulator.url} (it resolves to 127.0.0.1, an address in n8n's blocked ranges)`,
		);
		expect(error.description).toBe(
			'Nothing was sent to the service. An n8n administrator can allow this address with N8N_SSRF_ALLOWED_IP_RANGES (for example 127.0.0.1/32), or a host name for it with N8N_SSRF_ALLOWED_HOSTNAMES. Otherwise use the service\'s public address as the Base URL.',
		);
		expect(sim.requests()).toHaveLength(0);
	});

	it('a blocked host name', async () => {
		const error = await runActionNodeExpectingError({
			credentials: { baseUrl: 'http://blocked.campaign-calling.test', apiKey: 'key-0123456789' },
			parameters: getCampaign({ requestOptions: { maxRetries: 0 } }),
		});
		expect(error.message).toBe(
			'Get Campaign failed: n8n\'s SSRF protection blocked the request to http://blocked.campaign-calling.test (the host name blocked.campaign-calling.test is on n8n\'s list of blocked host names)',
		);
		expect(error.description).toBe(
			'Nothing was sent to the service. An n8n administrator can allow this host with N8N_SSRF_ALLOWED_HOSTNAMES (for example blocked.campaign-calling.test), or its addresses with N8N_SSRF_ALLOWED_IP_RANGES. Otherwise use the service\'s public address as the Base URL.',
		);
	});
});
