import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { ParameterReader, containsExpression } from '../../../../../nodes/CampaignCalling/actions/shared/parameters';
import { executeContextFor } from '../../../../helpers/n8nContext.ts';

function readerFor(parameters: IDataObject, items: INodeExecutionData[] = [{ json: {} }]) {
	const { context } = executeContextFor({ credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' }, items, parameters });
	const spy = jest.spyOn(context, 'getNodeParameter');
	return { reader: new ParameterReader(context), context, spy };
}

describe('containsExpression', () => {
	it('finds a leading = at any depth', () => {
		expect(containsExpression('={{ 1 }}')).toBe(true);
		expect(containsExpression('a = b')).toBe(false);
		expect(containsExpression({ header: [{ name: 'x', value: '={{ $json.v }}' }] })).toBe(true);
		expect(containsExpression({ header: [{ name: 'x', value: 'v' }] })).toBe(false);
		expect(containsExpression(['a', '=b'])).toBe(true);
		expect(containsExpression(42)).toBe(false);
		expect(containsExpression(null)).toBe(false);
	});
});

describe('ParameterReader', () => {
	it('reads a dotted path inside a collection, and the fallback when it is absent', () => {
		const { reader } = readerFor({ resource: 'contact', operation: 'addToCampaign', options: { batchSize: 7 } });
		expect(reader.get('options.batchSize', 0, 100)).toBe(7);
		expect(reader.get('options.parallelRequests', 0, 1)).toBe(1);
	});

	it('evaluates an expression per item, whatever the parameter\'s type', () => {
		const items = [{ json: { meta: { a: 1 }, n: '5', list: [1, 2] } }, { json: { meta: { a: 2 }, n: '6', list: [3] } }];
		const json = readerFor(
			{ resource: 'contact', operation: 'addToCampaign', inputMode: 'json', contactsJson: '={{ $json.list }}', options: { batchSize: '={{ $json.n }}' } },
			items,
		);
		const fields = readerFor(
			{ resource: 'contact', operation: 'addToCampaign', additionalFields: { metadata: '={{ $json.meta }}' } },
			items,
		);
		for (const index of [0, 1]) {
			expect(json.reader.get('contactsJson', index)).toEqual(items[index].json.list);
			expect(json.reader.get('options.batchSize', index)).toEqual(json.context.getNodeParameter('options.batchSize', index));
			expect(fields.reader.get('additionalFields.metadata', index)).toEqual(items[index].json.meta);
		}
	});

	it('evaluates a collection holding an expression per item, and a constant collection once', () => {
		const items = [{ json: { s: 'a' } }, { json: { s: 'b' } }];
		const { reader, spy } = readerFor(
			{ resource: 'campaign', operation: 'update', updateFields: { status: '={{ $json.s }}', notes: 'fixed' }, requestOptions: { maxRetries: 1 } },
			items,
		);
		expect([0, 1].map((index) => reader.get<IDataObject>('updateFields', index).status)).toEqual(['a', 'b']);
		expect([0, 1].map((index) => reader.get<IDataObject>('requestOptions', index).maxRetries)).toEqual([1, 1]);
		expect(spy.mock.calls.filter(([name]) => name === 'updateFields')).toHaveLength(2);
		expect(spy.mock.calls.filter(([name]) => name === 'requestOptions')).toHaveLength(1);
	});
});
