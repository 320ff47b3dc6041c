/**
 * Bad input across every operation: each is refused before any request reaches the service, with
 * a message naming the field and the item. With Continue On Fail, an input error of one item
 * becomes that item's error item; an error in a node-wide setting becomes an error item for every
 * input item.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { CredentialData } from '../../../helpers/n8nContext.ts';
import { runActionNode, runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import { DEMO, useSimulator } from '../../../helpers/kit.ts';

const sim = useSimulator();

interface BadInput {
	name: string;
	parameters: IDataObject;
	/** Input items; the bad one is at `item`. Defaults to one empty item. */
	items?: INodeExecutionData[];
	item: number;
	/** The field named at the start of the message, and more of the message. */
	message: RegExp;
	/** A node-wide setting: with Continue On Fail, 1 and 2 stop the run; 3 fails every item. */
	nodeWide?: boolean;
	credentials?: (simulatorUrl: string) => CredentialData;
}

const GOOD_UUID = DEMO.campaignId;
const add = (extra: IDataObject): IDataObject => ({
	resource: 'contact',
	operation: 'addToCampaign',
	campaignId: GOOD_UUID,
	firstName: 'Ada',
	lastName: 'Lovelace',
	phoneNumber: '+14155550101',
	...extra,
});
const addJson = (contactsJson: string): IDataObject => ({
	resource: 'contact',
	operation: 'addToCampaign',
	campaignId: GOOD_UUID,
	inputMode: 'json',
	contactsJson,
});
const update = (updateFields: IDataObject, campaignId: string = GOOD_UUID): IDataObject => ({
	resource: 'campaign',
	operation: 'update',
	campaignId,
	updateFields,
});
const integration = (extra: IDataObject): IDataObject => ({
	resource: 'integration',
	operation: 'create',
	integrationType: 'custom',
	url: 'https://hooks.example.com/x',
	...extra,
});
const webhookModule = (extra: IDataObject): IDataObject => ({
	resource: 'webhookModule',
	operation: 'create',
	eventType: 'call.ended',
	url: 'https://hooks.example.com/x',
	...extra,
});
/** Items whose field `v` is good except at `badIndex`. */
const itemsWith = (good: unknown, bad: unknown, badIndex: number, count = badIndex + 1): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { v: (i === badIndex ? bad : good) as IDataObject[string] } }));

const UUID_MESSAGE = 'must be a UUID like 123e4567-e89b-12d3-a456-426614174000';

