import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Failures, ItemResult } from './itemResults';
import { sendOnceFor } from './sentRecord';
import type { BatchedOperation, ItemUnits, OperationCall } from './types';

interface Batch<Unit> {
	number: number;
	batchKey: string;
	units: Unit[];
	/** The input item of each unit. */
	owners: number[];
	/** Each unit's place among its own item's units. */
	positions: number[];
}

/**
 * Runs a batched operation (Add to Campaign) over its prepared items: packs the units of all items into
 * batches, sends them with at most Requests in Parallel in flight, and builds one output item per input
 * item from its own answers.
 */
export async function runBatched(
	this: IExecuteFunctions,
	operation: BatchedOperation<unknown>,
	items: Array<ItemUnits<unknown> | undefined>,
	callFor: (itemIndex: number) => OperationCall,
	results: ItemResult[],
	failures: Failures,
): Promise<void> {
	const keptInputOf = (itemIndex: number) => {
		const item = items[itemIndex];
		return item ? operation.failedItemOutput(item) : {};
	};
	let batching: { batchSize: number; parallelRequests: number };
	try {
		batching = operation.batching.call(this);
		const totalUnits = items.reduce((sum, item) => sum + (item?.units.length ?? 0), 0);
		operation.checkTotal?.call(this, totalUnits);
	} catch (error) {
		// Node-wide options, read once, and the cap on the whole run: a bad value or a run over the cap
		// refuses the whole run before any request, as Request Options do.
		failures.refuseRun(error, keptInputOf);
		return;
	}
	const { batchSize, parallelRequests } = batching;
	const batches = packBatches(items, batchSize);

	// Answers per item, filled as batches come back; an item succeeds when all its units have one.
	const answers: IDataObject[][] = items.map((item) => new Array<IDataObject>(item?.units.length ?? 0));
	const batchNumbers: number[][] = items.map(() => []);
	for (const batch of batches) {
		for (const owner of new Set(batch.owners)) batchNumbers[owner].push(batch.number);
	}

	const sendOnce = sendOnceFor(this, operation);
	const sendOne = async (batch: Batch<unknown>) => {
		try {
			const batchAnswers = await sendOnce(
				`batch ${batch.number}`,
				[batch.batchKey, batch.units],
				// Its errors name the batch's first item.
				async () => await operation.sendBatch.call(this, batch.batchKey, batch.units, callFor(batch.owners[0])),
			);
			batch.owners.forEach((owner, index) => {
				answers[owner][batch.positions[index]] = batchAnswers[index];
			});
		} catch (error) {
			for (const owner of new Set(batch.owners)) {
				if (!results[owner]) failures.failItem(owner, error, keptInputOf(owner));
			}
		}
	};
	await runWithLimit(batches, parallelRequests, sendOne);

	items.forEach((item, i) => {
		if (results[i] || !item) return;
		results[i] = { output: [operation.itemOutput(item, answers[i], batchNumbers[i])] };
	});
}

/**
 * Groups units by batch key, in input order, into batches of at most `batchSize`. Items bound
 * for the same key share requests even when other keys sit between them.
 */
function packBatches<Unit>(items: Array<ItemUnits<Unit> | undefined>, batchSize: number): Array<Batch<Unit>> {
	const open = new Map<string, Batch<Unit>>();
	const batches: Array<Batch<Unit>> = [];
	items.forEach((item, itemIndex) => {
		if (!item) return;
		item.units.forEach((unit, position) => {
			let batch = open.get(item.batchKey);
			if (!batch || batch.units.length >= batchSize) {
				batch = { number: batches.length, batchKey: item.batchKey, units: [], owners: [], positions: [] };
				batches.push(batch);
				open.set(item.batchKey, batch);
			}
			batch.units.push(unit);
			batch.owners.push(itemIndex);
			batch.positions.push(position);
		});
	});
	return batches;
}

/**
 * Runs `task` over `work` with at most `limit` in flight. The first error thrown by a task
 * stops new work from starting and is rethrown once the tasks in flight have settled.
 */
async function runWithLimit<T>(work: T[], limit: number, task: (entry: T) => Promise<void>): Promise<void> {
	let next = 0;
	let firstError: unknown;
	const worker = async () => {
		while (firstError === undefined && next < work.length) {
			const entry = work[next++];
			try {
				await task(entry);
			} catch (error) {
				firstError ??= error;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, work.length)) }, worker));
	if (firstError !== undefined) throw firstError;
}
