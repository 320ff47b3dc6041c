/** Ignore Repeats' key cache (inFlight.ts): its bounds, its order and its lifetime. */
type KeyCache = typeof import('../../../nodes/CampaignCallingTrigger/inFlight');

let ageCachedKeys: KeyCache['ageCachedKeys'];
let cacheRecordedKeys: KeyCache['cacheRecordedKeys'];
let isRecordedRepeat: KeyCache['isRecordedRepeat'];

// Each test starts from an empty cache, as a process does: one test's keys must not decide another's evictions.
beforeEach(() => {
	jest.isolateModules(() => {
		({ ageCachedKeys, cacheRecordedKeys, isRecordedRepeat } = require('../../../nodes/CampaignCallingTrigger/inFlight') as KeyCache);
	});
});
afterEach(() => jest.useRealTimers());

/** One key each for `count` triggers that cache after the ones a test set up. */
function fillWithOneKeyTriggers(count: number, name = 'one-key'): void {
	for (let trigger = 0; trigger < count; trigger++) cacheRecordedKeys(`${name}-workflow-${trigger}:node`, ['k']);
}

/** The cache's bounds, as docs/trigger-reference.md states them ("Ignoring repeated deliveries in detail"). */
const CACHED_KEYS_PER_TRIGGER = 5_000;
const MAX_CACHED_KEYS = 50_000;
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;

describe('the keys a process caches', () => {
	it(`are bounded across all triggers (${MAX_CACHED_KEYS.toLocaleString('en-US')}), so a deactivated or deleted trigger's keys age out`, () => {
		cacheRecordedKeys('deleted-workflow:node', ['gone']);
		const busyTriggers = MAX_CACHED_KEYS / CACHED_KEYS_PER_TRIGGER;
		for (let trigger = 0; trigger < busyTriggers; trigger++) {
			cacheRecordedKeys(`busy-workflow-${trigger}:node`, Array.from({ length: CACHED_KEYS_PER_TRIGGER }, (_, index) => `key-${index}`));
		}
		expect(isRecordedRepeat('deleted-workflow:node', 'gone')).toBe(false);
		expect(isRecordedRepeat('busy-workflow-0:node', 'key-0')).toBe(true);
		expect(isRecordedRepeat(`busy-workflow-${busyTriggers - 1}:node`, `key-${CACHED_KEYS_PER_TRIGGER - 1}`)).toBe(true);
	});

	it('leave the bound over all triggers as a trigger\'s own bound pushes its keys out, so other triggers\' keys stay', () => {
		cacheRecordedKeys('quiet-workflow:node', ['kept']);
		// Twice its share: the first half leaves the trigger, and must leave the bound over all triggers too.
		cacheRecordedKeys('chatty-workflow:node', Array.from({ length: 2 * CACHED_KEYS_PER_TRIGGER }, (_, index) => `key-${index}`));
		const othersToFillTheBound = (MAX_CACHED_KEYS - 2 * CACHED_KEYS_PER_TRIGGER) / CACHED_KEYS_PER_TRIGGER;
		for (let trigger = 0; trigger < othersToFillTheBound; trigger++) {
			cacheRecordedKeys(`other-workflow-${trigger}:node`, Array.from({ length: CACHED_KEYS_PER_TRIGGER }, (_, index) => `key-${index}`));
		}
		expect(isRecordedRepeat('quiet-workflow:node', 'kept')).toBe(true);
	});

	it('leave the bound over all triggers as a trigger\'s last key goes, and its place to no one: past the bound, the trigger that cached longest ago loses its oldest key', () => {
		cacheRecordedKeys('emptied-workflow:node', ['aged']);
		cacheRecordedKeys('first-workflow:node', ['kept']);
		ageCachedKeys('emptied-workflow:node', 1);
		fillWithOneKeyTriggers(MAX_CACHED_KEYS - 1);
		expect(isRecordedRepeat('first-workflow:node', 'kept')).toBe(true);
		fillWithOneKeyTriggers(1, 'past-the-bound');
		expect(isRecordedRepeat('first-workflow:node', 'kept')).toBe(false);
	});

	it('put the trigger that cached last at the end: past the bound, a trigger that cached again keeps its keys and one that did not loses one', () => {
		cacheRecordedKeys('again-workflow:node', ['a-1']);
		cacheRecordedKeys('once-workflow:node', ['b-1']);
		cacheRecordedKeys('again-workflow:node', ['a-2']);
		fillWithOneKeyTriggers(MAX_CACHED_KEYS - 3 + 1);
		expect([isRecordedRepeat('again-workflow:node', 'a-1'), isRecordedRepeat('once-workflow:node', 'b-1')]).toEqual([true, false]);
	});

	it('lose the first recorded first, as n8n\'s store does: a key cached again keeps its place', () => {
		cacheRecordedKeys('fifo:node', ['first']);
		for (let index = 1; index < CACHED_KEYS_PER_TRIGGER; index++) cacheRecordedKeys('fifo:node', [`k-${index}`]);
		cacheRecordedKeys('fifo:node', ['first']);
		cacheRecordedKeys('fifo:node', ['one-more']);
		expect([isRecordedRepeat('fifo:node', 'first'), isRecordedRepeat('fifo:node', 'k-1'), isRecordedRepeat('fifo:node', 'one-more')]).toEqual([false, true, true]);
	});

	it('cost each delivery work in proportion to its own keys, not to the keys remembered', () => {
		// Counted in Map operations: a delivery of one key does a handful, whether 1 or 5,000 keys are cached (the trigger's share full, so one is evicted).
		const operations = (cached: number) => {
			cacheRecordedKeys('counted:node', Array.from({ length: cached }, (_, index) => `k-${cached}-${index}`));
			const spies = [jest.spyOn(Map.prototype, 'get'), jest.spyOn(Map.prototype, 'has'), jest.spyOn(Map.prototype, 'set'), jest.spyOn(Map.prototype, 'delete'), jest.spyOn(Map.prototype, 'keys')];
			isRecordedRepeat('counted:node', `new-${cached}`);
			cacheRecordedKeys('counted:node', [`new-${cached}`]);
			const count = spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
			spies.forEach((spy) => spy.mockRestore());
			return count;
		};
		expect(operations(1)).toBeLessThanOrEqual(16);
		expect(operations(CACHED_KEYS_PER_TRIGGER)).toBeLessThanOrEqual(16);
	});

	it('a delivery found in the store ages the cached keys: 5,000 keys handed to executions here, cached or not, push the oldest out', () => {
		cacheRecordedKeys('aging:node', ['oldest', 'next']);
		ageCachedKeys('aging:node', 1);
		expect([isRecordedRepeat('aging:node', 'oldest'), isRecordedRepeat('aging:node', 'next'), isRecordedRepeat('aging:node', 'found-in-store')]).toEqual([false, true, false]);
	});
});

