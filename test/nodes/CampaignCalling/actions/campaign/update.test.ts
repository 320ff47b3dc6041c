import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator, withoutRetries } from '../../kit.ts';

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
		expect(error.message).toMatch(/^Update Fields → Webhook ID must be a UUID .*"flow-1" \[item 0\]$/);
		expect(sim.requests()).toHaveLength(0);
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
