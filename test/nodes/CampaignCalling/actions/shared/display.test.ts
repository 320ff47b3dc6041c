import { forOperation } from '../../../../../nodes/CampaignCalling/actions/shared/display';

describe('forOperation', () => {
	it('shows each property for its resource and operation only, keeping its own conditions', () => {
		const [plain, conditional] = forOperation('contact', 'addToCampaign', [
			{ displayName: 'A', name: 'a', type: 'string', default: '' },
			{ displayName: 'B', name: 'b', type: 'string', default: '', displayOptions: { show: { inputMode: ['fields'] }, hide: { x: [1] } } },
		]);
		expect(plain.displayOptions).toEqual({ show: { resource: ['contact'], operation: ['addToCampaign'] } });
		expect(conditional.displayOptions).toEqual({
			show: { inputMode: ['fields'], resource: ['contact'], operation: ['addToCampaign'] },
			hide: { x: [1] },
		});
	});
});
