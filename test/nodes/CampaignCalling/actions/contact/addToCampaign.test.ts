import { runActionNode, runActionNodeExpectingError, triesOf } from '../../../../helpers/n8nContext.ts';
import { addContact, addMappedLeads, leadFields } from '../../../../helpers/actionParameters.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { describeBadInputs, itemsWith, UUID_MESSAGE } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();
const addPath = (id: string) => `/compaign/v1/contacts/addToCampaign/${id}`;

function leads(count: number) {
	return leadFields(count).map((json) => ({ json }));
}

const fieldsMode = addMappedLeads();

describe('Contact → Add to Campaign, fields mode', () => {
	it('sends 250 mapped items in ceil(250 / 100) = 3 requests, one output item per input item', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: leads(250), parameters: fieldsMode });
		const posts = sim.requests('/compaign/');
		expect(posts).toHaveLength(3);
		expect(posts.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
		expect(posts.map((request) => request.path)).toEqual([addPath(DEMO.campaignId), addPath(DEMO.campaignId), addPath(DEMO.campaignId)]);
		expect(posts.map((request) => (request.body as unknown[]).length)).toEqual([100, 100, 50]);
		expect((posts[2].body as unknown[])[49]).toEqual({ firstname: 'Lead249', lastname: 'Doe', phone_number: '+14155550249' });
		expect(output).toHaveLength(250);
		output.forEach((item, index) => expect(item.pairedItem).toEqual({ item: index }));
		expect(output[7].json.contact).toEqual({ firstname: 'Lead7', lastname: 'Doe', phone_number: '+14155550007' });
		expect(output[7].json.result).toEqual(
			expect.objectContaining({ phone_number: '+14155550007', campaign_id: DEMO.campaignId, firstname: 'Lead7' }),
		);
		expect(output[7].json).toEqual(expect.objectContaining({ campaignId: DEMO.campaignId, added: 1, batch: 0 }));
		expect(output[100].json.batch).toBe(1);
		expect(output[249].json.batch).toBe(2);
		const stored = [...sim.simulator.state.contacts.values()].filter((contact) => contact.lastname === 'Doe');
		expect(stored).toHaveLength(250);
	});

	it('sends no metadata when the field is left at its default {}', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			items: leads(1),
			parameters: { ...fieldsMode, additionalFields: { metadata: '{}' } },
		});
		expect(sim.requests()[0].body).toEqual([{ firstname: 'Lead0', lastname: 'Doe', phone_number: '+14155550000' }]);
	});

	it('sends metadata typed as a JSON string as an object', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: leads(1),
			parameters: { ...fieldsMode, additionalFields: { metadata: '{"email": "lead0@example.com", "score": 7}' } },
		});
		expect(sim.requests()[0].body).toEqual([
			{
				firstname: 'Lead0',
				lastname: 'Doe',
				phone_number: '+14155550000',
				metadata: { email: 'lead0@example.com', score: 7 },
			},
		]);
		expect((output[0].json.result as { metadata: unknown }).metadata).toEqual({ email: 'lead0@example.com', score: 7 });
	});

	it('sends metadata given as an object by an expression, per item', async () => {
		const items = leads(2).map((item, i) => ({ json: { ...item.json, meta: { email: `lead${i}@example.com`, tags: ['a', i] } } }));
		await runActionNode({
			credentials: sim.credentials(),
			items,
			parameters: { ...fieldsMode, additionalFields: { metadata: '={{ $json.meta }}' } },
		});
		expect((sim.requests()[0].body as Array<{ metadata: unknown }>).map((contact) => contact.metadata)).toEqual([
			{ email: 'lead0@example.com', tags: ['a', 0] },
			{ email: 'lead1@example.com', tags: ['a', 1] },
		]);
	});

	it('trims names and keeps the phone as typed (the service normalises it)', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: { ...fieldsMode, firstName: '  Ada ', lastName: ' Lovelace', phoneNumber: '(415) 555-0123' },
		});
		expect(sim.requests()[0].body).toEqual([{ firstname: 'Ada', lastname: 'Lovelace', phone_number: '(415) 555-0123' }]);
		expect((output[0].json.result as { phone_number: string }).phone_number).toBe('+14155550123');
	});

	it('reads a Campaign ID given by an expression, per item', async () => {
		const items = leads(2).map((item, i) => ({
			json: { ...item.json, campaign: i === 0 ? DEMO.campaignId : DEMO.secondCampaignId },
		}));
		const output = await runActionNode({
			credentials: sim.credentials(),
			items,
			parameters: { ...fieldsMode, campaignId: '={{ $json.campaign }}' },
		});
		expect(sim.requests().map((request) => request.path)).toEqual([addPath(DEMO.campaignId), addPath(DEMO.secondCampaignId)]);
		expect(output.map((item) => item.json.campaignId)).toEqual([DEMO.campaignId, DEMO.secondCampaignId]);
	});
});

