import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InvalidInputError, refusedInputError } from '../../shared/transport';
import { requireIntegerInRange } from '../../shared/validation';
import type { Resource } from './resources';
import { requestOptionsProperty } from './shared/requestOptions';
import type { Failures, ItemResult, RequestSettings } from './types';

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
	// The run's node-wide settings, read here once, before any item: a bad value refuses the whole run.
	let request: RequestSettings;
	let options: Record<string, number>;
	try {
		request = { operation: operation.title, ...readRequestOptions(this) };
		options = operation.runOptions ? readIntegerOptions(this, operation.runOptions) : {};
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

	if ('sendAll' in operation) {
		await operation.sendAll.call(this, prepared, request, options, results, failures);
	} else {
		for (let i = 0; i < items.length; i++) {
			if (results[i]) continue;
			const sendOnceAs = operation.createsOnEachSend ? `item ${i}` : undefined;
			try {
				const answer = await operation.send.call(this, prepared[i], { ...request, itemIndex: i, sendOnceAs });
				results[i] = Array.isArray(answer) ? answer : [answer];
			} catch (error) {
				failures.failItem(i, error);
			}
		}
	}
	return [toOutputItems(this, results)];
}

/** Request Options, for every request of the run. */
export function readRequestOptions(context: IExecuteFunctions): Omit<RequestSettings, 'operation'> {
	const { maxRetries, timeoutSeconds } = readIntegerOptions(context, requestOptionsProperty, 'Request Options → ');
	return { maxRetries, timeoutMs: timeoutSeconds * 1000 };
}

/**
 * A node-wide collection of whole numbers: each option unset takes its property's default, each set is
 * checked against its property's range; `labelPrefix` names the collection in errors.
 */
function readIntegerOptions(context: IExecuteFunctions, collection: INodeProperties, labelPrefix = ''): Record<string, number> {
	const values = context.getNodeParameter(collection.name, 0, {}) as Record<string, unknown>;
	const read: Record<string, number> = {};
	for (const option of collection.options as INodeProperties[]) {
		const { minValue = 0, maxValue = Number.MAX_SAFE_INTEGER } = option.typeOptions ?? {};
		const label = `${labelPrefix}${option.displayName}`;
		read[option.name] = values[option.name] === undefined ? (option.default as number) : requireIntegerInRange(values[option.name], label, minValue, maxValue);
	}
	return read;
}

/** Failures written into `results` as error items: without Continue On Fail, the first one throws. */
export function recordFailures(context: IExecuteFunctions, results: ItemResult[]): Failures {
	const continueOnFail = context.continueOnFail();
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	return {
		failItem: (itemIndex, error, keptInput = {}) => {
			const nodeError = toNodeError(context, error, itemIndex);
			if (!continueOnFail) throw nodeError;
			results[itemIndex] = [errorJson(nodeError, keptInput, toErrorOutput)];
		},
		refuseRun: (error, keptInput = () => ({})) => {
			const nodeError = toNodeError(context, error, 0);
			if (!continueOnFail) throw nodeError;
			// Every item fails, so none passes on as if it had been sent; one that failed on its own keeps its more specific error.
			for (let i = 0; i < results.length; i++) results[i] ??= [errorJson(nodeError, keptInput(i), toErrorOutput)];
		},
	};
}

/** One output item per record, error items included, each paired to its input item. */
export function toOutputItems(context: IExecuteFunctions, results: ItemResult[]): INodeExecutionData[] {
	// Not returnJsonArray: it would take a service record that has a `json` field for an item.
	return results.flatMap((records, item) => context.helpers.constructExecutionMetaData(records.map((json) => ({ json })), { itemData: { item } }));
}

/** An error item: on n8n's error output only `error` and `message`, the one shape n8n moves there (ARCHITECTURE.md). */
function errorJson(error: NodeApiError | NodeOperationError, keptInput: IDataObject, toErrorOutput: boolean): IDataObject {
	const json: IDataObject = toErrorOutput ? { error: error.message } : { error: error.message, ...keptInput };
	if (error.description) json[toErrorOutput ? 'message' : 'errorDescription'] = error.description;
	return json;
}

function toNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof InvalidInputError) return refusedInputError(context.getNode(), error, itemIndex);
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
