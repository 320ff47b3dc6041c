/** The refusal of a parameter or input value, before any request: InvalidInputError and its n8n error. */
import { InvalidInputError, refusedInputError } from '../../../../nodes/shared/transport/failures';

describe('InvalidInputError', () => {
	it('starts its message with the field and keeps the hint apart', () => {
		const error = new InvalidInputError('Campaign ID', 'is empty', 'Enter it');
		expect(error.message).toBe('Campaign ID is empty');
		expect(error.hint).toBe('Enter it');
		expect(error.name).toBe('InvalidInputError');
	});
});

describe('refusedInputError', () => {
	const node = { id: 'n', name: 'Campaign Calling', type: 'n8n-nodes-campaign-calling.campaignCalling', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };

	it('names the item when there is one, and no item for a refusal of the whole node (the editor\'s list)', () => {
		const refused = new InvalidInputError('Campaign ID', 'is empty', 'Enter it');
		expect(refusedInputError(node, refused, 3)).toMatchObject({ message: 'Campaign ID is empty [item 3]', description: 'Enter it', context: { itemIndex: 3 } });
		expect(refusedInputError(node, refused).message).toBe('Campaign ID is empty');
	});
});