describe('Contact → Add to Campaign, auto-map mode', () => {
	it('accepts every documented spelling of the three fields, and metadata as an object or a JSON string', async () => {
		const items = [
			{ json: { firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550101', metadata: { email: 'ada@example.com' }, ignored: 1 } },
			{ json: { first_name: 'Grace', last_name: 'Hopper', phone: '+442079460958', metadata: '{"job_title": "Director"}' } },
			{ json: { firstName: 'Alan', lastName: 'Turing', phoneNumber: '+4930901820' } },
		];
		const output = await runActionNode({
			credentials: sim.credentials(),
			items,
			parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' },
		});
		expect(sim.requests()).toHaveLength(1);
		expect(sim.requests()[0].body).toEqual([
			{ firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550101', metadata: { email: 'ada@example.com' } },
			{ firstname: 'Grace', lastname: 'Hopper', phone_number: '+442079460958', metadata: { job_title: 'Director' } },
			{ firstname: 'Alan', lastname: 'Turing', phone_number: '+4930901820' },
		]);
		expect(output).toHaveLength(3);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output.map((item) => (item.json.result as { firstname: string }).firstname)).toEqual(['Ada', 'Grace', 'Alan']);
		expect((output[2].json.result as { number_country_code: string }).number_country_code).toBe('+49');
	});

	it('prefers the service\'s own spelling when an item carries several', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { firstname: 'Ada', first_name: 'Not', firstName: 'This', lastName: 'Lovelace', phone: '+14155550101', phoneNumber: '+19999999999' } }],
			parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' },
		});
		expect(sim.requests()[0].body).toEqual([{ firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550101' }]);
	});

	it('takes the next spelling over a null one, and sends no metadata for null', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { firstname: null, first_name: 'Ada', lastname: 'Lovelace', phone_number: '+14155550101', metadata: null } }],
			parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' },
		});
		expect(sim.requests()[0].body).toEqual([{ firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550101' }]);
	});

	it('names the item whose field is missing, before any request', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			items: [
				{ json: { firstname: 'Ada', lastname: 'Lovelace', phone: '+14155550101' } },
				{ json: { firstname: 'Grace', surname: 'Hopper', phone: '+442079460958' } },
			],
			parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' },
		});
		expect(error.message).toBe('Last Name (lastname) must be text, got nothing [item 1]');
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('Contact → Add to Campaign, JSON mode', () => {
	const contacts = [
		{ firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550101', metadata: { email: 'ada@example.com' } },
		{ firstname: 'Grace', lastname: 'Hopper', phone_number: '+442079460958' },
		{ firstname: 'Alan', lastname: 'Turing', phone_number: '+4930901820', metadata: '{"source": "web"}' },
	];

	it('sends the contacts of a JSON string, and one output item for the input item', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				inputMode: 'json',
				contactsJson: JSON.stringify(contacts, null, 2),
			},
		});
		expect(sim.requests()).toHaveLength(1);
		expect(sim.requests()[0].body).toEqual([contacts[0], contacts[1], { ...contacts[2], metadata: { source: 'web' } }]);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json.added).toBe(3);
		expect(output[0].json.contacts).toEqual([contacts[0], contacts[1], { ...contacts[2], metadata: { source: 'web' } }]);
		expect((output[0].json.results as Array<{ lastname: string }>).map((result) => result.lastname)).toEqual([
			'Lovelace',
			'Hopper',
			'Turing',
		]);
		expect(output[0].json.batch).toBe(0);
		expect(output[0].json).not.toHaveProperty('contact');
	});

	it('takes a real array from an expression, and splits an item\'s contacts over batches', async () => {
		const items = [{ json: { list: contacts.slice(0, 2) } }, { json: { list: contacts.slice(2) } }];
		const output = await runActionNode({
			credentials: sim.credentials(),
			items,
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				inputMode: 'json',
				contactsJson: '={{ $json.list }}',
				options: { batchSize: 1 },
			},
		});
		expect(sim.requests().map((request) => request.body)).toEqual([
			[contacts[0]],
			[contacts[1]],
			[{ ...contacts[2], metadata: { source: 'web' } }],
		]);
		expect(output).toHaveLength(2);
		expect(output[0].json.batch).toEqual([0, 1]);
		expect(output[0].json.added).toBe(2);
		expect(output[1].json.batch).toBe(2);
		expect(output[1].json.contact).toEqual({ ...contacts[2], metadata: { source: 'web' } });
	});

	it('sends no empty batch for an item whose array is empty, and still outputs that item', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { list: [] } }, { json: { list: contacts.slice(1, 2) } }],
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				inputMode: 'json',
				contactsJson: '={{ $json.list }}',
			},
		});
		expect(sim.requests().map((request) => request.body)).toEqual([[contacts[1]]]);
		expect(output).toHaveLength(2);
		expect(output[0]).toEqual({
			json: { campaignId: DEMO.campaignId, contacts: [], results: [], added: 0, batch: [] },
			pairedItem: { item: 0 },
		});
		expect(output[1].json.added).toBe(1);
	});

	it('names the entry of the array that is wrong', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				inputMode: 'json',
				contactsJson: JSON.stringify([contacts[0], { firstname: 'X', lastname: 'Y', phone_number: 'none' }]),
			},
		});
		expect(error.message).toMatch(/^Phone Number \(phone_number\) of contact 1 in Contacts \(JSON\) may hold only digits.*\[item 0\]$/);
		expect(sim.requests()).toHaveLength(0);
	});

	it.each([
		['text that is not JSON', '[{"firstname": "Ada"', /^Contacts \(JSON\) is not valid JSON: /, 'Give a JSON array of contacts.'],
		['a single contact', JSON.stringify({ firstname: 'Ada' }), /^Contacts \(JSON\) must be a JSON array of contacts, got /, 'Wrap a single contact in [ ].'],
	])('refuses %s with what to do, before any request', async (_case, contactsJson, message, hint) => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'json', contactsJson },
		});
		expect(error.message).toMatch(message);
		expect(error.description).toBe(hint);
		expect(sim.requests()).toHaveLength(0);
	});

	it('names Campaign ID when it is no UUID', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: 'campaign-1', inputMode: 'json', contactsJson: JSON.stringify(contacts) },
		});
		expect(error.message).toMatch(/^Campaign ID must be a UUID like .*"campaign-1" \[item 0\]$/);
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('Contact → Add to Campaign, answers of the service', () => {
	it('turns the service\'s error envelope into an error naming the operation, without the key', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			items: [{ json: { firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550100' } }],
			parameters: withoutRetries({
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.otherCampaignId,
				inputMode: 'autoMap',
			}),
		});
		expect(error.message).toMatch(/^Add to Campaign failed: the service answered status "error"/);
		expect(error.description).toMatch(/campaign ID is unknown or belongs to another company/);
		expect(JSON.stringify(error)).not.toContain(DEMO.apiKey);
		expect(sim.requests().map((request) => request.path)).toEqual([addPath(DEMO.otherCampaignId)]);
	});

	it('fails with a JWT, which the service refuses for Add to Campaign', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(DEMO.jwt),
			parameters: withoutRetries({ ...fieldsMode, firstName: 'Ada', lastName: 'Lovelace', phoneNumber: '+14155550100' }),
		});
		expect(error.message).toBe('Add to Campaign failed: the service answered status "error" (error)');
		expect(sim.requests()[0].headers.authorization).toBe(`Bearer ${DEMO.jwt}`);
		expect(error.message).not.toContain(DEMO.jwt);
	});

	it('fails when the answer is not the envelope', async () => {
		sim.simulator.injectFault({ kind: 'not-envelope' });
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			items: leads(2),
			parameters: withoutRetries(fieldsMode),
		});
		expect(error.message).toBe('Add to Campaign failed: the answer is not the service\'s {status, message, data} envelope');
		expect(sim.requests()).toHaveLength(1);
	});

	it('hands a whole-batch answer to every item when data is not one entry per contact', async () => {
		const server = await startScriptedServer((_request, response) =>
			sendJson(response, 200, { status: 'ok', message: 'ok', data: { inserted: 2 } }),
		);
		try {
			const output = await runActionNode({
				credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
				items: leads(2),
				parameters: withoutRetries(fieldsMode),
			});
			expect(server.requests).toHaveLength(1);
			expect(output.map((item) => item.json.result)).toEqual([{ inserted: 2 }, { inserted: 2 }]);
		} finally {
			await server.close();
		}
	});

	it('hands a list answer of another length than the batch to every item whole', async () => {
		const server = await startScriptedServer((_request, response) =>
			sendJson(response, 200, { status: 'ok', message: 'ok', data: [{ inserted: 3 }] }),
		);
		try {
			const output = await runActionNode({
				credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
				items: leads(2),
				parameters: withoutRetries(fieldsMode),
			});
			expect(output.map((item) => item.json.result)).toEqual([[{ inserted: 3 }], [{ inserted: 3 }]]);
		} finally {
			await server.close();
		}
	});
});

