/**
 * The simulator driven over real HTTP, as the nodes and the e2e harness drive it.
 */
import * as http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { DEMO, startSimulator } from './server.ts';
import type { DeliveryResult, FaultSpec, Simulator } from './server.ts';

interface Answer {
	status: number;
	headers: Headers;
	text: string;
	json: any;
}

interface CallOptions {
	token?: string | null;
	body?: unknown;
	rawBody?: string;
}

let simulator: Simulator;

beforeAll(async () => {
	simulator = await startSimulator();
});

afterAll(async () => {
	await simulator.close();
});

beforeEach(() => {
	simulator.reset();
});

async function call(method: string, path: string, { token = DEMO.apiKey, body, rawBody }: CallOptions = {}): Promise<Answer> {
	const headers: Record<string, string> = {};
	if (token !== null) headers.authorization = `Bearer ${token}`;
	const text = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
	if (text !== undefined) headers['content-type'] = 'application/json';
	const response = await fetch(`${simulator.url}${path}`, { method, headers, body: text });
	const answerText = await response.text();
	let json: unknown;
	try {
		json = JSON.parse(answerText);
	} catch {
		json = undefined;
	}
	return { status: response.status, headers: response.headers, text: answerText, json };
}

const addContactsPath = (campaignId: string): string => `/compaign/v1/contacts/addToCampaign/${campaignId}`;
const EMPTY_ERROR = { status: 'error', message: 'error', data: '' };

const CONTACT_FIELDS = [
	'id',
	'company_id',
	'firstname',
	'lastname',
	'phone_number',
	'metadata',
	'number_country_code',
	'last_call_status',
	'last_call_at',
	'last_call_duration',
	'last_call_feedback',
	'source_name',
	'tag_name',
	'category_name',
	'notes',
	'created_at',
	'updated_at',
	'campaign_id',
	'status',
	'workspace_id',
];

const CAMPAIGN_FIELDS = [
	'id',
	'name',
	'notes',
	'status',
	'campaign_type',
	'call_progress',
	'days_of_week',
	'time_zone',
	'created_at',
	'updated_at',
	'workspace',
	'contacts_list_source',
	'contacts_list_tags',
	'contacts_list_categories',
	'contacts_list_source_metadata',
	'agent_variables_contact_metadata_mapping',
	'call_time_of_day_from',
	'call_time_of_day_to',
	'number_of_call_attempts',
	'retry_delay',
	'retry_delay_unit',
	'deleted_at',
	'started_at',
	'ended_at',
	'webhook_mapping_variables',
	'webhook_mapping_variables_sources',
];

const FLOW_FIELDS = [
	'id',
	'created_by',
	'company_id',
	'workspace_id',
	'name',
	'logo',
	'retry_delay',
	'retry_delay_unit',
	'max_retries',
	'status',
	'created_at',
	'updated_at',
	'deleted_at',
	'executions',
	'steps',
	'is_template',
	'flow_direction',
	'flow_mapping',
	'predefinedVariables',
	'variables',
	'tag_name',
	'category_name',
];

describe('Get Webhooks', () => {
	it('lists the outbound flows of the default workspace with every field of the spec', async () => {
		const answer = await call('GET', '/v1/webhooks');
		expect(answer.status).toBe(200);
		expect(answer.json.status).toBe('ok');
		expect(answer.json.message).toBe('ok');
		expect(answer.json.data.map((flow: { id: string }) => flow.id)).toEqual([DEMO.outboundFlowId, DEMO.secondOutboundFlowId]);
		for (const flow of answer.json.data) expect(Object.keys(flow).sort()).toEqual([...FLOW_FIELDS].sort());
		const [step] = answer.json.data[0].steps;
		expect(step).toEqual(expect.objectContaining({ step_number: 1, webhook_method: 'POST', retry_limit: 3 }));
	});

	it('filters by workspaceId, selects inbound flows by flowDirection, and keeps companies apart', async () => {
		const staging = await call('GET', `/v1/webhooks?workspaceId=${DEMO.otherWorkspaceId}`);
		expect(staging.json.data.map((flow: { id: string }) => flow.id)).toEqual([DEMO.otherWorkspaceFlowId]);
		const inbound = await call('GET', '/v1/webhooks?flowDirection=inbound');
		expect(inbound.json.data.map((flow: { id: string }) => flow.id)).toEqual([DEMO.inboundFlowId]);
		const other = await call('GET', '/v1/webhooks', { token: DEMO.otherApiKey });
		expect(other.json.data.map((flow: { id: string }) => flow.id)).toEqual([DEMO.otherFlowId]);
		const unknownWorkspace = await call('GET', '/v1/webhooks?workspaceId=nowhere');
		expect(unknownWorkspace.json).toEqual({ status: 'ok', message: 'ok', data: [] });
	});

	it('accepts the JWT', async () => {
		const answer = await call('GET', '/v1/webhooks', { token: DEMO.jwt });
		expect(answer.json.status).toBe('ok');
	});

	it.each([
		['an unknown key', 'not-a-key'],
		['no Authorization header', null],
	])('answers HTTP 200 with the error envelope for %s', async (_case, token) => {
		const answer = await call('GET', '/v1/webhooks', { token });
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({ status: 'error', message: 'error', data: 'unauthorized' });
		expect(answer.headers.get('x-simulator-error')).toMatch(/bearer token/);
	});

	it('refuses a scheme other than Bearer', async () => {
		const response = await fetch(`${simulator.url}/v1/webhooks`, { headers: { authorization: `Basic ${DEMO.apiKey}` } });
		expect((await response.json()).status).toBe('error');
	});
});

