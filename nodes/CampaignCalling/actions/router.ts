import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as campaign from './campaign';
import * as contact from './contact';
import * as integration from './integration';
import { tuneRequests } from '../../shared/transport';
import { ParameterReader } from './shared/parameters';
import { readRequestTuning } from './shared/requestOptions';
import { InvalidInputError } from '../../shared/validation';
import { sendOnceFor } from './sentRecord';
import type { BatchedOperation, BatchShare, PerItemOperation } from './types';
import * as webhookFlow from './webhookFlow';
import * as webhookModule from './webhookModule';

// The registry holds operations of different unit types; each is typed where it is defined.
type AnyOperation = PerItemOperation<unknown> | BatchedOperation<unknown>;

const operations: Record<string, Record<string, AnyOperation>> = {
	contact: {
		addToCampaign: contact.addToCampaign.operation as AnyOperation,
		get: contact.get.operation as AnyOperation,
	},
	campaign: {
		get: campaign.get.operation as AnyOperation,
		update: campaign.update.operation as AnyOperation,
	},
	webhookFlow: {
		getAll: webhookFlow.getAll.operation as AnyOperation,
	},
	integration: {
		create: integration.create.operation as AnyOperation,
	},
	webhookModule: {
		create: webhookModule.create.operation as AnyOperation,
	},
};

/** Per input item: its output items, or the error that replaced them. */
type ItemResult = { output: IDataObject[] } | { error: Error; keep: IDataObject };

/**
 * From this node version on, error items can leave on n8n's error output, and a refusal of the whole
 * run gives error items under Continue On Fail. Earlier versions keep their outputs exactly.
 */
const ERROR_ITEMS_FROM_VERSION = 3;

/**
 * Records why an item failed, or throws when the run must stop. `refuseRun` is for a refusal that
 * covers every item (a node-wide option, a cap on the run): nothing is sent for any item.
 */
interface Failures {
	failItem(itemIndex: number, error: unknown, keep?: IDataObject): void;
	refuseRun(error: unknown, keepOf?: (itemIndex: number) => IDataObject): void;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];

	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}

	const params = new ParameterReader(this);
	const node = this.getNode();
	const errorItemsVersion = node.typeVersion >= ERROR_ITEMS_FROM_VERSION;
	const continueOnFail = this.continueOnFail();
	const results: ItemResult[] = new Array(items.length);

	const failures: Failures = {
		failItem: (itemIndex, error, keep = {}) => {
			const nodeError = toNodeError.call(this, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			results[itemIndex] = { error: nodeError, keep };
		},
		refuseRun: (error, keepOf = () => ({})) => {
			const nodeError = toNodeError.call(this, error, 0);
			// Before 3 a refused run throws even under Continue On Fail, and n8n then passes the input
			// items on as success output; 3 marks every item failed, so none passes as if it was sent.
			if (!continueOnFail || !errorItemsVersion) throw nodeError;
			for (let i = 0; i < results.length; i++) {
				// An item that failed on its own keeps its own, more specific, error.
				if (!results[i]) results[i] = { error: nodeError, keep: keepOf(i) };
			}
		},
	};

	let tuned = false;
	try {
		tuneRequests(this, readRequestTuning(params));
		tuned = true;
	} catch (error) {
		failures.refuseRun(error);
	}
	if (tuned) {
		if (operation.kind === 'perItem') await runPerItem.call(this, operation, items.length, params, results, failures);
		else await runBatched.call(this, operation, items.length, params, results, failures);
	}

	const toErrorOutput = errorItemsVersion && node.onError === 'continueErrorOutput';
	const returnData: INodeExecutionData[] = [];
	for (let i = 0; i < results.length; i++) {
		const result = results[i];
		if ('error' in result) {
			const json = toErrorOutput ? errorOutputJson(result.error) : errorItemJson(result.error, result.keep);
			returnData.push({ json, pairedItem: { item: i } });
			continue;
		}
		for (const json of result.output) returnData.push({ json, pairedItem: { item: i } });
	}
	return [returnData];
}

function errorDescription(error: Error): string | undefined {
	const description = (error as { description?: unknown }).description;
	return typeof description === 'string' && description !== '' ? description : undefined;
}

/** An error item for the success output (Continue (regular output), and every version before 3). */
function errorItemJson(error: Error, keep: IDataObject): IDataObject {
	const json: IDataObject = { error: error.message, ...keep };
	const description = errorDescription(error);
	if (description !== undefined) json.errorDescription = description;
	return json;
}

/**
 * An error item for n8n's error output. n8n moves an item there only when its json is `error` alone or
 * `error` with `message` (n8n-core WorkflowExecute.handleNodeErrorOutput: 1.123.81 takes exactly those;
 * 2.41.1 also takes `details`), so the hint goes in `message` and nothing else is added: n8n itself
 * adds the input item's fields, found through pairedItem.
 */
function errorOutputJson(error: Error): IDataObject {
	const description = errorDescription(error);
	return description === undefined ? { error: error.message } : { error: error.message, message: description };
}

