import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runBatched } from './batched';
import type { Failures, ItemResult } from './itemResults';
import { recordFailures, toOutputItems } from './itemResults';
import type { Resource } from './resource';
import type { RequestOptions } from './shared/requestOptions';
import { readRequestOptions } from './shared/requestOptions';
import { sendOnceFor } from './sentRecord';
import type { OperationCall, PerItemOperation } from './types';

/**
 * Runs the operation the node is set to over all input items: Request Options read once, every item
 * prepared before the first request, then the sends, one per item or batched.
 */
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

	let requestOptions: RequestOptions | undefined;
	try {
		requestOptions = readRequestOptions(this);
	} catch (error) {
		failures.refuseRun(error);
	}
	if (requestOptions) {
		const options = requestOptions;
		const callFor = (itemIndex: number): OperationCall => ({ operation: operation.title, itemIndex, tuning: options });
		if (operation.kind === 'perItem') {
			await runPerItem.call(this, operation, prepareEach(this, operation, items.length, failures), callFor, results, failures);
		} else {
			await runBatched.call(this, operation, prepareEach(this, operation, items.length, failures), callFor, results, failures);
		}
	}

	return [toOutputItems(this, results)];
}

/**
 * Every item is checked before the first request, so bad input never half-runs. An item that fails
 * here has no entry; its failure is recorded (or thrown, without Continue On Fail).
 */
function prepareEach<Prepared>(
	context: IExecuteFunctions,
	operation: { prepare(this: IExecuteFunctions, itemIndex: number): Prepared },
	itemCount: number,
	failures: Failures,
): Array<Prepared | undefined> {
	const prepared = new Array<Prepared | undefined>(itemCount);
	for (let i = 0; i < itemCount; i++) {
		try {
			prepared[i] = operation.prepare.call(context, i);
		} catch (error) {
			failures.failItem(i, error);
		}
	}
	return prepared;
}

async function runPerItem(
	this: IExecuteFunctions,
	operation: PerItemOperation<unknown>,
	prepared: unknown[],
	callFor: (itemIndex: number) => OperationCall,
	results: ItemResult[],
	failures: Failures,
): Promise<void> {
	const sendOnce = sendOnceFor(this, operation);
	for (let i = 0; i < prepared.length; i++) {
		if (results[i]) continue;
		try {
			const answer = await sendOnce(`item ${i}`, prepared[i], async () => await operation.send.call(this, prepared[i], callFor(i)));
			results[i] = { output: Array.isArray(answer) ? answer : [answer] };
		} catch (error) {
			failures.failItem(i, error);
		}
	}
}