describe('Get Contact', () => {
	it('returns the contact with every field of the spec', async () => {
		const answer = await call('GET', `/contacts/${DEMO.completedContactId}`);
		expect(answer.status).toBe(200);
		expect(answer.json.status).toBe('ok');
		expect(Object.keys(answer.json.data).sort()).toEqual([...CONTACT_FIELDS].sort());
		expect(answer.json.data).toEqual(
			expect.objectContaining({
				id: DEMO.completedContactId,
				company_id: DEMO.companyId,
				last_call_status: 'completed',
				last_call_duration: 184,
				last_call_feedback: expect.any(String),
				campaign_id: DEMO.campaignId,
			}),
		);
	});

	it('shows a never-called contact with null call fields, and accepts the JWT', async () => {
		const answer = await call('GET', `/contacts/${DEMO.neverCalledContactId}`, { token: DEMO.jwt });
		expect(answer.json.data).toEqual(
			expect.objectContaining({ last_call_status: null, last_call_at: null, last_call_duration: null, last_call_feedback: null }),
		);
		const noAnswer = await call('GET', `/contacts/${DEMO.noAnswerContactId}`);
		expect(noAnswer.json.data.last_call_status).toBe('no-answer');
	});

	it.each([
		['an unknown contact', `/contacts/c0000000-0000-4000-8000-00000000ffff`, DEMO.apiKey],
		['an id that is not a UUID', '/contacts/42', DEMO.apiKey],
		["another company's contact", `/contacts/${DEMO.otherContactId}`, DEMO.apiKey],
		['an unknown key', `/contacts/${DEMO.neverCalledContactId}`, 'wrong'],
	])('answers HTTP 200 with the empty error envelope for %s', async (_case, path, token) => {
		const answer = await call('GET', path, { token });
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual(EMPTY_ERROR);
	});

	it("lets the other company read its own contact", async () => {
		const answer = await call('GET', `/contacts/${DEMO.otherContactId}`, { token: DEMO.otherApiKey });
		expect(answer.json.data.company_id).toBe(DEMO.otherCompanyId);
	});
});

describe('Get Campaign', () => {
	it('returns the campaign with every field of the spec and its call rules', async () => {
		const answer = await call('GET', `/v1/campaigns/by-id/${DEMO.campaignId}`);
		expect(answer.status).toBe(200);
		expect(answer.json.status).toBe('ok');
		const campaign = answer.json.data;
		for (const field of CAMPAIGN_FIELDS) expect(campaign).toHaveProperty(field);
		expect(campaign).toEqual(
			expect.objectContaining({
				id: DEMO.campaignId,
				days_of_week: [1, 2, 3, 4, 5],
				time_zone: 'America/New_York',
				call_time_of_day_from: '09:30',
				call_time_of_day_to: '18:00',
				number_of_call_attempts: [3],
				retry_delay: [2, 24],
				retry_delay_unit: ['hours', 'hours'],
				contacts_list_tags: ['open-house', 'hot-lead'],
			}),
		);
	});

	it.each([
		['an id that is not a UUID', 'abc', DEMO.apiKey, 'invalid campaign id'],
		['an unknown campaign', 'ca000000-0000-4000-8000-00000000ffff', DEMO.apiKey, 'campaign not found'],
		["another company's campaign", DEMO.otherCampaignId, DEMO.apiKey, 'unauthorized'],
		['an unknown key', DEMO.campaignId, 'wrong', 'unauthorized'],
	])('answers HTTP 200 with an error string for %s', async (_case, id, token, errorString) => {
		const answer = await call('GET', `/v1/campaigns/by-id/${id}`, { token });
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({ status: 'error', message: 'error', data: errorString });
	});
});

describe('Update Campaign', () => {
	it('applies any subset of the fields and answers with the updated campaign', async () => {
		const update = {
			name: 'Renamed',
			days_of_week: [6, 7],
			contacts_list_tags: ['vip'],
			contacts_list_source_metadata: { list: 'A' },
			webhook_id: DEMO.secondOutboundFlowId,
			inbound_phone_number_id: 'b0000000-0000-4000-8000-000000000009',
		};
		const answer = await call('POST', `/v1/campaigns/update/${DEMO.campaignId}`, { body: update, token: DEMO.jwt });
		expect(answer.status).toBe(200);
		expect(answer.json.status).toBe('ok');
		expect(answer.json.data).toEqual(expect.objectContaining({ ...update, time_zone: 'America/New_York' }));
		const reread = await call('GET', `/v1/campaigns/by-id/${DEMO.campaignId}`);
		expect(reread.json.data.name).toBe('Renamed');
		expect(reread.json.data.updated_at).not.toBe('2026-01-12T16:30:00.000Z');
	});

	it.each([
		['days_of_week', ['1', '2']],
		['days_of_week', [1.5]],
		['number_of_call_attempts', 3],
		['retry_delay_unit', [1]],
		['contacts_list_source', 'website'],
		['contacts_list_source_metadata', ['a']],
		['webhook_mapping_variables', '{}'],
		['webhook_id', 'not-a-uuid'],
		['outbound_phone_number_id', null],
		['name', 5],
	])('refuses %s = %j with an error string, changing nothing', async (field, value) => {
		const answer = await call('POST', `/v1/campaigns/update/${DEMO.campaignId}`, { body: { name: 'Changed', [field]: value } });
		expect(answer.status).toBe(200);
		expect(answer.json.status).toBe('error');
		expect(answer.json.data).toMatch(new RegExp(`invalid field ${field}`));
		expect(simulator.state.campaigns.get(DEMO.campaignId)?.record.name).toBe('Spring open house follow-up');
	});

	it('refuses unknown (for example camelCase) fields and a body that is not an object', async () => {
		const camel = await call('POST', `/v1/campaigns/update/${DEMO.campaignId}`, { body: { daysOfWeek: [1] } });
		expect(camel.json).toEqual({ status: 'error', message: 'error', data: 'unknown field: daysOfWeek' });
		const list = await call('POST', `/v1/campaigns/update/${DEMO.campaignId}`, { body: [] });
		expect(list.json.data).toBe('body must be a JSON object');
	});

	it("refuses unknown and other companies' campaigns", async () => {
		const unknown = await call('POST', '/v1/campaigns/update/ca000000-0000-4000-8000-00000000ffff', { body: { name: 'x' } });
		expect(unknown.json).toEqual({ status: 'error', message: 'error', data: 'campaign not found' });
		const other = await call('POST', `/v1/campaigns/update/${DEMO.otherCampaignId}`, { body: { name: 'x' } });
		expect(other.json).toEqual({ status: 'error', message: 'error', data: 'unauthorized' });
		expect(simulator.state.campaigns.get(DEMO.otherCampaignId)?.record.name).toBe('Harbor policy check-ins');
	});
});

