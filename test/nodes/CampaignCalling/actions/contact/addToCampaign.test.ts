import { DEMO, startSimulator, type Simulator } from '../../../../simulator/server.ts';
import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());
beforeEach(() => simulator.reset());

const credentials = () => ({ baseUrl: simulator.url, apiKey: DEMO.apiKey });
const addPath = (id: string) => `/compaign/v1/contacts/addToCampaign/${id}`;

function leads(count: number) {
	return Array.from({ length: count }, (_, i) => ({
		json: { first: `Lead${i}`, last: 'Doe', phone: `+1415555${String(i).padStart(4, '0')}` },
	}));
}

describe('Contact → Add to Campaign', () => {
	it('sends 250 mapped items in ceil(250 / 100) = 3 requests, one output item per input item', async () => {
		const output = await runActionNode({
			credentials: credentials(),
			items: leads(250),
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				firstName: '={{ $json.first }}',
				lastName: '={{ $json.last }}',
				phoneNumber: '={{ $json.phone }}',
			},
		});
		const posts = simulator.requests.filter((request) => request.path.startsWith('/compaign/'));
		expect(posts).toHaveLength(3);
		expect(posts.map((request) => (request.body as unknown[]).length)).toEqual([100, 100, 50]);
		expect(output).toHaveLength(250);
		output.forEach((item, index) => expect(item.pairedItem).toEqual({ item: index }));
		expect(output[7].json.contact).toEqual({ firstname: 'Lead7', lastname: 'Doe', phone_number: '+14155550007' });
		expect(output[7].json.result).toEqual(expect.objectContaining({ phone_number: '+14155550007', campaign_id: DEMO.campaignId }));
		expect(output[249].json.batch).toBe(2);
	});

	it('fails on a bad item before sending anything, naming the item and the field', async () => {
		const items = leads(3);
		items[1].json.phone = 'call me maybe';
		const error = await runActionNodeExpectingError({
			credentials: credentials(),
			items,
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				firstName: '={{ $json.first }}',
				lastName: '={{ $json.last }}',
				phoneNumber: '={{ $json.phone }}',
			},
		});
		expect(error.message).toMatch(/Phone Number.*\[item 1\]/);
		expect(simulator.requests).toHaveLength(0);
	});

	it('turns the service\'s error envelope into an error naming the operation, without the key', async () => {
		const error = await runActionNodeExpectingError({
			credentials: credentials(),
			items: [{ json: { firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550100' } }],
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.otherCampaignId,
				inputMode: 'autoMap',
			},
		});
		expect(error.message).toMatch(/^Add Contacts failed: the service answered status "error"/);
		expect(JSON.stringify(error)).not.toContain(DEMO.apiKey);
		expect(simulator.requests.map((request) => request.path)).toEqual([addPath(DEMO.otherCampaignId)]);
	});
});
