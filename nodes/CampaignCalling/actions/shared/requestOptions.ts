import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ServiceRequest } from '../../../shared/transport';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS } from '../../../shared/transport';
import { requireIntegerInRange } from '../../../shared/validation';

const MAX_RETRIES = 10;
const MAX_TIMEOUT_SECONDS = 600;

/** Node-wide settings of how requests to the service are made, for every operation. */
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
			typeOptions: { minValue: 0, maxValue: MAX_RETRIES },
			default: 3,
			description:
				'How often n8n repeats a read (Get) after a temporary failure (HTTP 5xx, 429, dropped connection), waiting longer each time. Writes are repeated only when the service was never reached. 0 turns retries off.',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_SECONDS },
			default: 60,
			description: 'How long n8n waits for the service to answer each request of this node',
		},
	],
};

/** How hard each request of a run tries: retries and timeout, as the transport takes them. */
export type RequestOptions = Required<Pick<ServiceRequest, 'maxRetries' | 'timeoutMs'>>;

/** Request Options, read once per run; a bad value refuses the whole run. */
export function readRequestOptions(context: IExecuteFunctions): RequestOptions {
	const options = context.getNodeParameter('requestOptions', 0, {}) as IDataObject;
	const maxRetries =
		options.maxRetries === undefined
			? DEFAULT_RETRY_POLICY.maxRetries
			: requireIntegerInRange(options.maxRetries, 'Request Options → Max Retries', 0, MAX_RETRIES);
	const timeoutSeconds =
		options.timeoutSeconds === undefined
			? DEFAULT_TIMEOUT_MS / 1000
			: requireIntegerInRange(options.timeoutSeconds, 'Request Options → Timeout (Seconds)', 1, MAX_TIMEOUT_SECONDS);
	return { maxRetries, timeoutMs: timeoutSeconds * 1000 };
}