describe('Add Contacts', () => {
	it('stores the contacts in the campaign and answers with them', async () => {
		const answer = await call('POST', addContactsPath(DEMO.secondCampaignId), {
			body: [
				{ firstname: 'Marie', lastname: 'Curie', phone_number: '+33 1 42 68 53 00', metadata: { email: 'marie@example.com', nested: { a: [1] } } },
				{ firstname: 'Pierre', lastname: 'Curie', phone_number: '(415) 555-0123' },
			],
		});
		expect(answer.status).toBe(200);
		expect(answer.json.status).toBe('ok');
		expect(answer.json.data).toHaveLength(2);
		const [marie, pierre] = answer.json.data;
		expect(Object.keys(marie).sort()).toEqual([...CONTACT_FIELDS].sort());
		expect(marie).toEqual(
			expect.objectContaining({
				company_id: DEMO.companyId,
				campaign_id: DEMO.secondCampaignId,
				phone_number: '+33142685300',
				number_country_code: '+33',
				metadata: { email: 'marie@example.com', nested: { a: [1] } },
				last_call_status: null,
				status: 'active',
				workspace_id: 'default',
			}),
		);
		expect(pierre).toEqual(expect.objectContaining({ phone_number: '+14155550123', number_country_code: '+1', metadata: null }));
		const stored = await call('GET', `/contacts/${pierre.id}`);
		expect(stored.json.data).toEqual(pierre);
	});

	it.each([
		['+1 (415) 555-0100', '+14155550100', '+1'],
		['415.555.0100', '+14155550100', '+1'],
		['0044 20 7946 0958', '+442079460958', '+44'],
		['+49 30 901820', '+4930901820', '+49'],
		['+61-2-9123-4567', '+61291234567', '+61'],
		['+91 98765 43210', '+919876543210', '+91'],
		['+33 6 12 34 56 78', '+33612345678', '+33'],
		['+7 495 123-45-67', '+74951234567', '+7'],
		['+353 1 234 5678', '+35312345678', '+353'],
		['447911123456', '+447911123456', '+44'],
	])('stores %s as %s (country code %s)', async (input, e164, countryCode) => {
		const answer = await call('POST', addContactsPath(DEMO.campaignId), {
			body: [{ firstname: 'A', lastname: 'B', phone_number: input }],
		});
		expect(answer.json.data[0]).toEqual(expect.objectContaining({ phone_number: e164, number_country_code: countryCode }));
	});

	it.each([
		['a phone number with letters', [{ firstname: 'A', lastname: 'B', phone_number: '555-CALL-NOW' }]],
		['a phone number too short', [{ firstname: 'A', lastname: 'B', phone_number: '12345' }]],
		['a phone number too long', [{ firstname: 'A', lastname: 'B', phone_number: '+1234567890123456' }]],
		['a phone number that is a number', [{ firstname: 'A', lastname: 'B', phone_number: 4155550100 }]],
		['a missing firstname', [{ lastname: 'B', phone_number: '+14155550100' }]],
		['an empty lastname', [{ firstname: 'A', lastname: ' ', phone_number: '+14155550100' }]],
		['camelCase names', [{ firstName: 'A', lastName: 'B', phoneNumber: '+14155550100' }]],
		['metadata that is an array', [{ firstname: 'A', lastname: 'B', phone_number: '+14155550100', metadata: [1] }]],
		['metadata that is a string', [{ firstname: 'A', lastname: 'B', phone_number: '+14155550100', metadata: '{}' }]],
		['a body that is an object', { firstname: 'A', lastname: 'B', phone_number: '+14155550100' }],
		['an empty array', []],
		['an element that is not an object', ['A B +14155550100']],
	])('answers the empty error envelope for %s and stores nothing', async (_case, body) => {
		const before = simulator.state.contacts.size;
		const answer = await call('POST', addContactsPath(DEMO.campaignId), { body });
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual(EMPTY_ERROR);
		expect(simulator.state.contacts.size).toBe(before);
	});

	it('is all or nothing: one bad contact rejects the whole batch', async () => {
		const before = simulator.state.contacts.size;
		const body = [
			{ firstname: 'Good', lastname: 'One', phone_number: '+14155550100' },
			{ firstname: 'Good', lastname: 'Two', phone_number: '+14155550101' },
			{ firstname: 'Bad', lastname: 'Three', phone_number: 'call me' },
		];
		const answer = await call('POST', addContactsPath(DEMO.campaignId), { body });
		expect(answer.json).toEqual(EMPTY_ERROR);
		expect(answer.headers.get('x-simulator-error')).toMatch(/contact 2/);
		expect(simulator.state.contacts.size).toBe(before);
	});

	it.each([
		['the JWT (a user API key is required)', DEMO.campaignId, DEMO.jwt],
		['an unknown key', DEMO.campaignId, 'wrong'],
		["another company's campaign", DEMO.otherCampaignId, DEMO.apiKey],
		['an unknown campaign', 'ca000000-0000-4000-8000-00000000ffff', DEMO.apiKey],
		['a campaign id that is not a UUID', 'spring', DEMO.apiKey],
	])('answers the empty error envelope for %s', async (_case, campaignId, token) => {
		const answer = await call('POST', addContactsPath(campaignId), {
			token,
			body: [{ firstname: 'A', lastname: 'B', phone_number: '+14155550100' }],
		});
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual(EMPTY_ERROR);
	});

	it('answers HTTP 400 to a malformed JSON body', async () => {
		const answer = await call('POST', addContactsPath(DEMO.campaignId), { rawBody: '[{"firstname": "A",' });
		expect(answer.status).toBe(400);
		expect(answer.json).toEqual({ status: 'error', message: 'malformed JSON body' });
		expect(simulator.requests.at(-1)?.body).toBe('[{"firstname": "A",');
	});

	it('takes 100 batches of 100 contacts quickly', async () => {
		const batch = Array.from({ length: 100 }, (_, index) => ({
			firstname: `First${index}`,
			lastname: 'Load',
			phone_number: `+1415555${String(index).padStart(4, '0')}`,
			metadata: { index },
		}));
		for (let round = 0; round < 100; round++) {
			const answer = await call('POST', addContactsPath(DEMO.secondCampaignId), { body: batch });
			expect(answer.json.data).toHaveLength(100);
		}
		const inCampaign = [...simulator.state.contacts.values()].filter((contact) => contact.campaign_id === DEMO.secondCampaignId);
		expect(inCampaign).toHaveLength(10_000);
	});
});