describe('Contact → Add to Campaign, Max Contacts per Run', () => {
	const jsonMode = (contacts: unknown[], maxContactsPerRun?: number) => ({
		resource: 'contact',
		operation: 'addToCampaign',
		campaignId: DEMO.campaignId,
		inputMode: 'json',
		contactsJson: JSON.stringify(contacts),
		...(maxContactsPerRun === undefined ? {} : { options: { maxContactsPerRun } }),
	});
	const three = [0, 1, 2].map((i) => ({ firstname: `Lead${i}`, lastname: 'Doe', phone_number: `+1415555000${i}` }));

	it('stops a run over the cap before anything is sent, counting the contacts of every item; with Continue On Fail every item fails with the reason', async () => {
		const reason = 'Max Contacts per Run is 2, but this run would add 3 contacts; nothing was sent [item 0]';
		const run = { credentials: sim.credentials(), items: leads(3), parameters: { ...fieldsMode, options: { maxContactsPerRun: 2 } } };
		const error = await runActionNodeExpectingError(run);
		expect(error.message).toBe(reason);
		expect(error.description).toContain('Raise Options → Max Contacts per Run');
		const output = await runActionNode({ ...run, continueOnFail: true });
		expect(output.map((item) => item.json.error)).toEqual([reason, reason, reason]);
		const tooMany = await runActionNodeExpectingError({ credentials: sim.credentials(), items: [{ json: {} }], parameters: jsonMode(three, 2) });
		expect(tooMany.message).toContain('this run would add 3 contacts');
		expect(sim.requests()).toHaveLength(0);
	});

	it('sends a run at the cap, and has no cap by default (0)', async () => {
		await runActionNode({ credentials: sim.credentials(), items: [{ json: {} }], parameters: jsonMode(three, 3) });
		await runActionNode({ credentials: sim.credentials(), items: leads(150), parameters: fieldsMode });
		expect(sim.requests('/compaign/').map((request) => (request.body as unknown[]).length)).toEqual([3, 100, 50]);
	});

	it('refuses a cap that is not a whole number from 0 up', async () => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), items: [{ json: {} }], parameters: jsonMode(three, -1) });
		expect(error.message).toMatch(/^Max Contacts per Run must be a whole number from 0 to \d+, got -1/);
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('Contact → Add to Campaign under Retry On Fail', () => {
	it('JSON mode: of the batches an item\'s contacts span, only the refused one is sent on each later try', async () => {
		const contact = (name: string, phone = '+14155550100') => ({ firstname: name, lastname: 'Doe', phone_number: phone, metadata: { source: 'crm' } });
		// Batch size 2: [Ada, Bob], [Cy (too short for the service), Dee], [Eve]; batch 1 fails items 0 and 1.
		const items = [{ json: { contacts: [contact('Ada'), contact('Bob'), contact('Cy', '+12345')] } }, { json: { contacts: [contact('Dee'), contact('Eve')] } }];
		const runTry = triesOf({
			credentials: sim.credentials(),
			items,
			parameters: withoutRetries({
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				inputMode: 'json',
				contactsJson: '={{ $json.contacts }}',
				options: { batchSize: 2 },
			}),
			continueOnFail: true,
			retryOnFail: true,
		});
		const outputs = [await runTry(), await runTry(), await runTry()];
		expect(sim.requests('/compaign/').map((request) => (request.body as Array<{ firstname: string }>).map((sent) => sent.firstname))).toEqual([
			['Ada', 'Bob'],
			['Cy', 'Dee'],
			['Eve'],
			['Cy', 'Dee'],
			['Cy', 'Dee'],
		]);
		expect(outputs[1]).toEqual(outputs[0]);
		expect(outputs[2]).toEqual(outputs[0]);
		expect(outputs[0].map((item) => item.json.error)).toEqual([expect.stringMatching(/^Add to Campaign failed/), expect.stringMatching(/^Add to Campaign failed/)]);
	});
});


