import type {
	IAuthenticate,
	Icon,
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
		'https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. https://api.example.com',
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

	// The Test button runs the nodes' `campaignCallingApiTest` (credentials[].testedBy), which checks
	// that the answer is the service's own envelope; a declarative `test` here would take precedence.
}
