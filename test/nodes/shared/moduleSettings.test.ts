import { InvalidInputError } from '../../../nodes/shared/validation';
import { deliveryProperties, headersFromList, readDeliverySettings } from '../../../nodes/shared/moduleSettings';
import { executeContextFor } from '../../helpers/n8nContext.ts';

describe('headersFromList', () => {
	it('turns the name/value list into one object, keeping the names as typed', () => {
		expect(
			headersFromList({
				header: [
					{ name: ' X-Api-Key ', value: 'abc' },
					{ name: 'X-Count', value: 3 },
					{ name: 'X-Empty', value: null },
					{ name: 'X-Missing' },
				],
			}),
		).toEqual({ 'X-Api-Key': 'abc', 'X-Count': '3', 'X-Empty': '', 'X-Missing': '' });
	});

	it('gives {} for no headers', () => {
		expect(headersFromList(undefined)).toEqual({});
		expect(headersFromList({})).toEqual({});
		expect(headersFromList({ header: [] })).toEqual({});
	});

	it.each([
		[[{ name: 'A', value: '1' }, { name: 'a', value: '2' }], 'Options → Headers names the header "a" twice'],
		[[{ name: '', value: '1' }], 'Options → Headers has a header without a name'],
		[[{ value: '1' }], 'Options → Headers has a header without a name'],
		[[{ name: 'Bad:Name', value: '1' }], 'Options → Headers has an invalid header name "Bad:Name"'],
	])('refuses %j', (header, message) => {
		expect(() => headersFromList({ header })).toThrow(new InvalidInputError('Options → Headers', message.replace('Options → Headers ', '')));
		expect(() => headersFromList({ header })).toThrow(message);
	});
});

describe('deliveryProperties', () => {
	it('offers URL and the contract\'s options, the method defaulting to POST', () => {
		const [url, options] = deliveryProperties('where to send');
		expect(url).toEqual(expect.objectContaining({ name: 'url', required: true, description: 'where to send' }));
		expect(options.name).toBe('options');
		const names = (options.options ?? []).map((option) => (option as { name: string }).name);
		expect(names.sort()).toEqual(['headers', 'method', 'retryLimit', 'timeout']);
		const method = (options.options ?? []).find((option) => (option as { name: string }).name === 'method') as { default: string };
		expect(method.default).toBe('POST');
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
});
