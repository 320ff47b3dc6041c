import type { INodeProperties } from 'n8n-workflow';

/** How n8n sends the node's requests; the router reads it once per run. */
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
