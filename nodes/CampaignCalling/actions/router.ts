import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemResult } from './itemResults';
import { recordFailures, toOutputItems } from './itemResults';
import type { Resource } from './resource';
import { readRequestOptions } from './shared/requestOptions';

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
