import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { SIMPLIFIED_CAMPAIGN_FIELDS } from '../../../../helpers/documentedFields.ts';
import { DEMO, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { describeBadInputs, UUID_MESSAGE } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();

describe('Campaign → Get', () => {
	it('reads the campaign by GET /v1/campaigns/by-id/{id} and outputs the Campaign object', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			parameters: { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId, simplify: false },
		});
		expect(sim.requests().map((request) => `${request.method} ${request.path}`)).toEqual([
			`GET /v1/campaigns/by-id/${DEMO.campaignId}`,
		]);
		expect(output).toHaveLength(1);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[0].json).toEqual(sim.simulator.state.campaigns.get(DEMO.campaignId)?.record);
		expect(output[0].json).toEqual(
			expect.objectContaining({ name: 'Spring open house follow-up', days_of_week: [1, 2, 3, 4, 5], retry_delay_unit: ['hours', 'hours'] }),
		);
	});

	it('reads one campaign per input item', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { c: DEMO.pausedCampaignId } }, { json: { c: DEMO.secondCampaignId } }],
			parameters: { resource: 'campaign', operation: 'get', campaignId: '={{ $json.c }}' },
		});
		expect(output.map((item) => item.json.status)).toEqual(['paused', 'draft']);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('puts the error string the service gives in data into the message', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: withoutRetries({ resource: 'campaign', operation: 'get', campaignId: '123e4567-e89b-12d3-a456-426614174000' }),
		});
		expect(error.message).toBe('Get Campaign failed: the service answered status "error" (error: campaign not found)');
		expect(error.description).toMatch(/Check that the Campaign ID exists/);
	});

	it('reports "unauthorized" for another company\'s campaign', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: withoutRetries({ resource: 'campaign', operation: 'get', campaignId: DEMO.otherCampaignId }),
		});
		expect(error.message).toBe('Get Campaign failed: the service answered status "error" (error: unauthorized)');
	});

	it('reports "unauthorized" for an unknown key, without the key', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials('not-a-known-key-123456'),
			parameters: withoutRetries({ resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId }),
		});
		expect(error.message).toBe('Get Campaign failed: the service answered status "error" (error: unauthorized)');
		expect(JSON.stringify(error)).not.toContain('not-a-known-key-123456');
	});
});

describe('Campaign → Get, Simplify', () => {
	const getCampaign = (extra: Record<string, unknown> = {}) => ({ resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId, ...extra });
	const record = () => sim.simulator.state.campaigns.get(DEMO.campaignId)?.record as unknown as Record<string, unknown>;

	it('simplifies by default: at most 10 fields, id, name and status first', async () => {
		const [item] = await runActionNode({ credentials: sim.credentials(), parameters: getCampaign() });
		expect(Object.keys(item.json)).toEqual([...SIMPLIFIED_CAMPAIGN_FIELDS]);
		expect(SIMPLIFIED_CAMPAIGN_FIELDS.length).toBeLessThanOrEqual(10);
		for (const field of SIMPLIFIED_CAMPAIGN_FIELDS) expect(item.json[field]).toEqual(record()[field]);
	});

	it('with Simplify off outputs every field, id, name and status first', async () => {
		const [item] = await runActionNode({ credentials: sim.credentials(), parameters: getCampaign({ simplify: false }) });
		expect(item.json).toEqual(record());
		expect(Object.keys(item.json).slice(0, 3)).toEqual(['id', 'name', 'status']);
		expect(Object.keys(item.json).sort()).toEqual(Object.keys(record()).sort());
	});
});

describeBadInputs(sim, [
	{ name: 'Get Campaign: Campaign ID with a trailing character', parameters: { resource: 'campaign', operation: 'get', campaignId: `${DEMO.campaignId}x` }, item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}`) },
	{ name: 'Get Campaign: Campaign ID without dashes', parameters: { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId.replace(/-/g, '') }, item: 0, message: new RegExp(`^Campaign ID ${UUID_MESSAGE}`) },
]);