const table: BadInput[] = [
	// Add Contacts
	{ name: 'Add Contacts: malformed Campaign ID', parameters: add({ campaignId: 'campaign-1' }), item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}, got "campaign-1"`) },
	{ name: 'Add Contacts: empty Campaign ID', parameters: add({ campaignId: '' }), item: 0, message: /^Campaign ID is empty/ },
	{
		name: 'Add Contacts: Campaign ID one character short, from an expression in item 2',
		parameters: add({ campaignId: '={{ $json.v }}' }),
		items: itemsWith(GOOD_UUID, GOOD_UUID.slice(0, -1), 2),
		item: 2,
		message: new RegExp(`^Campaign ID ${UUID_MESSAGE}`),
	},
	{
		name: 'Add Contacts: empty first name in item 1',
		parameters: add({ firstName: '={{ $json.v }}' }),
		items: itemsWith('Ada', '', 1, 3),
		item: 1,
		message: /^First Name \(firstname\) is empty/,
	},
	{ name: 'Add Contacts: last name of spaces only', parameters: add({ lastName: '   ' }), item: 0, message: /^Last Name \(lastname\) is empty/ },
	{ name: 'Add Contacts: phone of letters', parameters: add({ phoneNumber: 'call me maybe' }), item: 0, message: /^Phone Number \(phone_number\) may hold only digits/ },
	{ name: 'Add Contacts: phone too short', parameters: add({ phoneNumber: '123' }), item: 0, message: /^Phone Number \(phone_number\) must have between 5 and 15 digits, got "123"/ },
	{ name: 'Add Contacts: phone too long', parameters: add({ phoneNumber: '+1234567890123456' }), item: 0, message: /^Phone Number \(phone_number\) must have between 5 and 15 digits/ },
	{ name: 'Add Contacts: metadata as an array', parameters: add({ additionalFields: { metadata: '[1, 2]' } }), item: 0, message: /^Metadata must be a JSON object, got an array/ },
	{ name: 'Add Contacts: metadata text that is not JSON', parameters: add({ additionalFields: { metadata: '{email: ada}' } }), item: 0, message: /^Metadata is not valid JSON: "\{email: ada\}"/ },
	{ name: 'Add Contacts: metadata a JSON number', parameters: add({ additionalFields: { metadata: '42' } }), item: 0, message: /^Metadata must be a JSON object, got a number/ },
	{
		name: 'Add Contacts: metadata null from an expression in item 1',
		parameters: add({ additionalFields: { metadata: '={{ $json.v }}' } }),
		items: itemsWith({ a: 1 }, 'null', 1),
		item: 1,
		message: /^Metadata must be a JSON object, got null/,
	},
	{ name: 'Add Contacts: Contacts (JSON) not an array', parameters: addJson('{"firstname": "Ada"}'), item: 0, message: /^Contacts \(JSON\) must be a JSON array of contacts/ },
	{ name: 'Add Contacts: Contacts (JSON) broken', parameters: addJson('[{"firstname": "Ada",'), item: 0, message: /^Contacts \(JSON\) is not valid JSON/ },
	{
		name: 'Add Contacts: Contacts (JSON) entry without phone_number',
		parameters: addJson(JSON.stringify([{ firstname: 'Ada', lastname: 'Lovelace', phone: '+14155550101' }])),
		item: 0,
		message: /^Phone Number \(phone_number\) of contact 0 in Contacts \(JSON\) must be text, got nothing/,
	},
	{
		name: 'Add Contacts: Contacts (JSON) entry that is not an object',
		parameters: addJson('["Ada Lovelace"]'),
		item: 0,
		message: /^Contact of contact 0 in Contacts \(JSON\) must be a JSON object, got "Ada Lovelace"/,
	},
	{
		name: 'Add Contacts: an Input Mode this version does not know (a hand-edited workflow)',
		parameters: add({ inputMode: 'csv' }),
		item: 0,
		message: /^Input Mode must be one of fields, autoMap, json, got "csv"/,
	},
	{
		name: 'Add Contacts: auto-map item without a phone',
		parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: GOOD_UUID, inputMode: 'autoMap' },
		items: [
			{ json: { firstname: 'Ada', lastname: 'Lovelace', phone: '+14155550101' } },
			{ json: { firstname: 'Grace', lastname: 'Hopper', mobile: '+442079460958' } },
		],
		item: 1,
		message: /^Phone Number \(phone_number\) must be text, got nothing/,
	},
	{ name: 'Add Contacts: batch size 0', parameters: add({ options: { batchSize: 0 } }), item: 0, message: /^Batch Size must be a whole number from 1 to 1000, got 0/, nodeWide: true },
	{ name: 'Add Contacts: batch size 10001', parameters: add({ options: { batchSize: 10001 } }), item: 0, message: /^Batch Size must be a whole number from 1 to 1000, got 10001/, nodeWide: true },
	{ name: 'Add Contacts: Requests in Parallel 9', parameters: add({ options: { parallelRequests: 9 } }), item: 0, message: /^Requests in Parallel must be a whole number from 1 to 5/, nodeWide: true },
	// Get Contact, Get Campaign
	{ name: 'Get Contact: Contact ID one character short', parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId.slice(1) }, item: 0, message: new RegExp(`^Contact ID ${UUID_MESSAGE}`) },
	{ name: 'Get Contact: empty Contact ID', parameters: { resource: 'contact', operation: 'get', contactId: ' ' }, item: 0, message: /^Contact ID is empty/ },
	{
		name: 'Get Contact: Contact ID with a character outside hex, item 1',
		parameters: { resource: 'contact', operation: 'get', contactId: '={{ $json.v }}' },
		items: itemsWith(DEMO.completedContactId, 'g0000000-0000-4000-8000-000000000002', 1),
		item: 1,
		message: new RegExp(`^Contact ID ${UUID_MESSAGE}`),
	},
	{ name: 'Get Campaign: Campaign ID with a trailing character', parameters: { resource: 'campaign', operation: 'get', campaignId: `${GOOD_UUID}x` }, item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}`) },
	{ name: 'Get Campaign: Campaign ID without dashes', parameters: { resource: 'campaign', operation: 'get', campaignId: GOOD_UUID.replace(/-/g, '') }, item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}`) },
	// Update Campaign
	{ name: 'Update Campaign: malformed Campaign ID', parameters: update({ status: 'paused' }, '42'), item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}, got "42"`) },
	{ name: 'Update Campaign: empty update', parameters: update({}), item: 0, message: /^Update Fields is empty: nothing to update/ },
	{ name: 'Update Campaign: Days of Week "1,two"', parameters: update({ daysOfWeek: '1,two' }), item: 0, message: /^Update Fields → Days of Week must hold only whole numbers, got "two"/ },
	{ name: 'Update Campaign: Days of Week with an empty entry', parameters: update({ daysOfWeek: '1,,3' }), item: 0, message: /^Update Fields → Days of Week must hold only whole numbers, got ""/ },
	{ name: 'Update Campaign: Days of Week as a broken JSON array', parameters: update({ daysOfWeek: '[1, 2' }), item: 0, message: /^Update Fields → Days of Week is not a valid JSON array/ },
	{ name: 'Update Campaign: Retry Delay with a fraction', parameters: update({ retryDelay: '1.5' }), item: 0, message: /^Update Fields → Retry Delays must hold only whole numbers, got "1.5"/ },
	{
		name: 'Update Campaign: Number of Call Attempts array with text, item 1',
		parameters: update({ numberOfCallAttempts: '={{ $json.v }}' }),
		items: itemsWith([1, 2], [1, 'x'], 1),
		item: 1,
		message: /^Update Fields → Call Attempts must hold only whole numbers, got "x"/,
	},
	{ name: 'Update Campaign: Contacts List Tags with an empty entry', parameters: update({ contactsListTags: 'a,,b' }), item: 0, message: /^Update Fields → Contact Tags must hold only non-empty texts/ },
	{ name: 'Update Campaign: broken JSON in Contacts List Source Metadata', parameters: update({ contactsListSourceMetadata: '{"form": ' }), item: 0, message: /^Update Fields → Source Metadata is not valid JSON/ },
	{ name: 'Update Campaign: Webhook Mapping Variables an array', parameters: update({ webhookMappingVariables: '[1]' }), item: 0, message: /^Update Fields → Webhook Variables must be a JSON object, got an array/ },
	{ name: 'Update Campaign: broken JSON in Agent Variables mapping', parameters: update({ agentVariablesContactMetadataMapping: 'name=first' }), item: 0, message: /^Update Fields → Agent Variable Map is not valid JSON/ },
	{ name: 'Update Campaign: malformed Inbound Phone Number ID', parameters: update({ inboundPhoneNumberId: '+14155550100' }), item: 0, message: new RegExp(`^Update Fields → Inbound Number ID ${UUID_MESSAGE}`) },
	{ name: 'Update Campaign: malformed Outbound Phone Number ID', parameters: update({ outboundPhoneNumberId: 'b0000000-0000-4000-8000' }), item: 0, message: new RegExp(`^Update Fields → Outbound Number ID ${UUID_MESSAGE}`) },
	{ name: 'Update Campaign: empty Webhook ID', parameters: update({ webhookId: '' }), item: 0, message: /^Update Fields → Webhook Flow is empty/ },
	{ name: 'Update Campaign: empty Name', parameters: update({ name: '  ' }), item: 0, message: /^Update Fields → Name is empty/ },
	{
		name: 'Update Campaign: Status an object from an expression',
		parameters: update({ status: '={{ $json.v }}' }),
		items: [{ json: { v: { state: 'on' } } }],
		item: 0,
		message: /^Update Fields → Status must be text/,
	},
	// Get Many Webhook Flows
	{ name: 'Get Many Webhook Flows: empty Workspace ID', parameters: { resource: 'webhookFlow', operation: 'getAll', workspaceId: '' }, item: 0, message: /^Workspace ID is empty/ },
	{
		name: 'Get Many Webhook Flows: Workspace ID null from an expression, item 1',
		parameters: { resource: 'webhookFlow', operation: 'getAll', workspaceId: '={{ $json.v }}' },
		items: itemsWith('default', null, 1),
		item: 1,
		message: /^Workspace ID is empty/,
	},
	{ name: 'Get Many Webhook Flows: Limit 0', parameters: { resource: 'webhookFlow', operation: 'getAll', limit: 0 }, item: 0, message: /^Limit must be a whole number from 1/ },
	{ name: 'Get Many Webhook Flows: Limit 2.5', parameters: { resource: 'webhookFlow', operation: 'getAll', limit: 2.5 }, item: 0, message: /^Limit must be a whole number from 1/ },
	// Create Integration
	{
		name: 'Create Integration: unknown type from an expression',
		parameters: integration({ integrationType: '={{ $json.v }}' }),
		items: itemsWith('slack', 'pipedrive', 1),
		item: 1,
		message: /^Integration Type must be one of custom, email, hubspot, .*got "pipedrive"/,
	},
	{ name: 'Create Integration: ftp URL', parameters: integration({ url: 'ftp://files.example.com/in' }), item: 0, message: /^URL must be an http:\/\/ or https:\/\/ address, got "ftp:\/\/files.example.com\/in"/ },
	{ name: 'Create Integration: URL without scheme', parameters: integration({ url: 'hooks.example.com/x' }), item: 0, message: /^URL must be an http:\/\/ or https:\/\/ address/ },
	{ name: 'Create Integration: empty URL', parameters: integration({ url: '' }), item: 0, message: /^URL is empty/ },
	{ name: 'Create Integration: negative timeout', parameters: integration({ options: { timeout: -1 } }), item: 0, message: /^Options → Timeout must be a whole number from 1 to 3600, got -1/ },
	{ name: 'Create Integration: Retry Limit above 100', parameters: integration({ options: { retryLimit: 101 } }), item: 0, message: /^Options → Retry Limit must be a whole number from 0 to 100, got 101/ },
	{
		name: 'Create Integration: header named twice',
		parameters: integration({ options: { headers: { header: [{ name: 'X-Key', value: '1' }, { name: 'x-key', value: '2' }] } } }),
		item: 0,
		message: /^Options → Headers names the header "x-key" twice/,
	},
	{
		name: 'Create Integration: header without a name',
		parameters: integration({ options: { headers: { header: [{ name: ' ', value: '1' }] } } }),
		item: 0,
		message: /^Options → Headers has a header without a name/,
	},
	{
		name: 'Create Integration: header name with a space',
		parameters: integration({ options: { headers: { header: [{ name: 'X Key', value: '1' }] } } }),
		item: 0,
		message: /^Options → Headers has an invalid header name "X Key"/,
	},
	{
		name: 'Create Integration: method TRACE from an expression',
		parameters: integration({ options: { method: '={{ $json.v }}' } }),
		items: itemsWith('POST', 'TRACE', 1),
		item: 1,
		message: /^Options → Method must be GET, POST, PUT, PATCH or DELETE, got "TRACE"/,
	},
	// Create Webhook Module
	{
		name: 'Create Webhook Module: unknown event type from an expression',
		parameters: webhookModule({ eventType: '={{ $json.v }}' }),
		items: itemsWith('call.ended', 'call.answered', 1, 2),
		item: 1,
		message: /^Event Type must be one of call.started, .*got "call.answered"/,
	},
	{ name: 'Create Webhook Module: ftp URL', parameters: webhookModule({ url: 'ftp://x.example.com' }), item: 0, message: /^URL must be an http:\/\/ or https:\/\/ address/ },
	{ name: 'Create Webhook Module: timeout 0', parameters: webhookModule({ options: { timeout: 0 } }), item: 0, message: /^Options → Timeout must be a whole number from 1 to 3600, got 0/ },
	{ name: 'Create Webhook Module: timeout above 3600', parameters: webhookModule({ options: { timeout: 3601 } }), item: 0, message: /^Options → Timeout must be a whole number from 1 to 3600/ },
	{ name: 'Create Webhook Module: Retry Limit -1', parameters: webhookModule({ options: { retryLimit: -1 } }), item: 0, message: /^Options → Retry Limit must be a whole number from 0 to 100, got -1/ },
	// Node-wide settings
	{ name: 'Request Options: Max Retries 11', parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId, requestOptions: { maxRetries: 11 } }, item: 0, message: /^Request Options → Max Retries must be a whole number from 0 to 10/, nodeWide: true },
	{ name: 'Request Options: Timeout 0 seconds', parameters: { resource: 'campaign', operation: 'get', campaignId: GOOD_UUID, requestOptions: { timeoutSeconds: 0 } }, item: 0, message: /^Request Options → Timeout \(Seconds\) must be a whole number from 1 to 600/, nodeWide: true },
	{
		name: 'Credential: Base URL without a scheme',
		parameters: { resource: 'campaign', operation: 'get', campaignId: GOOD_UUID },
		credentials: (url) => ({ baseUrl: url.replace(/^http:\/\//, ''), apiKey: DEMO.apiKey }),
		item: 0,
		message: /^Get Campaign failed: The credential's Base URL "127\.0\.0\.1:\d+" is not a web address/,
	},
	{
		name: 'Credential: Base URL with an ftp scheme',
		parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId },
		credentials: () => ({ baseUrl: 'ftp://api.example.com', apiKey: DEMO.apiKey }),
		item: 0,
		message: /^Get Contact failed: The credential's Base URL "ftp:\/\/api.example.com" is not a web address/,
	},
	{
		name: 'Credential: empty Base URL',
		parameters: add({}),
		credentials: () => ({ baseUrl: '', apiKey: DEMO.apiKey }),
		item: 0,
		message: /^Add to Campaign failed: The credential's Base URL "" is not a web address/,
	},
];

describe('bad input is refused before any request', () => {
	it('covers at least 30 cases across all seven operations', () => {
		expect(table.length).toBeGreaterThanOrEqual(30);
		const operations = new Set(table.map((row) => `${row.parameters.resource}.${row.parameters.operation}`));
		expect([...operations].sort()).toEqual([
			'campaign.get',
			'campaign.update',
			'contact.addToCampaign',
			'contact.get',
			'integration.create',
			'webhookFlow.getAll',
			'webhookModule.create',
		]);
	});

	describe.each(table)('$name', (row) => {
		const run = (continueOnFail: boolean) => ({
			credentials: row.credentials ? row.credentials(sim.simulator.url) : sim.credentials(),
			items: row.items ?? [{ json: {} }],
			parameters: row.parameters,
			continueOnFail,
		});

		it('throws, naming the field and the item, and sends nothing', async () => {
			const error = await runActionNodeExpectingError(run(false));
			expect(error.message).toMatch(row.message);
			expect(error.message.endsWith(` [item ${row.item}]`)).toBe(true);
			expect(error.context?.itemIndex).toBe(row.item);
			expect(sim.requests()).toHaveLength(0);
		});

		if (row.nodeWide) {
			it('with Continue On Fail gives every input item an error item with the reason, and sends nothing', async () => {
				const options = { ...run(true), items: [{ json: {} }, { json: {} }] };
				const output = await runActionNode(options);
				expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
				for (const item of output) expect(item.json.error).toMatch(row.message);
				expect(sim.requests()).toHaveLength(0);
			});
		} else {
			it('with Continue On Fail, becomes the error item of that item, and the bad value is never sent', async () => {
				const options = run(true);
				const output = await runActionNode(options);
				const errorItems = output.filter((item) => 'error' in item.json);
				expect(errorItems.length).toBeGreaterThanOrEqual(1);
				const own = output.find((item) => (item.pairedItem as { item: number }).item === row.item && 'error' in item.json);
				expect(own?.json.error).toMatch(row.message);
				expect(String(own?.json.error).endsWith(` [item ${row.item}]`)).toBe(true);
				// The other items ran; the bad item was not sent.
				const goodItems = options.items.length - errorItems.length;
				if (row.parameters.operation === 'addToCampaign') {
					const sent = sim.requests().flatMap((request) => request.body as unknown[]);
					expect(sent).toHaveLength(goodItems);
				} else {
					expect(sim.requests()).toHaveLength(goodItems);
				}
			});
		}
	});
});
