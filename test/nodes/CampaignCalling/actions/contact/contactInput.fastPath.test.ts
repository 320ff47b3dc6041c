import type { IDataObject } from 'n8n-workflow';

import { readItemParameters } from '../../../../../nodes/CampaignCalling/actions/contact/contactInput';
import { executeContextFor } from '../../../../helpers/n8nContext.ts';

const credentials = { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused-key' };

/** Values of every kind an item can hold, under plain, nested and awkward keys. */
const item = {
	text: 'Ada',
	empty: '',
	spaced: '  padded  ',
	number: 42,
	float: 1.5,
	zero: 0,
	negative: -7,
	yes: true,
	no: false,
	nothing: null,
	object: { a: 1, b: [1, 2] },
	list: ['x', 'y'],
	nested: { deeper: { name: 'Grace', count: 3, off: false, gone: null } },
	'with space': 'spaced key',
	'dash-key': 'dashed',
	unicode: 'Zoë 👋',
};

const expressions = [
	'={{ $json.text }}',
	'={{$json.text}}',
	'={{ $json.empty }}',
	'={{ $json.spaced }}',
	'={{ $json.number }}',
	'={{ $json.float }}',
	'={{ $json.zero }}',
	'={{ $json.negative }}',
	'={{ $json.yes }}',
	'={{ $json.no }}',
	'={{ $json.nothing }}',
	'={{ $json.missing }}',
	'={{ $json.object }}',
	'={{ $json.list }}',
	'={{ $json.nested.deeper.name }}',
	'={{ $json.nested.deeper.count }}',
	'={{ $json.nested.deeper.off }}',
	'={{ $json.nested.deeper.gone }}',
	'={{ $json.nested.deeper.absent }}',
	'={{ $json.missing.name }}',
	'={{ $json.nothing.name }}',
	'={{ $json.text.length }}',
	'={{ $json["with space"] }}',
	"={{ $json['dash-key'] }}",
	'={{ $json.unicode }}',
	'={{ $json.text.toUpperCase() }}',
	'={{ $json.text }} Lovelace',
	'=Dear ={{ $json.text }}',
	'={{ $json.number + 1 }}',
];

/** The parameters n8n was asked to evaluate (reads of the raw, unevaluated value left out). */
function evaluatedReads(spy: jest.SpyInstance): unknown[] {
	return spy.mock.calls.filter((call) => (call[3] as { rawExpressions?: boolean } | undefined)?.rawExpressions !== true).map(([name]) => name);
}

/** A value, or the message of what was thrown. */
function outcome(read: () => unknown): unknown {
	try {
		return { value: read() };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

describe('readItemParameters: the fast path for {{ $json.path }}', () => {
	it.each(expressions)('returns exactly what n8n evaluates for %s', (expression) => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }, { json: { ...item, text: 'Grace' } }],
			parameters: { resource: 'contact', operation: 'get', contactId: expression },
		});
		for (const itemIndex of [0, 1]) {
			expect(readItemParameters(context, itemIndex, ['contactId'])).toEqual([context.getNodeParameter('contactId', itemIndex)]);
		}
	});

	/** Whether reading `expression` against `json` took the value straight from the item, with no evaluation. */
	function readFromItem(expression: string, json: IDataObject): boolean {
		const { context } = executeContextFor({ credentials, items: [{ json }], parameters: { resource: 'contact', operation: 'get', contactId: expression } });
		const spy = jest.spyOn(context, 'getNodeParameter');
		outcome(() => readItemParameters(context, 0, ['contactId']));
		return evaluatedReads(spy).length === 0;
	}

	it('reads only plain key paths straight from the item', () => {
		expect(readFromItem('={{ $json.a.b }}', { a: { b: 'x' } })).toBe(true);
		expect(readFromItem('={{ $json["a b"].c }}', { 'a b': { c: 'y' } })).toBe(true);
		expect(readFromItem('={{ $json[0] }}', { 0: 'zero' })).toBe(false);
		expect(readFromItem('={{ $json.__proto__ }}', {})).toBe(false);
		expect(readFromItem('={{ $json.constructor }}', {})).toBe(false);
		expect(readFromItem('={{ $json.a["prototype"] }}', { a: { prototype: 'own' } })).toBe(false);
		// Own keys of those names, as JSON.parse makes them: still left to n8n.
		expect(readFromItem('={{ $json.__proto__ }}', JSON.parse('{"__proto__":"own"}') as IDataObject)).toBe(false);
		expect(readFromItem('={{ $json.constructor }}', { constructor: 'own' })).toBe(false);
		expect(readFromItem('={{ $json.a }} and more', { a: 'x' })).toBe(false);
		expect(readFromItem('=Dear ={{ $json.a }}', { a: 'x' })).toBe(false);
		expect(readFromItem('={{ $("Node").item.json.a }}', { a: 'x' })).toBe(false);
		expect(readFromItem('={{ $json.a.trim() }}', { a: 'x' })).toBe(false);
	});

	it('takes text without a leading = as the text itself, not as a path', () => {
		const { context } = executeContextFor({ credentials, items: [{ json: { a: 'x' } }], parameters: { resource: 'contact', operation: 'get', contactId: '{{ $json.a }}' } });
		expect(readItemParameters(context, 0, ['contactId'])).toEqual(['{{ $json.a }}']);
	});

	it('reads a key path with any blanks around it or inside its brackets, or none, straight from the item', () => {
		expect(readFromItem('={{$json["a b"]}}', { 'a b': 'x' })).toBe(true);
		expect(readFromItem('={{  $json[ "a" ][  \'b c\'  ].d  }}', { a: { 'b c': { d: 'x' } } })).toBe(true);
	});

	it('reads {{ $json.path }} without n8n\'s evaluator when the value is plain', () => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }, { json: item }],
			parameters: { resource: 'contact', operation: 'get', contactId: '={{ $json.text }}' },
		});
		const spy = jest.spyOn(context, 'getNodeParameter');
		expect([readItemParameters(context, 0, ['contactId']), readItemParameters(context, 1, ['contactId'])]).toEqual([['Ada'], ['Ada']]);
		expect(evaluatedReads(spy)).toEqual([]);
	});

	it.each([
		['={{$json.yes}}', true],
		['={{ $json.number }}', 42],
		['={{  $json["with space"]  }}', 'spaced key'],
	])('reads %s, a boolean, a number or a key without blanks, without n8n\'s evaluator', (expression, value) => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }],
			parameters: { resource: 'contact', operation: 'get', contactId: expression },
		});
		const spy = jest.spyOn(context, 'getNodeParameter');
		expect(readItemParameters(context, 0, ['contactId'])).toEqual([value]);
		expect(evaluatedReads(spy)).toEqual([]);
	});

	it('gives an absent parameter read without a fallback n8n\'s own answer', () => {
		const { context } = executeContextFor({ credentials, items: [{ json: item }], parameters: { resource: 'contact', operation: 'get' } });
		expect(outcome(() => readItemParameters(context, 0, ['absent']))).toEqual(outcome(() => [context.getNodeParameter('absent', 0)]));
	});
});

