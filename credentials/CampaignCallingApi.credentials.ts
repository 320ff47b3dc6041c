import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class CampaignCallingApi implements ICredentialType {
	name = 'campaignCallingApi';

	displayName = 'Campaign Calling API';

	icon: Icon = {
		light: 'file:../nodes/CampaignCalling/campaignCalling.svg',
		dark: 'file:../nodes/CampaignCalling/campaignCalling.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling#setting-up-the-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				'The address of the Campaign Calling API, as given by your provider, starting with https://. A trailing slash is fine.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'A user API key of your company. It is sent as a Bearer token on every request. Adding contacts needs a user API key; a JWT works for the other operations.',
		},
	];

	// A function rather than a generic `={{ ... }}` header template: n8n evaluates such a template in
	// its expression sandbox on every request (about 2 ms each in n8n 2.x), which adds up over batches.
	authenticate: IAuthenticate = async (credentials, requestOptions) => ({
		...requestOptions,
		headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
	});

	// The service answers HTTP 200 with `status: "error"` for a refused key, so the test reads the
	// envelope; 401/403 answers fail the test through n8n's own "Authorization failed" message.
	// (axios joins baseURL and url without doubling a trailing slash.)
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/webhooks',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'status',
					value: 'error',
					message:
						'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.',
				},
			},
		],
	};
}
