import type { INodeProperties } from 'n8n-workflow';

import { CampaignCalling } from '../../../../../nodes/CampaignCalling/CampaignCalling.node';
import { UPDATE_FIELD_GROUPS } from '../../../../../nodes/CampaignCalling/actions/campaign/updateFields';
import { searchWebhookFlows } from '../../../../../nodes/CampaignCalling/methods/listSearch';
import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { describeBadInputs, itemsWith, UUID_MESSAGE } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();
const inboundId = 'b0000000-0000-4000-8000-0000000000a1';
const outboundId = 'B0000000-0000-4000-8000-0000000000A2';

function update(updateFields: Record<string, unknown>, campaignId: string = DEMO.campaignId) {
	return { resource: 'campaign', operation: 'update', campaignId, updateFields };
}

describe('Campaign → Update', () => {
	it('sends only the fields that were set, under the service\'s snake_case names', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: update({ status: 'paused', daysOfWeek: '1,2,3' }),
		});
		const [request] = sim.requests();
		expect(`${request.method} ${request.path}`).toBe(`POST /v1/campaigns/update/${DEMO.campaignId}`);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({ status: 'paused', days_of_week: [1, 2, 3] });
		expect(sim.simulator.state.campaigns.get(DEMO.campaignId)?.record.status).toBe('paused');
		// The answer's body is not documented: it is handed on as the service sent it.
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json).toEqual({
			status: 'ok',
			message: 'ok',
			data: JSON.parse(JSON.stringify(sim.simulator.state.campaigns.get(DEMO.campaignId)?.record)),
		});
	});

	it('converts every one of the 20 fields to the type the service expects', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { tags: ['open-house', 'vip'], attempts: ['2'], mapping: { property: 'property_interest' } } }],
			parameters: update({
				name: ' Summer follow-up ',
				notes: 'Second round',
				status: 'active',
				daysOfWeek: '[1, 3, 5]',
				timeZone: 'Europe/Paris',
				contactsListSource: 'website, csv import',
				contactsListTags: '={{ $json.tags }}',
				contactsListCategories: 'buyer',
				contactsListSourceMetadata: '{"form_id": "summer-2026"}',
				agentVariablesContactMetadataMapping: '={{ $json.mapping }}',
				callTimeOfDayFrom: '08:30',
				callTimeOfDayTo: '19:00',
				numberOfCallAttempts: '={{ $json.attempts }}',
				retryDelay: ' 30 , 60 ',
				retryDelayUnit: 'minutes,minutes',
				inboundPhoneNumberId: inboundId,
				outboundPhoneNumberId: outboundId,
				webhookMappingVariables: '{"outcome": "last_call_status"}',
				webhookMappingVariablesSources: '{}',
				webhookId: DEMO.secondOutboundFlowId,
			}),
		});
		expect(sim.requests()[0].body).toEqual({
			name: 'Summer follow-up',
			notes: 'Second round',
			status: 'active',
			days_of_week: [1, 3, 5],
			time_zone: 'Europe/Paris',
			contacts_list_source: ['website', 'csv import'],
			contacts_list_tags: ['open-house', 'vip'],
			contacts_list_categories: ['buyer'],
			contacts_list_source_metadata: { form_id: 'summer-2026' },
			agent_variables_contact_metadata_mapping: { property: 'property_interest' },
			call_time_of_day_from: '08:30',
			call_time_of_day_to: '19:00',
			number_of_call_attempts: [2],
			retry_delay: [30, 60],
			retry_delay_unit: ['minutes', 'minutes'],
			inbound_phone_number_id: inboundId,
			outbound_phone_number_id: outboundId,
			webhook_mapping_variables: { outcome: 'last_call_status' },
			webhook_mapping_variables_sources: {},
			webhook_id: DEMO.secondOutboundFlowId,
		});
		const stored = sim.simulator.state.campaigns.get(DEMO.campaignId)?.record;
		expect(stored?.webhook_id).toBe(DEMO.secondOutboundFlowId);
		expect(stored?.number_of_call_attempts).toEqual([2]);
	});

	it('sends arrays of integer as numbers from a real array of numbers', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			parameters: update({ daysOfWeek: '={{ [6, 7] }}', retryDelay: '={{ [15] }}', numberOfCallAttempts: 4 }),
		});
		expect(sim.requests()[0].body).toEqual({ days_of_week: [6, 7], retry_delay: [15], number_of_call_attempts: [4] });
	});

	it('sends an empty list for an empty text, and an object field given as an object', async () => {
		await runActionNode({
			credentials: sim.credentials(),
			parameters: update({ contactsListTags: '', webhookMappingVariables: '={{ { "a": "b" } }}' }),
		});
		expect(sim.requests()[0].body).toEqual({ contacts_list_tags: [], webhook_mapping_variables: { a: 'b' } });
	});

	it('updates one campaign per item, each with its own values', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [
				{ json: { id: DEMO.campaignId, name: 'First' } },
				{ json: { id: DEMO.secondCampaignId, name: 'Second' } },
			],
			parameters: { resource: 'campaign', operation: 'update', campaignId: '={{ $json.id }}', updateFields: { name: '={{ $json.name }}' } },
		});
		expect(sim.requests().map((request) => [request.path, request.body])).toEqual([
			[`/v1/campaigns/update/${DEMO.campaignId}`, { name: 'First' }],
			[`/v1/campaigns/update/${DEMO.secondCampaignId}`, { name: 'Second' }],
		]);
		expect(output.map((item) => (item.json.data as { name: string }).name)).toEqual(['First', 'Second']);
	});

	it('fails on an empty update before any request', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: update({}),
		});
		expect(error.message).toBe('Update Fields is empty: nothing to update [item 0]');
		expect(error.description).toMatch(/Add Field/);
		expect(sim.requests()).toHaveLength(0);
	});

	it('validates the UUID fields before any request', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: update({ webhookId: 'flow-1' }),
		});
		expect(error.message).toMatch(/^Update Fields → Webhook Flow must be a UUID .*"flow-1" \[item 0\]$/);
		expect(sim.requests()).toHaveLength(0);
	});

	it('refuses a phone number ID that is no UUID with the plain UUID example, not the Webhook Flow\'s list hint', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: update({ outboundPhoneNumberId: 'number-1' }),
		});
		expect(error.message).toMatch(/^Update Fields → Outbound Number ID must be a UUID like .*"number-1" \[item 0\]$/);
		expect(String(error.description)).not.toMatch(/flow/i);
		expect(sim.requests()).toHaveLength(0);
	});

	it('sends a number given to a text field (an expression\'s result) as text', async () => {
		await runActionNode({ credentials: sim.credentials(), parameters: update({ name: '={{ 2026 }}' }) });
		expect(sim.requests()[0].body).toEqual({ name: '2026' });
	});

	it('passes the service\'s refusal on as an error naming the operation', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: withoutRetries(update({ status: 'paused' }, DEMO.otherCampaignId)),
		});
		expect(error.message).toBe('Update Campaign failed: the service answered status "error" (error: unauthorized)');
		expect(error.description).toBe('Check the Campaign ID and the values of the fields you update.');
		expect(sim.simulator.state.campaigns.get(DEMO.otherCampaignId)?.record.status).toBe('active');
	});

	describe('answers that are not an object', () => {
		const answers: Array<[string, unknown, Record<string, unknown>]> = [
			['a JSON string', '"updated"', { campaignId: DEMO.campaignId, response: 'updated' }],
			['a JSON array', [1, 2], { campaignId: DEMO.campaignId, response: [1, 2] }],
			['an empty body', '', {}],
		];
		it.each(answers)('hands on %s', async (_label, body, expected) => {
			const server = await startScriptedServer((_request, response) => sendJson(response, 200, body));
			try {
				const output = await runActionNode({
					credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
					parameters: withoutRetries(update({ notes: 'x' })),
				});
				expect(server.requests.map((request) => request.body)).toEqual([{ notes: 'x' }]);
				expect(output).toEqual([{ json: expected, pairedItem: { item: 0 } }]);
			} finally {
				await server.close();
			}
		});
	});
});