describe('module endpoints', () => {
	it('creates an integration, filling the settings the body left out', async () => {
		const answer = await call('POST', '/v1/modules/integration', {
			body: { type: 'hubspot', settings: { url: 'https://hooks.example.com/x', headers: { 'X-Key': 'k' } } },
		});
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			type: 'hubspot',
			status: 'active',
			settings: { webhook_method: 'POST', url: 'https://hooks.example.com/x', headers: { 'X-Key': 'k' }, timeout: 30, retry_limit: 3 },
		});
		expect(simulator.state.integrationModules.get(answer.json.id)?.companyId).toBe(DEMO.companyId);
	});

	it('creates a webhook module with the settings given', async () => {
		const settings = { method: 'put', url: 'http://127.0.0.1:9/hook', headers: {}, timeout: 5, retry_limit: 0 };
		const answer = await call('POST', '/v1/modules/webhook', { body: { event_type: 'call.ended', settings }, token: DEMO.jwt });
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({
			id: expect.any(String),
			event_type: 'call.ended',
			status: 'active',
			settings: { ...settings, method: 'PUT' },
		});
	});

	it.each([
		['/v1/modules/integration', { type: 'myspace', settings: { url: 'https://x.example.com' } }, /type is required/],
		['/v1/modules/integration', { type: 'slack' }, /settings is required/],
		['/v1/modules/integration', { type: 'slack', settings: { method: 'POST', url: 'https://x.example.com' } }, /unknown field: method/],
		['/v1/modules/integration', { type: 'slack', settings: { url: 'ftp://x.example.com' } }, /settings.url/],
		['/v1/modules/webhook', { event_type: 'call.start', settings: { url: 'https://x.example.com' } }, /event_type is required/],
		['/v1/modules/webhook', { event_type: 'call.ended', settings: { webhook_method: 'POST', url: 'https://x.example.com' } }, /unknown field/],
		['/v1/modules/webhook', { event_type: 'call.ended', settings: { method: 'TRACE', url: 'https://x.example.com' } }, /settings.method/],
		['/v1/modules/webhook', { event_type: 'call.ended', settings: { url: 'https://x.example.com', timeout: '5' } }, /timeout/],
		['/v1/modules/webhook', { event_type: 'call.ended', settings: { url: 'https://x.example.com', retry_limit: -1 } }, /retry_limit/],
		['/v1/modules/webhook', { event_type: 'call.ended', settings: { url: 'https://x.example.com', headers: { a: 1 } } }, /headers/],
		['/v1/modules/webhook', { eventType: 'call.ended', settings: { url: 'https://x.example.com' } }, /unknown field: eventType/],
	])('answers HTTP 400 to an invalid body on %s (%j)', async (path, body, message) => {
		const answer = await call('POST', path, { body });
		expect(answer.status).toBe(400);
		expect(answer.json.status).toBe('error');
		expect(answer.json.message).toMatch(message);
		expect(simulator.state.integrationModules.size + simulator.state.webhookModules.size).toBe(0);
	});

	it.each(['/v1/modules/integration', '/v1/modules/webhook'])('answers HTTP 401 on %s to an unknown key', async (path) => {
		const answer = await call('POST', path, { token: 'wrong', body: {} });
		expect(answer.status).toBe(401);
		expect(answer.json).toEqual({ status: 'error', message: 'unauthorized' });
	});
});