describe('the keys a process caches, in time', () => {
	it('count a key cached again from its first caching, as n8n\'s store keeps its first record', () => {
		jest.useFakeTimers({ now: 5_000_000 });
		cacheRecordedKeys('recached:node', ['k']);
		jest.advanceTimersByTime(CACHED_KEY_LIFETIME_MS - 1);
		cacheRecordedKeys('recached:node', ['k']);
		jest.advanceTimersByTime(1);
		expect(isRecordedRepeat('recached:node', 'k')).toBe(false);
	});

	it('forget a key past its lifetime when it is read, so caching it again puts it last among its trigger\'s keys', () => {
		jest.useFakeTimers({ now: 5_000_000 });
		cacheRecordedKeys('expired:node', ['old']);
		jest.advanceTimersByTime(CACHED_KEY_LIFETIME_MS);
		cacheRecordedKeys('expired:node', Array.from({ length: CACHED_KEYS_PER_TRIGGER - 1 }, (_, index) => `k-${index + 1}`));
		cacheRecordedKeys('expired:node', ['old']);
		cacheRecordedKeys('expired:node', ['one-more']);
		expect([isRecordedRepeat('expired:node', 'old'), isRecordedRepeat('expired:node', 'k-1')]).toEqual([true, false]);
	});

	it(`keep a key ${CACHED_KEY_LIFETIME_MS / 60_000} minutes`, () => {
		jest.useFakeTimers({ now: 5_000_000 });
		cacheRecordedKeys('aged:node', ['k']);
		jest.advanceTimersByTime(CACHED_KEY_LIFETIME_MS - 1);
		expect(isRecordedRepeat('aged:node', 'k')).toBe(true);
		jest.advanceTimersByTime(1);
		expect(isRecordedRepeat('aged:node', 'k')).toBe(false);
	});
});
