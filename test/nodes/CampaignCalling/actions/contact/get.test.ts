import { runActionNode, runActionNodeExpectingError } from '../../../../helpers/n8nContext.ts';
import { DEMO, useSimulator, withoutRetries } from '../../../../helpers/kit.ts';
import { describeBadInputs, itemsWith, UUID_MESSAGE } from '../../../../helpers/badInputs.ts';

const sim = useSimulator();

describe('Contact → Get', () => {
	it('reads each item\'s contact by GET /contacts/{id} and outputs the Contact object', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { id: DEMO.completedContactId } }, { json: { id: DEMO.neverCalledContactId } }],
			parameters: { resource: 'contact', operation: 'get', contactId: '={{ $json.id }}', simplify: false },
		});
		expect(sim.requests().map((request) => `${request.method} ${request.path}`)).toEqual([
			`GET /contacts/${DEMO.completedContactId}`,
			`GET /contacts/${DEMO.neverCalledContactId}`,
		]);
		expect(sim.requests()[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		expect(sim.requests()[0].body).toBeUndefined();
		expect(output).toHaveLength(2);
		expect(output[0].json).toEqual(sim.simulator.state.contacts.get(DEMO.completedContactId));
		expect(output[0].json).toEqual(
			expect.objectContaining({
				id: DEMO.completedContactId,
				last_call_status: 'completed',
				last_call_duration: 184,
				last_call_feedback: 'Interested in a viewing next Tuesday afternoon.',
			}),
		);
		expect(output[1].json.last_call_status).toBeNull();
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('accepts a JWT and a Contact ID with spaces around it', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(DEMO.jwt),
			parameters: { resource: 'contact', operation: 'get', contactId: `  ${DEMO.unassignedContactId} ` },
		});
		expect(sim.requests()[0].path).toBe(`/contacts/${DEMO.unassignedContactId}`);
		expect(output[0].json.campaign_id).toBeNull();
	});

	it('fails with the service\'s answer when the contact belongs to another company', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: withoutRetries({ resource: 'contact', operation: 'get', contactId: DEMO.otherContactId }),
		});
		expect(error.message).toBe('Get Contact failed: the service answered status "error" (error)');
		expect(error.description).toMatch(/does not exist or belongs to another company/);
		expect(sim.requests()).toHaveLength(1);
	});

	it('fails the same way for a contact that does not exist', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: withoutRetries({ resource: 'contact', operation: 'get', contactId: '123e4567-e89b-12d3-a456-426614174000' }),
		});
		expect(error.message).toBe('Get Contact failed: the service answered status "error" (error)');
		expect(error.context?.itemIndex).toBe(0);
	});
});

describe('Contact → Get, Simplify', () => {
	const getContact = (extra: Record<string, unknown> = {}) => ({ resource: 'contact', operation: 'get', contactId: DEMO.completedContactId, ...extra });
	const record = () => sim.simulator.state.contacts.get(DEMO.completedContactId) as unknown as Record<string, unknown>;

	it('simplifies by default: the contact, its campaign and its last call, id and names first', async () => {
		const [item] = await runActionNode({ credentials: sim.credentials(), parameters: getContact() });
		expect(Object.keys(item.json)).toEqual(['id', 'firstname', 'lastname', 'phone_number', 'campaign_id', 'last_call_status', 'last_call_at', 'last_call_duration', 'last_call_feedback', 'metadata']);
		expect(item.json).toEqual(expect.objectContaining({ id: DEMO.completedContactId, last_call_status: 'completed', last_call_duration: 184 }));
	});

	it('with Simplify off keeps every field, id and names first', async () => {
		const [item] = await runActionNode({ credentials: sim.credentials(), parameters: getContact({ simplify: false }) });
		expect(item.json).toEqual(record());
		expect(Object.keys(item.json).slice(0, 4)).toEqual(['id', 'firstname', 'lastname', 'status']);
	});
});

describeBadInputs(sim, [
	{ name: 'Get Contact: Contact ID one character short', parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId.slice(1) }, item: 0, message: new RegExp(`^Contact ID ${UUID_MESSAGE}`) },
	{ name: 'Get Contact: empty Contact ID', parameters: { resource: 'contact', operation: 'get', contactId: ' ' }, item: 0, message: /^Contact ID is empty/ },
	{
		name: 'Get Contact: Contact ID with a character outside hex, item 1',
		parameters: { resource: 'contact', operation: 'get', contactId: '={{ $json.v }}' },
		items: itemsWith(DEMO.completedContactId, 'g0000000-0000-4000-8000-000000000002', 1),
		item: 1,
		message: new RegExp(`^Contact ID ${UUID_MESSAGE}`),
	},
]);