/** Expressions of every shape a mapped field can hold, for the one-pass evaluation. */
const fieldExpressions = [
	...expressions,
	'={{ $json.spaced.trim() }}',
	'={{ $json.number * 2 }}',
	'={{ $json.yes && "y" }}',
	'={{ $json.float.toFixed(2) }}',
	'={{ [1, 2].join("-") }}',
	'={{ $itemIndex }}',
	'={{ $json.text // a trailing comment\n}}',
	'={{ "a}}b" }}',
	'={{ "{" + $json.text }}',
	'=x={{ $json.number + 1 }}',
	'={{ 1), (2 }}',
	'={{ $json.missing.trim() }}',
	'={{ $json.nothing.length }}',
	'={{ ; }}',
	'={{ }}',
	'={{ $json.text }}{{ $json.number }}',
	'=plain text',
	'constant',
];

describe('readItemParameters: several fields of an item in one pass', () => {
	const names = ['firstName', 'lastName', 'phoneNumber'];
	const parametersWith = (expression: string) => ({
		resource: 'contact',
		operation: 'addToCampaign',
		firstName: expression,
		lastName: '={{ $json.spaced.trim() }}',
		phoneNumber: '={{ $json.number + 1 }}',
	});

	it.each(fieldExpressions)('gives each field exactly what n8n evaluates for it, next to %j', (expression) => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }, { json: { ...item, text: 'Grace', number: 7 } }],
			parameters: parametersWith(expression),
		});
		for (const itemIndex of [0, 1]) {
			const expected = names.map((name) => outcome(() => context.getNodeParameter(name, itemIndex)));
			const failure = expected.find((each) => 'error' in (each as object));
			if (failure) {
				// n8n's own error, from its own evaluation of the failing field.
				expect(outcome(() => readItemParameters(context, itemIndex, names))).toEqual(failure);
			} else {
				expect(readItemParameters(context, itemIndex, names)).toEqual(expected.map((each) => (each as { value: unknown }).value));
			}
		}
	});

	it('evaluates three .trim() fields with one call into n8n\'s expression engine per item', () => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }, { json: item }],
			parameters: { ...parametersWith('={{ $json.text.trim() }}'), campaignId: 'fixed' },
		});
		const evaluations = jest.spyOn(context, 'evaluateExpression');
		const parameterReads = jest.spyOn(context, 'getNodeParameter');
		expect(readItemParameters(context, 0, ['campaignId', ...names])).toEqual(['fixed', 'Ada', 'padded', 43]);
		expect(readItemParameters(context, 1, ['campaignId', ...names])).toEqual(['fixed', 'Ada', 'padded', 43]);
		expect(evaluations).toHaveBeenCalledTimes(2);
		expect(evaluatedReads(parameterReads)).toEqual([]);
	});

	it('reads several {{ $json.path }} fields of an item straight from it, with no call into n8n\'s expression engine', () => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }],
			parameters: { ...parametersWith('={{ $json.text }}'), lastName: '={{ $json.nested.deeper.name }}', phoneNumber: '={{ $json.number }}' },
		});
		const evaluations = jest.spyOn(context, 'evaluateExpression');
		const parameterReads = jest.spyOn(context, 'getNodeParameter');
		expect(readItemParameters(context, 0, names)).toEqual(['Ada', 'Grace', 42]);
		expect(evaluations).not.toHaveBeenCalled();
		expect(evaluatedReads(parameterReads)).toEqual([]);
	});

	it('takes a parameter without expressions, and an absent one\'s fallback, as n8n returns them, without asking n8n', () => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }],
			parameters: { resource: 'contact', operation: 'addToCampaign', inputMode: 'autoMap', campaignId: 'fixed', options: { batchSize: 7, parallelRequests: 2 } },
		});
		const names = ['inputMode', 'campaignId', 'options.batchSize', 'options.parallelRequests', 'additionalFields.metadata'];
		const fallbacks = [undefined, undefined, undefined, undefined, ''];
		const expected = names.map((name, index) => context.getNodeParameter(name, 0, fallbacks[index] as string));
		const parameterReads = jest.spyOn(context, 'getNodeParameter');
		// getNode() copies the whole node: per item, over thousands of items, that cost shows.
		const nodeCopies = jest.spyOn(context, 'getNode');
		expect(readItemParameters(context, 0, names, fallbacks)).toEqual(expected);
		expect(expected).toEqual(['autoMap', 'fixed', 7, 2, '']);
		expect(evaluatedReads(parameterReads)).toEqual([]);
		expect(nodeCopies).not.toHaveBeenCalled();
	});

	it('leaves objects, null and missing values to n8n\'s own evaluation of that field', () => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }],
			parameters: {
				...parametersWith('={{ $json.object }}'),
				lastName: '={{ $json.nothing }}',
				phoneNumber: '={{ $json.missing }}',
				campaignId: '={{ $json.nested.deeper.absent }}',
			},
		});
		const fields = [...names, 'campaignId'];
		const expected = fields.map((name) => context.getNodeParameter(name, 0));
		const parameterReads = jest.spyOn(context, 'getNodeParameter');
		expect(readItemParameters(context, 0, fields)).toEqual(expected);
		expect(expected.slice(0, 2)).toEqual([{ a: 1, b: [1, 2] }, null]);
		// A missing key, at the top or deeper, is n8n's to read too: whatever it makes of it, the fast path does not guess.
		expect(evaluatedReads(parameterReads)).toEqual(['firstName', 'lastName', 'phoneNumber', 'campaignId']);
	});

	it('leaves a single expression, or an empty {{ }}, to n8n\'s own evaluation: nothing to combine', () => {
		const { context } = executeContextFor({
			credentials,
			items: [{ json: item }],
			parameters: { ...parametersWith('={{ }}'), lastName: 'Lovelace' },
		});
		const expected = outcome(() => names.map((name) => context.getNodeParameter(name, 0)));
		const evaluations = jest.spyOn(context, 'evaluateExpression');
		const parameterReads = jest.spyOn(context, 'getNodeParameter');
		expect(outcome(() => readItemParameters(context, 0, names))).toEqual(expected);
		expect(evaluations).not.toHaveBeenCalled();
		parameterReads.mockClear();
		readItemParameters(context, 0, ['lastName', 'phoneNumber']);
		expect(evaluations).not.toHaveBeenCalled();
		expect(evaluatedReads(parameterReads)).toEqual(['phoneNumber']);
	});
});
