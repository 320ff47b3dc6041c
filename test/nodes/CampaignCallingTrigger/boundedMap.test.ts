import { BoundedMap } from '../../../nodes/CampaignCallingTrigger/boundedMap';

describe('a bounded map', () => {
	it('forgets its oldest entry first past its size limit; setting a key again makes it the newest', () => {
		const map = new BoundedMap<string, number>(2);
		map.set('a', 1);
		map.set('b', 2);
		map.set('a', 3);
		map.set('c', 4);
		expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
	});
});
