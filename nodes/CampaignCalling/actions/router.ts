import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InvalidInputError, refusedInputError } from '../../shared/validation';
import type { Resource } from './resource';
import { readRequestOptions } from './shared/requestOptions';
import type { Failures, ItemResult } from './types';

/** Runs the node's operation over all items: every item prepared before the first request, then one request each, or the operation's own batches. */
export async function router(this: IExecuteFunctions, resources: Resource[]): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];

	const resourceValue = this.getNodeParameter('resource', 0) as string;
	const operationValue = this.getNodeParameter('operation', 0) as string;
	const operation = resources
		.find((resource) => resource.value === resourceValue)
		?.operations.find((candidate) => candidate.value === operationValue);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationValue}" of "${resourceValue}" is not supported`);
	}

	const results: ItemResult[] = new Array(items.length);
	const failures = recordFailures(this, results);
	let request;
	try {
		request = { operation: operation.title, ...readRequestOptions(this) };
	} catch (error) {
		failures.refuseRun(error);
		return [toOutputItems(this, results)];
	}

	// An item that fails here has no prepared entry: bad input never half-runs.
	const prepared: unknown[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			prepared[i] = operation.prepare.call(this, i);
		} catch (error) {
			failures.failItem(i, error);
		}
	}

	if (operation.kind === 'batched') {
		await operation.sendAll.call(this, prepared, request, results, failures);
	} else {
		for (let i = 0; i < items.length; i++) {
			if (results[i]) continue;
			const sendOnceAs = operation.createsOnEachSend ? `item ${i}` : undefined;
			try {
				const answer = await operation.send.call(this, prepared[i], { ...request, itemIndex: i, sendOnceAs });
				results[i] = { output: Array.isArray(answer) ? answer : [answer] };
			} catch (error) {
				failures.failItem(i, error);
			}
		}
	}
	return [toOutputItems(this, results)];
}

/** Failures written into `results`: without Continue On Fail, the first one throws. */
export function recordFailures(ctx: IExecuteFunctions, results: ItemResult[]): Failures {
	const continueOnFail = ctx.continueOnFail();
	return {
		failItem: (itemIndex, error, keptInput = {}) => {
			const nodeError = toNodeError(ctx, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			results[itemIndex] = { error: nodeError, keptInput };
		},
		refuseRun: (error, keptInput = () => ({})) => {
			const nodeError = toNodeError(ctx, error, 0);
			if (!continueOnFail) throw nodeError;
			// Every item is marked failed, so none passes on as if it had been sent.
			for (let i = 0; i < results.length; i++) {
				// An item that failed on its own keeps its own, more specific, error.
				if (!results[i]) results[i] = { error: nodeError, keptInput: keptInput(i) };
			}
		},
	};
}

/** One output item per record, and one error item per failed input item, each paired to its input. */
export function toOutputItems(ctx: IExecuteFunctions, results: ItemResult[]): INodeExecutionData[] {
	const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
	const returnData: INodeExecutionData[] = [];
	for (let i = 0; i < results.length; i++) {
		const result = results[i];
		const records =
			'error' in result ? [toErrorOutput ? errorOutputJson(result.error) : errorItemJson(result.error, result.keptInput)] : result.output;
		// Not returnJsonArray: it would take a service record that has a `json` field for an item.
		const items = records.map((json) => ({ json }));
		returnData.push(...ctx.helpers.constructExecutionMetaData(items, { itemData: { item: i } }));
	}
	return returnData;
}

function errorDescription(error: Error): string | undefined {
	const description = (error as { description?: unknown }).description;
	return typeof description === 'string' && description !== '' ? description : undefined;
}

/** An error item for the success output (Continue (regular output)). */
function errorItemJson(error: Error, keptInput: IDataObject): IDataObject {
	const json: IDataObject = { error: error.message, ...keptInput };
	const description = errorDescription(error);
	if (description !== undefined) json.errorDescription = description;
	return json;
}

/** An error item for n8n's error output: `error` and `message` only, the one shape n8n moves there (ARCHITECTURE.md). */
function errorOutputJson(error: Error): IDataObject {
	const description = errorDescription(error);
	return description === undefined ? { error: error.message } : { error: error.message, message: description };
}

function toNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof InvalidInputError) return refusedInputError(ctx.getNode(), error, itemIndex);
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