describeBadInputs(sim, [
	{ name: 'Add to Campaign: malformed Campaign ID', parameters: addContact({ campaignId: 'campaign-1' }), item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}, got "campaign-1"`) },
	{ name: 'Add to Campaign: empty Campaign ID', parameters: addContact({ campaignId: '' }), item: 0, message: /^Campaign ID is empty/ },
	{
		name: 'Add to Campaign: Campaign ID one character short, from an expression in item 2',
		parameters: addContact({ campaignId: '={{ $json.v }}' }),
		items: itemsWith(DEMO.campaignId, DEMO.campaignId.slice(0, -1), 2),
		item: 2,
		message: new RegExp(`^Campaign ID ${UUID_MESSAGE}`),
	},
	{
		name: 'Add to Campaign: an Input Mode this version does not know (a hand-edited workflow)',
		parameters: addContact({ inputMode: 'csv' }),
		item: 0,
		message: /^Input Mode must be one of fields, autoMap, json, got "csv"/,
	},
	{ name: 'Add to Campaign: batch size 0', parameters: addContact({ options: { batchSize: 0 } }), item: 0, message: /^Batch Size must be a whole number from 1 to 1000, got 0/, nodeWide: true },
	{ name: 'Add to Campaign: batch size 10001', parameters: addContact({ options: { batchSize: 10001 } }), item: 0, message: /^Batch Size must be a whole number from 1 to 1000, got 10001/, nodeWide: true },
	{ name: 'Add to Campaign: Requests in Parallel 9', parameters: addContact({ options: { parallelRequests: 9 } }), item: 0, message: /^Requests in Parallel must be a whole number from 1 to 5/, nodeWide: true },
]);

describe('Add to Campaign: what its errors tell the user to check', () => {
	it('after an answer that may follow a carried-out write, to check the contacts before sending them again', async () => {
		sim.simulator.injectFault({ kind: 'http-500', times: 5 });
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: addContact() });
		expect(error.description).toContain(
			'Check whether these contacts were added (Get Contact for contacts whose IDs you hold, or the campaign in the service\'s app) before sending them again: a repeat may call the same people twice.',
		);
	});

	it('after a refusal, the Campaign ID and the batch\'s contacts', async () => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials('not-a-key-of-the-service'), parameters: withoutRetries(addContact()) });
		expect(error.description).toContain(
			'The service refuses a batch when the campaign ID is unknown or belongs to another company, when the key is not a user API key, or when a contact is malformed. Check the Campaign ID and the contacts of this batch.',
		);
	});
});