describe('Campaign → Update, Webhook Flow as a resource locator', () => {
	it.each([
		['a plain ID, as a workflow written by hand may hold it', DEMO.secondOutboundFlowId],
		['a locator picked from the list', { __rl: true, mode: 'list', value: DEMO.secondOutboundFlowId, cachedResultName: 'Second flow' }],
		['a locator entered by ID', { __rl: true, mode: 'id', value: DEMO.secondOutboundFlowId }],
		['a locator whose ID is an expression', { __rl: true, mode: 'id', value: '={{ $json.flow }}' }],
	])('sends webhook_id from %s', async (_label, webhookId) => {
		await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { flow: DEMO.secondOutboundFlowId } }],
			parameters: update({ webhookId }),
		});
		expect(sim.requests()[0].body).toEqual({ webhook_id: DEMO.secondOutboundFlowId });
	});

	it('refuses a locator left empty or holding something other than an ID, before any request', async () => {
		for (const [webhookId, wanted] of [
			[{ __rl: true, mode: 'list', value: '' }, /^Update Fields → Webhook Flow is empty \[item 0\]$/],
			[{ __rl: true, mode: 'id', value: 'my-flow' }, /^Update Fields → Webhook Flow must be a UUID .*"my-flow" \[item 0\]$/],
		] as const) {
			const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: update({ webhookId }) });
			expect(error.message).toMatch(wanted);
			expect(error.description).toMatch(/Pick the flow from the list, or enter its ID/);
		}
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('Update Fields in the editor', () => {
	const { description } = new CampaignCalling();
	const updateFields = description.properties.find((property) => property.name === 'updateFields')!;
	const options = updateFields.options as INodeProperties[];

	it('lists the fields group by group, as a person thinks: who, the agent, when, retries, numbers, webhook, the campaign', () => {
		const groups = Object.entries(UPDATE_FIELD_GROUPS);
		expect(groups.map(([group]) => group)).toEqual(['Who is called', 'Calling agent', 'When', 'Retries', 'Phone numbers', 'Webhook', 'Campaign']);
		// Each group's fields sit together, each description opening with its group.
		const listed = groups.flatMap(([group, fields]) => fields.map((field) => [field.name, group]));
		expect(options.map((option) => [option.name, option.description?.split(':')[0]])).toEqual(listed);
	});

	it('keeps every label within what n8n shows uncut (21 characters)', () => {
		for (const option of options) expect([option.displayName, option.displayName.length <= 21]).toEqual([option.displayName, true]);
	});

	it('makes Webhook Flow a list of flows searchable by name, or an ID checked as a UUID', () => {
		const webhook = options.find((option) => option.name === 'webhookId')!;
		expect(webhook.type).toBe('resourceLocator');
		expect(webhook.default).toEqual({ mode: 'list', value: '' });
		const [list, byId] = webhook.modes!;
		expect(list).toEqual(expect.objectContaining({ name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchWebhookFlows', searchable: true } }));
		expect(byId.name).toBe('id');
		const regex = new RegExp((byId.validation![0] as unknown as { properties: { regex: string } }).properties.regex);
		expect(regex.test(DEMO.outboundFlowId)).toBe(true);
		expect(regex.test(DEMO.outboundFlowId.toUpperCase())).toBe(true);
		for (const bad of ['flow-1', `${DEMO.outboundFlowId}x`, '']) expect(regex.test(bad)).toBe(false);
		// The list's search method is the node's, under the name the mode names.
		expect(new CampaignCalling().methods.listSearch).toEqual({ searchWebhookFlows });
	});
});

describeBadInputs(sim, [
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
]);

it('Update Campaign: after an answer that may follow a carried-out write, tells the user to read the campaign first', async () => {
	sim.simulator.injectFault({ kind: 'http-500', times: 5 });
	const error = await runActionNodeExpectingError({ credentials: sim.credentials(), parameters: update({ name: 'Renamed' }) });
	expect(error.description).toContain('Read the campaign with Get Campaign to see whether the change was applied before you repeat it.');
});
