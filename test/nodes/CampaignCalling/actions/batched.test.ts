import type { IDataObject } from 'n8n-workflow';

import { runBatched } from '../../../../nodes/CampaignCalling/actions/batched';
import type { ItemResult } from '../../../../nodes/CampaignCalling/actions/itemResults';
import { recordFailures } from '../../../../nodes/CampaignCalling/actions/itemResults';
import type { BatchedOperation, ItemUnits, OperationCall } from '../../../../nodes/CampaignCalling/actions/types';
import { executeContextFor } from '../../../helpers/n8nContext.ts';

interface Sent {
	batchKey: string;
	units: string[];
	itemIndex: number;
}

/**
 * Runs a batched operation whose units are strings over `items`: each batch's answer echoes its units,
 * and each item's output holds its answers and batch numbers. `send` may replace the answer.
 */
async function run(
	items: Array<ItemUnits<string> | undefined>,
	batching: { batchSize: number; parallelRequests: number },
	send: (sent: Sent) => Promise<void> = async () => {},
) {
	const { context } = executeContextFor({
		credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused-key' },
		parameters: { resource: 'contact', operation: 'addToCampaign' },
	});
	const sent: Sent[] = [];
	const operation: BatchedOperation<string> = {
		kind: 'batched',
		value: 'echo',
		title: 'Echo',
		name: 'Echo',
		description: 'Echoes its units',
		properties: [],
		createsOnEachSend: false,
		prepare: () => ({ batchKey: '', units: [] }),
		batching: () => batching,
		async sendBatch(batchKey, units, call) {
			const entry = { batchKey, units, itemIndex: call.itemIndex };
			sent.push(entry);
			await send(entry);
			return units.map((unit) => ({ echo: unit }));
		},
		itemOutput: (_item, answers, batchNumbers) => ({ answers, batchNumbers }),
		failedItemOutput: (item) => ({ units: item.units }),
	};
	const results: ItemResult[] = new Array(items.length);
	const callFor = (itemIndex: number): OperationCall => ({ operation: 'Echo', itemIndex, tuning: { retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0 }, timeoutMs: 1000 } });
	const outcome = runBatched.call(context, operation as BatchedOperation<unknown>, items, callFor, results, recordFailures(context, results));
	return { outcome, sent, results };
}

const item = (batchKey: string, ...units: string[]) => ({ batchKey, units });
const answersOf = (units: string[]): IDataObject[] => units.map((unit) => ({ echo: unit }));

describe('runBatched: packing', () => {
	it('fills batches per key in input order, names each by its first item, and gives each item its own answers', async () => {
		const { outcome, sent, results } = await run([item('a', 'a1', 'a2'), undefined, item('b', 'b1'), item('a', 'a3', 'a4')], { batchSize: 3, parallelRequests: 1 });
		await outcome;
		expect(sent).toEqual([
			{ batchKey: 'a', units: ['a1', 'a2', 'a3'], itemIndex: 0 },
			{ batchKey: 'b', units: ['b1'], itemIndex: 2 },
			{ batchKey: 'a', units: ['a4'], itemIndex: 3 },
		]);
		expect(results[0]).toEqual({ output: [{ answers: answersOf(['a1', 'a2']), batchNumbers: [0] }] });
		expect(results[1]).toBeUndefined();
		expect(results[2]).toEqual({ output: [{ answers: answersOf(['b1']), batchNumbers: [1] }] });
		expect(results[3]).toEqual({ output: [{ answers: answersOf(['a3', 'a4']), batchNumbers: [0, 2] }] });
	});

	it('sends nothing for items without units, and still gives them an output item', async () => {
		const { outcome, sent, results } = await run([item('a'), undefined], { batchSize: 10, parallelRequests: 1 });
		await outcome;
		expect(sent).toEqual([]);
		expect(results[0]).toEqual({ output: [{ answers: [], batchNumbers: [] }] });
	});
});

describe('runBatched: Requests in Parallel', () => {
	it('keeps at most that many batches in flight', async () => {
		let inFlight = 0;
		let most = 0;
		const { outcome, sent } = await run([item('a', '1', '2', '3', '4', '5', '6', '7')], { batchSize: 1, parallelRequests: 3 }, async () => {
			inFlight++;
			most = Math.max(most, inFlight);
			await new Promise((resolve) => setImmediate(resolve));
			inFlight--;
		});
		await outcome;
		expect(most).toBe(3);
		expect(sent.map((entry) => entry.units[0]).sort()).toEqual(['1', '2', '3', '4', '5', '6', '7']);
	});

	it('starts no batch after a failure and, without Continue On Fail, throws the first failure once the batches in flight settled', async () => {
		const settled: string[] = [];
		const { outcome, sent } = await run([item('a', '1', '2', '3', '4', '5')], { batchSize: 1, parallelRequests: 2 }, async ({ units }) => {
			await new Promise((resolve) => setImmediate(resolve));
			settled.push(units[0]);
			if (units[0] === '1') throw new Error('first');
			if (units[0] === '2') throw new Error('second');
		});
		await expect(outcome).rejects.toThrow('first');
		expect(sent.map((entry) => entry.units[0])).toEqual(['1', '2']);
		expect(settled).toEqual(['1', '2']);
	});

	it('treats a limit below 1 as 1', async () => {
		const { outcome, sent } = await run([item('a', '1', '2')], { batchSize: 1, parallelRequests: 0 });
		await outcome;
		expect(sent.map((entry) => entry.units)).toEqual([['1'], ['2']]);
	});
});
