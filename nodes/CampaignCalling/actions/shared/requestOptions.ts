import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireIntegerInRange } from '../../../shared/validation';
import type { RequestSettings } from '../types';

export const requestOptionsProperty: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add Request Option',
	default: {},
	description:
		'How n8n sends this node\'s requests to the service. Not to be confused with a module\'s Options → Timeout and Retry Limit (Create Integration, Create Webhook Module), which the service applies to its own deliveries.',
	options: [
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 10 },
			default: 3,
			description:
				'How often n8n repeats a read (Get) after a temporary failure (HTTP 5xx, 429, dropped connection), waiting longer each time. Writes are repeated only when the service was never reached. 0 turns retries off.',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 600 },
			default: 60,
			description: 'How long n8n waits for the service to answer each request of this node',
		},
	],
};

/** Request Options, read once per run; a bad value refuses the whole run. */
export function readRequestOptions(context: IExecuteFunctions): Omit<RequestSettings, 'operation'> {
	const { maxRetries, timeoutSeconds } = readIntegerOptions(context, requestOptionsProperty, 'Request Options → ');
	return { maxRetries, timeoutMs: timeoutSeconds * 1000 };
}

/**
 * A node-wide collection of whole numbers, read once per run: each option unset takes its property's default,
 * each set is checked against its property's range; `labelPrefix` names the collection in errors.
 */
export function readIntegerOptions(context: IExecuteFunctions, collection: INodeProperties, labelPrefix = ''): Record<string, number> {
	const values = context.getNodeParameter(collection.name, 0, {}) as Record<string, unknown>;
	const read: Record<string, number> = {};
	for (const option of collection.options as INodeProperties[]) {
		const { minValue = 0, maxValue = Number.MAX_SAFE_INTEGER } = option.typeOptions ?? {};
		const label = `${labelPrefix}${option.displayName}`;
		read[option.name] = values[option.name] === undefined ? (option.default as number) : requireIntegerInRange(values[option.name], label, minValue, maxValue);
	}
	return read;
}
