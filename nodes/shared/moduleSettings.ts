import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InvalidInputError } from './transport';
import { quote, requireHttpUrl, requireIntegerInRange } from './validation';

/** The methods the service calls a URL with. */
const METHODS = ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'];

/** A module's Timeout or Retry Limit: the editor's bounds are the node's checks; `default` is sent when it is not set. */
const RETRY_LIMIT_FIELD = {
	name: 'retryLimit',
	displayName: 'Retry Limit',
	min: 0,
	max: 100,
	default: 3,
	description: 'How many times the service retries a delivery that was not accepted',
};

type DeliveryLimitField = typeof RETRY_LIMIT_FIELD;

const TIMEOUT_FIELD: DeliveryLimitField = {
	name: 'timeout',
	displayName: 'Timeout',
	min: 1,
	max: 3600,
	default: 30,
	description: 'How many seconds the service waits for an answer to a delivery',
};

/** Timeout and Retry Limit of a module's deliveries; the trigger offers them for its own modules. */
export const deliveryLimitProperties: INodeProperties[] = [RETRY_LIMIT_FIELD, TIMEOUT_FIELD].map(({ min, max, ...limit }) => ({
	...limit,
	type: 'number',
	typeOptions: { minValue: min, maxValue: max },
}));

export function deliveryProperties(urlDescription: string): INodeProperties[] {
	return [
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. https://hooks.example.com/calls',
			description: urlDescription,
		},
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			description:
				'Settings of the module, sent to the service: how the service calls the URL, and its own Timeout and Retry Limit for each delivery. How n8n sends this request is under Request Options.',
			options: [
				{
					displayName: 'Headers',
					name: 'headers',
					type: 'fixedCollection',
					typeOptions: { multipleValues: true },
					placeholder: 'Add Header',
					default: {},
					description: 'Headers the service sends with each request, for example an authorization token of the receiving system',
					options: [
						{
							displayName: 'Header',
							name: 'header',
							values: [
								{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'e.g. X-Api-Key' },
								{ displayName: 'Value', name: 'value', type: 'string', default: '' },
							],
						},
					],
				},
				{
					displayName: 'Method',
					name: 'method',
					type: 'options',
					default: 'POST',
					description: 'HTTP method the service uses to call the URL',
					options: METHODS.map((method) => ({ name: method, value: method })),
				},
				...deliveryLimitProperties,
			],
		},
	];
}

/** Turns the Headers list into one object; a header named twice is a mistake worth reporting. */
function headersFromList(value: unknown): Record<string, string> {
	const entries = (value as { header?: Array<{ name?: unknown; value?: unknown }> } | undefined)?.header ?? [];
	const headers: Record<string, string> = {};
	for (const entry of entries) {
		const name = typeof entry.name === 'string' ? entry.name.trim() : '';
		if (name === '') throw new InvalidInputError('Options → Headers', 'has a header without a name');
		if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
			throw new InvalidInputError('Options → Headers', `has an invalid header name ${quote(name)}`);
		}
		if (Object.keys(headers).some((existing) => existing.toLowerCase() === name.toLowerCase())) {
			throw new InvalidInputError('Options → Headers', `names the header ${quote(name)} twice`);
		}
		headers[name] = entry.value === undefined || entry.value === null ? '' : String(entry.value);
	}
	return headers;
}

/** Timeout's and Retry Limit's bounds, for a reader of stored settings (whole numbers within them). */
export const DELIVERY_LIMIT_BOUNDS = {
	timeout: { min: TIMEOUT_FIELD.min, max: TIMEOUT_FIELD.max },
	retryLimit: { min: RETRY_LIMIT_FIELD.min, max: RETRY_LIMIT_FIELD.max },
};

/** Timeout and Retry Limit from an Options collection, checked, with the defaults filled in. */
export function readDeliveryLimits(options: IDataObject): { timeout: number; retryLimit: number } {
	const read = ({ name, displayName, min, max, default: unset }: DeliveryLimitField) =>
		options[name] === undefined ? unset : requireIntegerInRange(options[name], `Options → ${displayName}`, min, max);
	return { timeout: read(TIMEOUT_FIELD), retryLimit: read(RETRY_LIMIT_FIELD) };
}

export function readDeliverySettings(context: IExecuteFunctions, itemIndex: number) {
	const url = requireHttpUrl(context.getNodeParameter('url', itemIndex), 'URL');
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const settings = {
		method: typeof options.method === 'string' && options.method !== '' ? options.method.toUpperCase() : 'POST',
		url,
		headers: headersFromList(options.headers),
		...readDeliveryLimits(options),
	};
	if (!METHODS.includes(settings.method)) {
		throw new InvalidInputError('Options → Method', `must be GET, POST, PUT, PATCH or DELETE, got ${quote(options.method)}`);
	}
	return settings;
}

/** Delivery settings shared by integration modules and webhook modules (docs/service-interface.md), as the node reads them. */
export type DeliverySettings = ReturnType<typeof readDeliverySettings>;

/** A module's settings in the service's names (url, headers and timeout are named alike); the two module kinds name the method field differently. */
export function deliverySettingsBody({ method, retryLimit, ...sameNames }: DeliverySettings, methodField: 'webhook_method' | 'method'): IDataObject {
	return { [methodField]: method, ...sameNames, retry_limit: retryLimit };
}

/** What a module creation whose outcome is unknown tells the caller to check before repeating it. */
export const MODULE_MAY_EXIST_HINT =
	'Check in the service\'s app whether the module was created before you create it again: the service offers no way to list or delete modules, and a second one would act on every event twice.';
