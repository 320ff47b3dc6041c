import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runBatched } from './batched';
import * as campaign from './campaign';
import * as contact from './contact';
import * as integration from './integration';
import type { Failures, ItemResult } from './itemResults';
import { recordFailures, toOutputItems } from './itemResults';
import type { RequestTuning } from '../../shared/transport';
import { readRequestTuning } from './shared/requestOptions';
import { sendOnceFor } from './sentRecord';
import type { BatchedOperation, PerItemOperation } from './types';
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

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];

	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operations[resource]?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}

	const results: ItemResult[] = new Array(items.length);
	const failures = recordFailures(this, results);

	let tuning: RequestTuning | undefined;
	try {
		tuning = readRequestTuning(this);
	} catch (error) {
		failures.refuseRun(error);
	}
	if (tuning) {
		if (operation.kind === 'perItem') await runPerItem.call(this, operation, items.length, tuning, results, failures);
		else await runBatched.call(this, operation, items.length, tuning, results, failures);
	}

	return [toOutputItems(this, results)];
}

async function runPerItem(
	this: IExecuteFunctions,
	operation: PerItemOperation<unknown>,
	itemCount: number,
	tuning: RequestTuning,
	results: ItemResult[],
	failures: Failures,
): Promise<void> {
	const prepared: unknown[] = new Array(itemCount);
	// Every item is checked before the first request, so bad input never half-runs.
	for (let i = 0; i < itemCount; i++) {
		try {
			prepared[i] = operation.prepare.call(this, i);
		} catch (error) {
			failures.failItem(i, error);
		}
	}
	const sendOnce = sendOnceFor(this, operation);
	for (let i = 0; i < itemCount; i++) {
		if (results[i]) continue;
		try {
			const answer = await sendOnce(`item ${i}`, prepared[i], async () => await operation.send.call(this, prepared[i], { itemIndex: i, tuning }));
			results[i] = { output: Array.isArray(answer) ? answer : [answer] };
		} catch (error) {
			failures.failItem(i, error);
		}
	}
}
