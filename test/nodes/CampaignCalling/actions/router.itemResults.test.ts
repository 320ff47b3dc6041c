import { NodeOperationError } from 'n8n-workflow';

import { recordFailures, toOutputItems } from '../../../../nodes/CampaignCalling/actions/router';
import type { ItemResult } from '../../../../nodes/CampaignCalling/actions/types';
import { executeContextFor, type RunOptions } from '../../../helpers/n8nContext.ts';

const credentials = { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused-key' };
const items = [{ json: { id: 'a' } }, { json: { id: 'b' } }, { json: { id: 'c' } }];

function contextWith(onError?: RunOptions['onError']) {
	return executeContextFor({ credentials, items, parameters: { resource: 'contact', operation: 'get' }, onError }).context;
}

/** An error no part of the node made: a bug, or a library's own failure. */
const unexpected = () => new Error('Cannot read properties of undefined');

describe('recordFailures and toOutputItems', () => {
	it('hands n8n an unexpected error as a NodeOperationError with its own message and the item, nothing added', () => {
		const results: ItemResult[] = new Array(items.length);
		let thrown: unknown;
		try {
			recordFailures(contextWith(), results).failItem(2, unexpected());
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect(thrown).toMatchObject({ message: 'Cannot read properties of undefined', context: { itemIndex: 2 } });
	});

	it('gives an n8n error raised without an item the item it failed, and leaves one that names its item as it is', () => {
		const node = contextWith().getNode();
		const withoutItem = new NodeOperationError(node, 'refused');
		const withItem = new NodeOperationError(node, 'refused', { itemIndex: 0 });
		const failures = recordFailures(contextWith('continueRegularOutput'), new Array(items.length));
		failures.failItem(1, withoutItem);
		failures.failItem(2, withItem);
		expect(withoutItem.context.itemIndex).toBe(1);
		expect(withItem.context.itemIndex).toBe(0);
	});

	/** An error whose n8n hint is there but empty. */
	const withEmptyHint = () => {
		const error = new NodeOperationError(contextWith().getNode(), 'refused');
		error.description = '';
		return error;
	};

	it.each([
		['continueRegularOutput', 'without a hint', unexpected, { error: 'Cannot read properties of undefined', id: 'c' }],
		['continueErrorOutput', 'without a hint', unexpected, { error: 'Cannot read properties of undefined' }],
		['continueRegularOutput', 'with an empty hint', withEmptyHint, { error: 'refused', id: 'c' }],
		['continueErrorOutput', 'with an empty hint', withEmptyHint, { error: 'refused' }],
	] as const)('under %s, an error %s gives an item without a hint field', (onError, _kind, error, json) => {
		const context = contextWith(onError);
		const results: ItemResult[] = [[{ id: 'a' }], [{ id: 'b' }]];
		recordFailures(context, results).failItem(2, error(), { id: 'c' });
		const output = toOutputItems(context, results);
		expect(output[2].json).toStrictEqual(json);
		expect(output[2].pairedItem).toEqual({ item: 2 });
	});
});
