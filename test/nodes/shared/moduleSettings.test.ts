import type { INodeProperties } from 'n8n-workflow';

import { InvalidInputError } from '../../../nodes/shared/transport';
import { deliveryProperties, readDeliverySettings } from '../../../nodes/shared/moduleSettings';
import { executeContextFor } from '../../helpers/n8nContext.ts';

describe('deliveryProperties', () => {
	const [url, options] = deliveryProperties('where to send');
	const option = (name: string) => {
		const found = (options.options ?? []).find((candidate) => (candidate as INodeProperties).name === name);
		if (found === undefined) throw new Error(`no option ${name}`);
		return found as INodeProperties;
	};
	/** Every field of the delivery settings, nested ones included (a list's choices are not fields). */
	const everyField = (properties: unknown[]): INodeProperties[] =>
		properties.flatMap((property) => {
			const { type, options: nested, values } = property as INodeProperties & { values?: INodeProperties[] };
			const inner = type === 'options' ? [] : [...(nested ?? []), ...(values ?? [])];
			return [property as INodeProperties, ...everyField(inner)];
		});

	it('offers URL and the contract\'s options, the method defaulting to POST', () => {
		expect(url).toEqual(expect.objectContaining({ name: 'url', type: 'string', required: true, default: '', description: 'where to send' }));
		expect(options).toEqual(expect.objectContaining({ name: 'options', type: 'collection', default: {} }));
		const names = (options.options ?? []).map((candidate) => (candidate as { name: string }).name);
		expect(names.sort()).toEqual(['headers', 'method', 'retryLimit', 'timeout']);
		expect(option('method').default).toBe('POST');
	});

	// Stored in users' workflows as options.headers.header[].name / .value (contract): a rename loses them.
	it('takes any number of headers, each a name and a value starting empty', () => {
		const headers = option('headers');
		expect(headers.type).toBe('fixedCollection');
		expect(headers.typeOptions).toEqual({ multipleValues: true });
		expect(headers.options).toEqual([
			expect.objectContaining({
				name: 'header',
				values: [
					expect.objectContaining({ name: 'name', type: 'string', default: '' }),
					expect.objectContaining({ name: 'value', type: 'string', default: '' }),
				],
			}),
		]);
	});

	it('offers the five methods the service takes, each shown by its own name', () => {
		expect(option('method').options).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT'].map((method) => ({ name: method, value: method })));
	});

	// The same bounds as readDeliverySettings' checks, so the editor refuses what the node would.
	it('bounds Retry Limit to 0-100 and Timeout to 1-3600, with the defaults sent when they are not set', () => {
		expect(option('retryLimit')).toEqual(
			expect.objectContaining({ type: 'number', typeOptions: { minValue: 0, maxValue: 100 }, default: 3 }),
		);
		expect(option('timeout')).toEqual(
			expect.objectContaining({ type: 'number', typeOptions: { minValue: 1, maxValue: 3600 }, default: 30 }),
		);
	});

	it('labels every field, and every option says what it does', () => {
		for (const field of everyField([url, options])) expect(field.displayName).toMatch(/^[A-Z]/);
		for (const name of ['headers', 'method', 'retryLimit', 'timeout']) expect(option(name).description).toMatch(/^[A-Z].{20,}/);
	});

	// n8n's UX guidelines: a collection's button says what it adds; a text field's example starts "e.g.".
	it('names what each Add button adds, and gives examples for the URL and a header\'s name', () => {
		expect(options.placeholder).toBe('Add Option');
		expect(option('headers').placeholder).toBe('Add Header');
		const examples = everyField([url, options]).filter((field) => field.placeholder !== undefined && field.type === 'string');
		expect(examples.map((field) => field.name)).toEqual(['url', 'name']);
		for (const field of examples) expect(field.placeholder).toMatch(/^e\.g\. \S/);
	});
});

describe('readDeliverySettings', () => {
	const settingsWith = (options: Record<string, unknown>) =>
		readDeliverySettings(
			executeContextFor({
				credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused-key' },
				parameters: { resource: 'webhookModule', operation: 'create', eventType: 'call.ended', url: 'https://crm.example.com/events', options },
			}).context,
			0,
		);

	it('takes each of the five methods in any case, and POST for an empty one', () => {
		expect(['get', 'POST', 'Put', 'patch', 'delete'].map((method) => settingsWith({ method }).method)).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
		expect(settingsWith({ method: '' }).method).toBe('POST');
		expect(settingsWith({}).method).toBe('POST');
	});

	it('refuses another method', () => {
		expect(() => settingsWith({ method: 'TRACE' })).toThrow('Options → Method must be GET, POST, PUT, PATCH or DELETE, got "TRACE"');
	});

	it('turns the Headers list into one object, keeping the names as typed', () => {
		const header = [
			{ name: ' X-Api-Key ', value: 'abc' },
			{ name: 'X-Count', value: 3 },
			{ name: 'X-Empty', value: null },
			{ name: 'X-Missing' },
		];
		expect(settingsWith({ headers: { header } }).headers).toEqual({ 'X-Api-Key': 'abc', 'X-Count': '3', 'X-Empty': '', 'X-Missing': '' });
	});

	// n8n fills a header's missing or null value with the field's default ('') when it loads the
	// workflow; an expression can still give null or nothing when the execution reads it.
	it("sends a header whose value's expression gives null or nothing as an empty header", () => {
		const header = [
			{ name: 'X-Null', value: '={{ null }}' },
			{ name: 'X-Nothing', value: '={{ undefined }}' },
		];
		expect(settingsWith({ headers: { header } }).headers).toEqual({ 'X-Null': '', 'X-Nothing': '' });
	});

	it('gives {} for no headers', () => {
		expect(settingsWith({}).headers).toEqual({});
		expect(settingsWith({ headers: {} }).headers).toEqual({});
		expect(settingsWith({ headers: { header: [] } }).headers).toEqual({});
	});

	it('sends Timeout 30 and Retry Limit 3 when they are not set', () => {
		expect(settingsWith({})).toEqual(expect.objectContaining({ timeout: 30, retryLimit: 3 }));
	});

	it.each([
		[[{ name: 'A', value: '1' }, { name: 'a', value: '2' }], 'Options → Headers names the header "a" twice'],
		[[{ name: '', value: '1' }], 'Options → Headers has a header without a name'],
		[[{ value: '1' }], 'Options → Headers has a header without a name'],
		[[{ name: 'Bad:Name', value: '1' }], 'Options → Headers has an invalid header name "Bad:Name"'],
	])('refuses the headers %j', (header, message) => {
		expect(() => settingsWith({ headers: { header } })).toThrow(new InvalidInputError('Options → Headers', message.replace('Options → Headers ', '')));
		expect(() => settingsWith({ headers: { header } })).toThrow(message);
	});
});
