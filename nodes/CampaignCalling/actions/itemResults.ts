import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InvalidInputError, refusedInputError } from '../../shared/validation';

/** Per input item: its output items, or the error that replaced them. */
export type ItemResult = { output: IDataObject[] } | { error: Error; keptInput: IDataObject };

/**
 * Records why an item failed, or throws without Continue On Fail. `refuseRun` fails every item (a
 * node-wide option, a cap on the run). `keptInput` is what an error item keeps of its input.
 */
export interface Failures {
	failItem(itemIndex: number, error: unknown, keptInput?: IDataObject): void;
	refuseRun(error: unknown, keptInput?: (itemIndex: number) => IDataObject): void;
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
