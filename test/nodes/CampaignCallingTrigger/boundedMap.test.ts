/** The bounded map every map the trigger keeps in the n8n process is (boundedMap.ts). */
import { BoundedMap } from '../../../nodes/CampaignCallingTrigger/boundedMap';

afterEach(() => jest.useRealTimers());

describe('a bounded map', () => {
	it('forgets its oldest entry first past its size limit; setting a key again makes it the newest', () => {
		const deleted: string[] = [];
		const map = new BoundedMap<string, number>(2, Infinity, (key) => deleted.push(key));
		map.set('a', 1);
		map.set('b', 2);
		map.set('a', 3);
		map.set('c', 4);
		expect([map.get('a'), map.get('b'), map.get('c'), map.size, map.oldestKey()]).toEqual([3, undefined, 4, 2, 'a']);
		expect(deleted).toEqual(['b']);
	});

	it('drops an entry once its lifetime from `since` has passed, and tells onDelete', () => {
		jest.useFakeTimers({ now: 1_000_000 });
		const deleted: string[] = [];
		const map = new BoundedMap<string, number>(10, 1000, (key) => deleted.push(key));
		map.set('default', 1);
		map.set('own', 2, Date.now() - 500, 2000);
		jest.advanceTimersByTime(999);
		expect([map.get('default'), map.get('own')]).toEqual([1, 2]);
		jest.advanceTimersByTime(1);
		expect([map.get('default'), map.get('own'), map.size]).toEqual([undefined, 2, 1]);
		jest.advanceTimersByTime(499);
		expect(map.get('own')).toBe(2);
		jest.advanceTimersByTime(1);
		expect(map.get('own')).toBeUndefined();
		expect(deleted).toEqual(['default', 'own']);
	});
});