describe('routing', () => {
	it('answers 404 JSON to unknown routes and to known paths with the wrong method', async () => {
		for (const [method, path] of [
			['GET', '/v2/webhooks'],
			['DELETE', `/contacts/${DEMO.neverCalledContactId}`],
			['GET', '/campaign/v1/contacts/addToCampaign/x'],
			['GET', '/v1/webhooks/'],
		]) {
			const answer = await call(method, path);
			expect(answer.status).toBe(404);
			expect(answer.json).toEqual({ status: 'error', message: 'not found' });
		}
	});

	it('records every API request with method, path, query, headers and body', async () => {
		await call('GET', '/v1/webhooks?workspaceId=staging');
		await call('POST', '/v1/campaigns/update/' + DEMO.campaignId, { body: { name: 'R' } });
		expect(simulator.requests).toHaveLength(2);
		expect(simulator.requests[0]).toEqual(
			expect.objectContaining({ method: 'GET', path: '/v1/webhooks', query: { workspaceId: 'staging' }, body: undefined }),
		);
		expect(simulator.requests[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		expect(simulator.requests[1].body).toEqual({ name: 'R' });
		expect(simulator.requests[1].receivedAt).toBeGreaterThan(0);
	});
});

describe('fault injection', () => {
	it.each([
		['http-500', 500],
		['http-502', 502],
		['http-503', 503],
		['http-401', 401],
		['http-403', 403],
	] as const)('%s answers HTTP %i once, then the service works again', async (kind, status) => {
		simulator.injectFault({ kind });
		const faulty = await call('GET', '/v1/webhooks');
		expect(faulty.status).toBe(status);
		expect(faulty.json.status).toBe('error');
		const healthy = await call('GET', '/v1/webhooks');
		expect(healthy.json.status).toBe('ok');
		expect(simulator.requests).toHaveLength(2);
	});

	it('http-429 sends Retry-After only when asked', async () => {
		simulator.injectFault({ kind: 'http-429', retryAfterSeconds: 7 });
		simulator.injectFault({ kind: 'http-429' });
		const first = await call('GET', '/v1/webhooks');
		expect(first.status).toBe(429);
		expect(first.headers.get('retry-after')).toBe('7');
		const second = await call('GET', '/v1/webhooks');
		expect(second.status).toBe(429);
		expect(second.headers.get('retry-after')).toBeNull();
	});

	it('slow waits delayMs, then answers normally', async () => {
		simulator.injectFault({ kind: 'slow', delayMs: 300 });
		const started = Date.now();
		const answer = await call('GET', '/v1/webhooks');
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
		expect(answer.json.status).toBe('ok');
	});

	it('reset drops the connection without an answer, and the request is still recorded', async () => {
		simulator.injectFault({ kind: 'reset' });
		await expect(call('GET', '/v1/webhooks')).rejects.toThrow();
		expect(simulator.requests.map((request) => request.path)).toEqual(['/v1/webhooks']);
	});

	it('malformed-json answers 200 with a truncated JSON body', async () => {
		simulator.injectFault({ kind: 'malformed-json' });
		const answer = await call('GET', '/v1/webhooks');
		expect(answer.status).toBe(200);
		expect(answer.headers.get('content-type')).toMatch(/application\/json/);
		expect(() => JSON.parse(answer.text)).toThrow();
	});

	it('html answers 502 with an HTML page', async () => {
		simulator.injectFault({ kind: 'html' });
		const answer = await call('GET', '/v1/webhooks');
		expect(answer.status).toBe(502);
		expect(answer.headers.get('content-type')).toMatch(/text\/html/);
		expect(answer.text).toMatch(/<html>/);
	});

	it('empty answers 200 with no body', async () => {
		simulator.injectFault({ kind: 'empty' });
		const answer = await call('GET', '/v1/webhooks');
		expect(answer.status).toBe(200);
		expect(answer.text).toBe('');
	});

	it('error-envelope and not-envelope answer 200 JSON', async () => {
		simulator.injectFault({ kind: 'error-envelope' });
		simulator.injectFault({ kind: 'not-envelope' });
		expect((await call('GET', '/v1/webhooks')).json).toEqual(EMPTY_ERROR);
		expect((await call('GET', '/v1/webhooks')).json).toEqual({ unexpected: true });
	});

	it('null-data and list-data answer an ok envelope whose data is null, or a list of two', async () => {
		simulator.injectFault({ kind: 'null-data' });
		simulator.injectFault({ kind: 'list-data' });
		expect((await call('GET', `/v1/campaigns/by-id/${DEMO.campaignId}`)).json).toEqual({ status: 'ok', message: 'ok', data: null });
		expect((await call('GET', `/v1/campaigns/by-id/${DEMO.campaignId}`)).json).toEqual({ status: 'ok', message: 'ok', data: [{ id: 'first' }, { id: 'second' }] });
	});

	it('redirect answers 302 with its location', async () => {
		simulator.injectFault({ kind: 'redirect', location: 'http://127.0.0.1:9/elsewhere' });
		const response = await fetch(`${simulator.url}/v1/webhooks`, { headers: { authorization: `Bearer ${DEMO.apiKey}` }, redirect: 'manual' });
		expect([response.status, response.headers.get('location')]).toEqual([302, 'http://127.0.0.1:9/elsewhere']);
	});

	it('matches by method and path substring, counts times, and is consumed in order', async () => {
		simulator.injectFault({ kind: 'http-503', method: 'post', path: '/addToCampaign/', times: 2 });
		simulator.injectFault({ kind: 'http-500', path: '/contacts/' });
		const body = [{ firstname: 'A', lastname: 'B', phone_number: '+14155550100' }];
		expect((await call('GET', '/v1/webhooks')).status).toBe(200);
		expect((await call('POST', addContactsPath(DEMO.campaignId), { body })).status).toBe(503);
		// '/compaign/v1/contacts/addToCampaign/' also contains '/contacts/', but the earlier fault comes first.
		expect((await call('POST', addContactsPath(DEMO.campaignId), { body })).status).toBe(503);
		expect((await call('POST', addContactsPath(DEMO.campaignId), { body })).status).toBe(500);
		expect((await call('POST', addContactsPath(DEMO.campaignId), { body })).json.status).toBe('ok');
		expect(simulator.requests).toHaveLength(5);
	});

	it('after lets that many matching requests through before the fault answers', async () => {
		simulator.injectFault({ kind: 'http-500', path: '/v1/modules/webhook', after: 1 });
		const body = { event_type: 'call.ended', settings: { method: 'POST', url: 'http://127.0.0.1:9/hook' } };
		expect((await call('GET', '/v1/webhooks')).status).toBe(200);
		expect((await call('POST', '/v1/modules/webhook', { body })).status).toBe(200);
		expect((await call('POST', '/v1/modules/webhook', { body })).status).toBe(500);
		expect((await call('POST', '/v1/modules/webhook', { body })).status).toBe(200);
		expect(simulator.state.webhookModules.size).toBe(2);
	});

	it('clearFaults removes pending faults, and reset does too', async () => {
		simulator.injectFault({ kind: 'http-500', times: 5 });
		simulator.clearFaults();
		expect((await call('GET', '/v1/webhooks')).status).toBe(200);
		simulator.injectFault({ kind: 'http-500' });
		simulator.reset();
		expect((await call('GET', '/v1/webhooks')).status).toBe(200);
	});

	it('refuses an unknown fault kind', () => {
		expect(() => simulator.injectFault({ kind: 'http-418' } as unknown as FaultSpec)).toThrow(/fault kind/);
	});
});

interface Hit {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
}

interface Receiver {
	url: string;
	hits: Hit[];
	close(): Promise<void>;
}

/** A local endpoint for deliveries; `statusFor` picks each answer's status, or 'hang' for none. */
async function startReceiver(statusFor: (hitNumber: number) => number | 'hang' = () => 200): Promise<Receiver> {
	const hits: Hit[] = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		request.on('end', () => {
			hits.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
			const status = statusFor(hits.length);
			if (status !== 'hang') response.writeHead(status).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		hits,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

async function registerWebhook(eventType: string, settings: Record<string, unknown>, token: string = DEMO.apiKey): Promise<string> {
	const answer = await call('POST', '/v1/modules/webhook', { token, body: { event_type: eventType, settings } });
	expect(answer.status).toBe(200);
	return answer.json.id;
}

describe('event delivery', () => {
	let receiver: Receiver | undefined;

	afterEach(async () => {
		await receiver?.close();
		receiver = undefined;
	});

	it('sends the event with the module method and headers, and a JSON body with the payload merged in', async () => {
		receiver = await startReceiver();
		const moduleId = await registerWebhook('call.ended', {
			method: 'PUT',
			url: `${receiver.url}/hook/ended?x=1`,
			headers: { 'X-Webhook-Secret': 's3cret', 'X-Other': 'yes' },
			timeout: 5,
			retry_limit: 0,
		});
		await registerWebhook('call.started', { url: `${receiver.url}/hook/started` });

		const results = await simulator.deliverEvent('call.ended', { data: { duration: 99 }, extra: 'field' });
		expect(results).toEqual([{ moduleId, url: `${receiver.url}/hook/ended?x=1`, attempts: 1, status: 200, ok: true }]);
		expect(receiver.hits).toHaveLength(1);
		const [hit] = receiver.hits;
		expect(hit.method).toBe('PUT');
		expect(hit.path).toBe('/hook/ended?x=1');
		expect(hit.headers['x-webhook-secret']).toBe('s3cret');
		expect(hit.headers['x-other']).toBe('yes');
		expect(hit.headers['content-type']).toBe('application/json');
		const body = JSON.parse(hit.body);
		expect(body).toEqual(
			expect.objectContaining({
				event_type: 'call.ended',
				event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
				occurred_at: expect.any(String),
				company_id: DEMO.companyId,
				extra: 'field',
			}),
		);
		expect(body.data).toEqual(
			expect.objectContaining({ campaign_id: DEMO.campaignId, contact_id: expect.any(String), status: 'completed', duration: 99 }),
		);
	});

	it('retries a failing endpoint up to retry_limit more times, keeping the event id', async () => {
		receiver = await startReceiver((hitNumber) => (hitNumber < 3 ? 500 : 204));
		await registerWebhook('campaign.paused', { url: `${receiver.url}/h`, retry_limit: 3 });
		const [result] = await simulator.deliverEvent('campaign.paused');
		expect(result).toEqual(expect.objectContaining({ attempts: 3, status: 204, ok: true }));
		const eventIds = receiver.hits.map((hit) => JSON.parse(hit.body).event_id);
		expect(new Set(eventIds).size).toBe(1);
	});

	it('gives up after retry_limit retries and reports the last status', async () => {
		receiver = await startReceiver(() => 503);
		await registerWebhook('call.failed', { url: `${receiver.url}/h`, retry_limit: 1 });
		const [result] = await simulator.deliverEvent('call.failed');
		expect(result).toEqual(expect.objectContaining({ attempts: 2, status: 503, ok: false, error: 'HTTP 503' }));
		expect(receiver.hits).toHaveLength(2);
	});

	it('times an attempt out after settings.timeout seconds', async () => {
		receiver = await startReceiver(() => 'hang');
		await registerWebhook('call.voicemail_detected', { url: `${receiver.url}/h`, timeout: 1, retry_limit: 0 });
		const started = Date.now();
		const [result] = await simulator.deliverEvent('call.voicemail_detected');
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		expect(result).toEqual(expect.objectContaining({ attempts: 1, ok: false, error: expect.stringMatching(/timed out/) }));
	});

	it('reports a network error when nothing listens', async () => {
		receiver = await startReceiver();
		const deadUrl = `${receiver.url}/h`;
		await receiver.close();
		receiver = undefined;
		await registerWebhook('campaign.started', { url: deadUrl, retry_limit: 0 });
		const [result] = await simulator.deliverEvent('campaign.started');
		expect(result.ok).toBe(false);
		expect(result.status).toBeUndefined();
		expect(result.error).toMatch(/ECONNREFUSED/);
	});

	it('skips paused modules, delivers to every company, and refuses non-loopback hosts', async () => {
		receiver = await startReceiver();
		const paused = await registerWebhook('campaign.completed', { url: `${receiver.url}/paused` });
		await registerWebhook('campaign.completed', { url: `${receiver.url}/other` }, DEMO.otherApiKey);
		const remote = await registerWebhook('campaign.completed', { url: 'http://example.com/hook' });
		const pausedModule = simulator.state.webhookModules.get(paused);
		if (pausedModule === undefined) throw new Error('module not stored');
		pausedModule.record.status = 'paused';

		const results = await simulator.deliverEvent('campaign.completed');
		expect(receiver.hits.map((hit) => hit.path)).toEqual(['/other']);
		expect(JSON.parse(receiver.hits[0].body).data.campaign_id).toBe(DEMO.otherCampaignId);
		expect(results.find((result) => result.moduleId === remote)).toEqual(
			expect.objectContaining({ attempts: 0, ok: false, error: expect.stringMatching(/loopback/) }),
		);
	});

	it('sends no body with GET', async () => {
		receiver = await startReceiver();
		await registerWebhook('conversation.transcript', { method: 'GET', url: `${receiver.url}/h` });
		await simulator.deliverEvent('conversation.transcript');
		expect(receiver.hits[0]).toEqual(expect.objectContaining({ method: 'GET', body: '' }));
	});

	it('refuses an unknown event type', async () => {
		await expect(simulator.deliverEvent('call.exploded')).rejects.toThrow(/unknown event type/);
	});

	it("playCall completes the contact's call and sends call.started then call.ended to its company only", async () => {
		receiver = await startReceiver();
		await registerWebhook('call.started', { url: `${receiver.url}/started` });
		await registerWebhook('call.ended', { url: `${receiver.url}/ended` });
		await registerWebhook('call.ended', { url: `${receiver.url}/other-company` }, DEMO.otherApiKey);

		const result = await simulator.playCall({ campaignId: DEMO.campaignId });
		expect(result.contact.id).toBe(DEMO.neverCalledContactId);
		expect(result.started).toEqual([expect.objectContaining({ ok: true })]);
		expect(result.ended).toEqual([expect.objectContaining({ ok: true })]);
		expect(receiver.hits.map((hit) => hit.path)).toEqual(['/started', '/ended']);
		const [started, ended] = receiver.hits.map((hit) => JSON.parse(hit.body));
		expect(started.data).toEqual(expect.objectContaining({ contact_id: DEMO.neverCalledContactId, campaign_id: DEMO.campaignId }));
		expect(ended.data.call_id).toBe(started.data.call_id);
		expect(ended.data).toEqual(expect.objectContaining({ status: 'completed', duration: expect.any(Number) }));

		const contact = await call('GET', `/contacts/${DEMO.neverCalledContactId}`);
		expect(contact.json.data).toEqual(
			expect.objectContaining({
				last_call_status: 'completed',
				last_call_at: expect.any(String),
				last_call_duration: ended.data.duration,
				last_call_feedback: ended.data.feedback,
			}),
		);
	});
});

describe('control routes', () => {
	const control = (method: string, path: string, body?: unknown) => call(method, `/__sim${path}`, { token: null, body });

	it('health, requests (filtered and cleared) and reset', async () => {
		expect((await control('GET', '/health')).json).toEqual({ status: 'ok', url: simulator.url });
		await call('GET', '/v1/webhooks');
		await call('GET', `/contacts/${DEMO.neverCalledContactId}`);
		expect((await control('GET', '/requests')).json).toHaveLength(2);
		const filtered = (await control('GET', '/requests?path=/contacts/')).json;
		expect(filtered.map((request: { path: string }) => request.path)).toEqual([`/contacts/${DEMO.neverCalledContactId}`]);
		expect((await control('DELETE', '/requests')).json).toEqual({ status: 'ok', cleared: 2 });
		expect(simulator.requests).toHaveLength(0);

		await call('POST', `/v1/campaigns/update/${DEMO.campaignId}`, { body: { name: 'Changed' } });
		await control('POST', '/reset');
		expect(simulator.state.campaigns.get(DEMO.campaignId)?.record.name).toBe('Spring open house follow-up');
		expect(simulator.requests).toHaveLength(0);
	});

	it('injects faults (one or a list), lists and clears them, and refuses bad ones whole', async () => {
		const added = await control('POST', '/faults', [{ kind: 'http-500', path: '/v1/webhooks' }, { kind: 'empty', times: 2 }]);
		expect(added.json.faults).toHaveLength(2);
		expect((await call('GET', '/v1/webhooks')).status).toBe(500);
		expect((await control('GET', '/faults')).json).toEqual([{ kind: 'empty', times: 2, remaining: 2 }]);
		expect((await control('DELETE', '/faults')).status).toBe(200);
		expect((await call('GET', '/v1/webhooks')).json.status).toBe('ok');

		const refused = await control('POST', '/faults', [{ kind: 'http-500' }, { kind: 'meltdown' }]);
		expect(refused.status).toBe(400);
		expect((await control('GET', '/faults')).json).toEqual([]);
		expect((await control('POST', '/faults', { kind: 'slow', delayMs: 'long' })).status).toBe(400);
	});

	it('lists modules with their company and contacts by campaign', async () => {
		await call('POST', '/v1/modules/integration', { body: { type: 'slack', settings: { url: 'https://hooks.example.com' } } });
		await registerWebhook('call.ended', { url: 'http://127.0.0.1:9/h' }, DEMO.otherApiKey);
		const modules = (await control('GET', '/modules')).json;
		expect(modules.integrations).toEqual([expect.objectContaining({ type: 'slack', company_id: DEMO.companyId })]);
		expect(modules.webhooks).toEqual([expect.objectContaining({ event_type: 'call.ended', company_id: DEMO.otherCompanyId })]);

		const contacts = (await control('GET', `/contacts?campaignId=${DEMO.campaignId}`)).json;
		expect(contacts.map((contact: { id: string }) => contact.id)).toEqual([
			DEMO.neverCalledContactId,
			DEMO.completedContactId,
			DEMO.noAnswerContactId,
		]);
		expect((await control('GET', '/contacts')).json).toHaveLength(simulator.state.contacts.size);
	});

	it('delivers events and plays calls', async () => {
		const receiver = await startReceiver();
		try {
			await registerWebhook('call.started', { url: `${receiver.url}/started` });
			await registerWebhook('call.ended', { url: `${receiver.url}/ended` });
			const delivered = await control('POST', '/deliver', { event_type: 'call.started', payload: { data: { note: 'hi' } } });
			expect(delivered.json).toEqual([expect.objectContaining({ ok: true, attempts: 1 })]);
			expect(JSON.parse(receiver.hits[0].body).data.note).toBe('hi');

			const played = await control('POST', '/play-call', { contact_id: DEMO.noAnswerContactId });
			expect(played.json.contact).toEqual(expect.objectContaining({ id: DEMO.noAnswerContactId, last_call_status: 'completed' }));
			expect((played.json.started as DeliveryResult[]).concat(played.json.ended).every((result) => result.ok)).toBe(true);
			expect(receiver.hits.map((hit) => hit.path)).toEqual(['/started', '/started', '/ended']);

			expect((await control('POST', '/deliver', { event_type: 'nope' })).status).toBe(400);
			expect((await control('POST', '/play-call', { contact_id: 'c0000000-0000-4000-8000-00000000ffff' })).status).toBe(404);
		} finally {
			await receiver.close();
		}
	});

	it('are not recorded, need no key, are not hit by faults, and answer 404 when unknown', async () => {
		simulator.injectFault({ kind: 'reset' });
		expect((await control('GET', '/health')).status).toBe(200);
		expect((await control('GET', '/nothing')).status).toBe(404);
		expect(simulator.requests).toHaveLength(0);
		// The fault is still pending: the first API request meets it.
		await expect(call('GET', '/v1/webhooks')).rejects.toThrow();
		expect(simulator.requests).toHaveLength(1);
	});
});

describe('startSimulator options', () => {
	it('records no bodies when recordBodies is false, and closes with a connection still open', async () => {
		const quiet = await startSimulator({ recordBodies: false });
		try {
			const response = await fetch(`${quiet.url}/v1/campaigns/update/${DEMO.campaignId}`, {
				method: 'POST',
				headers: { authorization: `Bearer ${DEMO.apiKey}`, 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'Quiet' }),
			});
			expect((await response.json()).data.name).toBe('Quiet');
			expect(quiet.requests).toHaveLength(1);
			expect(quiet.requests[0].body).toBeUndefined();
			// Another simulator's state is its own.
			expect(simulator.state.campaigns.get(DEMO.campaignId)?.record.name).toBe('Spring open house follow-up');
		} finally {
			const started = Date.now();
			await quiet.close();
			expect(Date.now() - started).toBeLessThan(1000);
		}
	});
});