async function runPerItem(
	this: IExecuteFunctions,
	operation: PerItemOperation<unknown>,
	itemCount: number,
	params: ParameterReader,
	results: ItemResult[],
	failures: Failures,
): Promise<void> {
	const prepared: unknown[] = new Array(itemCount);
	// Every item is checked before the first request, so bad input never half-runs.
	for (let i = 0; i < itemCount; i++) {
		try {
			prepared[i] = operation.prepare.call(this, i, params);
		} catch (error) {
			failures.failItem(i, error);
		}
	}
	const sendOnce = sendOnceFor(this, operation);
	for (let i = 0; i < itemCount; i++) {
		if (results[i]) continue;
		try {
			const answer = await sendOnce(`item ${i}`, prepared[i], async () => await operation.send.call(this, prepared[i], i));
			results[i] = { output: Array.isArray(answer) ? answer : [answer] };
		} catch (error) {
			failures.failItem(i, error);
		}
	}
}

interface Batch<Unit> {
	number: number;
	batchKey: string;
	units: Unit[];
	/** The input item of each unit. */
	owners: number[];
	/** Each unit's place among its own item's units. */
	positions: number[];
}

async function runBatched(
	this: IExecuteFunctions,
	operation: BatchedOperation<unknown>,
	itemCount: number,
	params: ParameterReader,
	results: ItemResult[],
	failures: Failures,
): Promise<void> {
	const shares: Array<BatchShare<unknown> | undefined> = new Array(itemCount);
	for (let i = 0; i < itemCount; i++) {
		try {
			shares[i] = operation.prepare.call(this, i, params);
		} catch (error) {
			failures.failItem(i, error);
		}
	}
	const keepOf = (itemIndex: number) => {
		const share = shares[itemIndex];
		return share ? operation.failedItemOutput(share) : {};
	};
	let batching: { batchSize: number; parallelRequests: number };
	try {
		batching = operation.batching.call(this, params);
		const totalUnits = shares.reduce((sum, share) => sum + (share?.units.length ?? 0), 0);
		operation.checkTotal?.call(this, totalUnits, params);
	} catch (error) {
		// Node-wide options, read once, and the cap on the whole run: a bad value or a run over the cap
		// refuses the whole run before any request, as Request Options do.
		failures.refuseRun(error, keepOf);
		return;
	}
	const { batchSize, parallelRequests } = batching;
	const batches = packBatches(shares, batchSize);

	// Answers per item, filled as batches come back; an item succeeds when all its units have one.
	const answers: IDataObject[][] = shares.map((share) => new Array<IDataObject>(share?.units.length ?? 0));
	const batchNumbers: number[][] = shares.map(() => []);
	for (const batch of batches) {
		for (const owner of new Set(batch.owners)) batchNumbers[owner].push(batch.number);
	}

	const sendOnce = sendOnceFor(this, operation);
	const sendOne = async (batch: Batch<unknown>) => {
		try {
			const batchAnswers = await sendOnce(
				`batch ${batch.number}`,
				[batch.batchKey, batch.units],
				async () => await operation.sendBatch.call(this, batch.batchKey, batch.units, batch.owners[0]),
			);
			batch.owners.forEach((owner, index) => {
				answers[owner][batch.positions[index]] = batchAnswers[index];
			});
		} catch (error) {
			for (const owner of new Set(batch.owners)) {
				if (!results[owner]) failures.failItem(owner, error, keepOf(owner));
			}
		}
	};
	await runWithLimit(batches, parallelRequests, sendOne);

	for (let i = 0; i < itemCount; i++) {
		const share = shares[i];
		if (results[i] || !share) continue;
		results[i] = { output: [operation.itemOutput(share, answers[i], batchNumbers[i])] };
	}
}

/**
 * Groups units by batch key, in input order, into batches of at most `batchSize`. Items bound
 * for the same key share requests even when other keys sit between them.
 */
export function packBatches<Unit>(shares: Array<BatchShare<Unit> | undefined>, batchSize: number): Array<Batch<Unit>> {
	const open = new Map<string, Batch<Unit>>();
	const batches: Array<Batch<Unit>> = [];
	shares.forEach((share, itemIndex) => {
		if (!share) return;
		share.units.forEach((unit, position) => {
			let batch = open.get(share.batchKey);
			if (!batch || batch.units.length >= batchSize) {
				batch = { number: batches.length, batchKey: share.batchKey, units: [], owners: [], positions: [] };
				batches.push(batch);
				open.set(share.batchKey, batch);
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
export async function runWithLimit<T>(work: T[], limit: number, task: (entry: T) => Promise<void>): Promise<void> {
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

function toNodeError(this: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof InvalidInputError) {
		return new NodeOperationError(this.getNode(), `${error.message} [item ${itemIndex}]`, {
			itemIndex,
			description: error.hint,
		});
	}
	return new NodeOperationError(this.getNode(), error as Error, { itemIndex });
}
