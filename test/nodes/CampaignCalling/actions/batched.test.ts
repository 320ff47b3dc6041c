import { packBatches, runWithLimit } from '../../../../nodes/CampaignCalling/actions/batched';

describe('packBatches', () => {
	const share = (batchKey: string, ...units: string[]) => ({ batchKey, units });

	it('fills batches per key in input order and records the owner and place of every unit', () => {
		const batches = packBatches([share('a', 'a1', 'a2'), undefined, share('b', 'b1'), share('a', 'a3', 'a4')], 3);
		expect(batches).toEqual([
			{ number: 0, batchKey: 'a', units: ['a1', 'a2', 'a3'], owners: [0, 0, 3], positions: [0, 1, 0] },
			{ number: 1, batchKey: 'b', units: ['b1'], owners: [2], positions: [0] },
			{ number: 2, batchKey: 'a', units: ['a4'], owners: [3], positions: [1] },
		]);
	});

	it('makes no batch for items without units', () => {
		expect(packBatches([share('a'), undefined], 10)).toEqual([]);
	});
});

describe('runWithLimit', () => {
	it('runs every entry with at most `limit` in flight', async () => {
		let inFlight = 0;
		let most = 0;
		const done: number[] = [];
		await runWithLimit([1, 2, 3, 4, 5, 6, 7], 3, async (entry) => {
			inFlight++;
			most = Math.max(most, inFlight);
			await new Promise((resolve) => setImmediate(resolve));
			done.push(entry);
			inFlight--;
		});
		expect(most).toBe(3);
		expect([...done].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
	});

	it('starts no new work after an error and rethrows the first error once the work in flight settled', async () => {
		const started: number[] = [];
		const settled: number[] = [];
		const run = runWithLimit([1, 2, 3, 4, 5], 2, async (entry) => {
			started.push(entry);
			await new Promise((resolve) => setImmediate(resolve));
			settled.push(entry);
			if (entry === 1) throw new Error('first');
			if (entry === 2) throw new Error('second');
		});
		await expect(run).rejects.toThrow('first');
		expect(started).toEqual([1, 2]);
		expect(settled).toEqual([1, 2]);
	});

	it('does nothing for no work, and treats a limit below 1 as 1', async () => {
		const seen: number[] = [];
		await runWithLimit([], 3, async () => {
			seen.push(0);
		});
		await runWithLimit([1, 2], 0, async (entry) => {
			seen.push(entry);
		});
		expect(seen).toEqual([1, 2]);
	});
});
