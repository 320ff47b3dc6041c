import type { INodeProperties } from 'n8n-workflow';

import { RESOURCES, defineResource, resourceProperty, subtitleOf } from '../../../../nodes/CampaignCalling/actions/resources';
import type { PerItemOperation } from '../../../../nodes/CampaignCalling/actions/types';

/** An operation with only what the description needs, for the resource's own tests. */
function operation(value: string, title: string, properties: INodeProperties[] = []): PerItemOperation<null> {
	return {
		value,
		title,
		name: title.split(' ')[0],
		description: `${title} description`,
		properties,
		createsOnEachSend: false,
		prepare: () => null,
		send: async () => ({}),
	};
}

describe('defineResource', () => {
	const field: INodeProperties = { displayName: 'Thing ID', name: 'thingId', type: 'string', default: '' };
	const things = defineResource('Thing', 'thing', [operation('get', 'Get Thing', [field]), operation('update', 'Update Thing', [field])]);

	it('builds the Operation parameter from the operations, the first the default, each action in sentence case', () => {
		expect(things.properties[0]).toEqual({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['thing'] } },
			options: [
				{ name: 'Get', value: 'get', description: 'Get Thing description', action: 'Get thing' },
				{ name: 'Update', value: 'update', description: 'Update Thing description', action: 'Update thing' },
			],
			default: 'get',
		});
	});

	it('shows each operation\'s parameters for that resource and operation alone', () => {
		expect(things.properties.slice(1).map((property) => [property.name, property.displayOptions?.show])).toEqual([
			['thingId', { resource: ['thing'], operation: ['get'] }],
			['thingId', { resource: ['thing'], operation: ['update'] }],
		]);
	});

	it('lists resources in the Resource parameter, and titles every operation in the subtitle', () => {
		expect(resourceProperty([things], 'thing').options).toEqual([{ name: 'Thing', value: 'thing' }]);
		expect(subtitleOf([things])).toBe('={{ ({"thing:get":"Get Thing","thing:update":"Update Thing"})[$parameter["resource"] + ":" + $parameter["operation"]] }}');
	});
});

describe('the node\'s operations', () => {
	const operations = RESOURCES.flatMap((resource) =>
		resource.operations.map((candidate) => [`${resource.value}.${candidate.value}`, candidate] as const),
	);

	it('each state whether a send creates something, and only the creating ones say yes', () => {
		for (const [, candidate] of operations) expect(typeof candidate.createsOnEachSend).toBe('boolean');
		expect(operations.filter(([, candidate]) => candidate.createsOnEachSend).map(([name]) => name)).toEqual([
			'contact.addToCampaign',
			'integration.create',
			'webhookModule.create',
		]);
	});

	it('make the type require the statement', () => {
		const { createsOnEachSend: _stated, ...unstated } = operation('get', 'Get Thing');
		// @ts-expect-error An operation that does not say whether it creates something is not an operation.
		const refused: PerItemOperation<null> = unstated;
		expect(refused).toBeDefined();
	});
});
