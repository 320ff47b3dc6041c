import type {
	IAuthenticate,
	IAuthenticateRuleResponseCode,
	IAuthenticateRuleResponseSuccessBody,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** The listing the Test reads: cheap, and any valid key may call it (docs/service-interface.md, "Endpoints the package calls"). */
const TEST_PATH = '/v1/webhooks';

const WHAT_IS_CORRECT =
	'Enter the API address your provider gave you, without /v1 (for example https://api.example.com): ' +
	`GET {Base URL}${TEST_PATH} must answer the service's JSON, {"status": "ok", "message": "...", "data": [ ...webhook flows ]}.`;

const REFUSED_KEY =
	'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.';

/** What the Test says for an HTTP status; a rule's text cannot quote the answer (ARCHITECTURE.md, "The Test's rules"). */
function statusMessage(status: number): string {
	if (status < 400) {
		return `The Base URL answered GET ${TEST_PATH} with HTTP ${status}, a redirect, which the Test does not follow: it would carry the API key to another address. ${WHAT_IS_CORRECT}`;
	}
	if (status === 401 || status === 403) {
		return `The service refused this API key (HTTP ${status}). Check the key, and that the Base URL is your provider's API address.`;
	}
	if (status === 407) {
		return 'A proxy between n8n and the service asks for authentication (HTTP 407). Add the proxy\'s user and password to n8n\'s HTTP_PROXY / HTTPS_PROXY setting.';
	}
	if (status === 429) return 'The service is limiting the rate of requests (HTTP 429). Wait a moment, then test again.';
	if (status >= 500) {
		return `The Base URL answered GET ${TEST_PATH} with HTTP ${status}: the service, or a gateway in front of it, had a problem. Test again later; if it persists, check the Base URL. ${WHAT_IS_CORRECT}`;
	}
	return `The Base URL answered GET ${TEST_PATH} with HTTP ${status}: it is not the Campaign Calling API's address. ${WHAT_IS_CORRECT}`;
}

/** A rule for every status a server is likely to give, so none shows as n8n's bare status text. */
const statusesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, index) => first + index);

const STATUS_RULES: IAuthenticateRuleResponseCode[] = [...statusesFrom(300, 308), ...statusesFrom(400, 431), ...statusesFrom(500, 511)].map(
	(value) => ({ type: 'responseCode', properties: { value, message: statusMessage(value) } }),
);

const NOT_THE_API =
	`The Base URL answered GET ${TEST_PATH}, but not with the Campaign Calling API's JSON: it sent a web page, an empty answer, plain text or another API's JSON. ${WHAT_IS_CORRECT}`;

const NO_DATA =
	`The Base URL answered GET ${TEST_PATH} with a "status" but no "data" list: that is not the Campaign Calling API's listing. ${WHAT_IS_CORRECT}`;

/** A 2xx answer fails when `key` has the value given; `undefined` fails an answer without that key. */
const BODY_RULES = [
	{ key: 'status', value: undefined, message: NOT_THE_API },
	// A rule matches one spelling: each casing of "error" the service may send has its own.
	...['error', 'ERROR', 'Error'].map((value) => ({ key: 'status', value, message: REFUSED_KEY })),
	{ key: 'data', value: undefined, message: NO_DATA },
].map((properties): IAuthenticateRuleResponseSuccessBody => ({ type: 'responseSuccessBody', properties }));

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
				'The address of the Campaign Calling API as your provider gives it. https:// is recommended; http:// is accepted. A trailing slash is fine.',
			hint: 'Without /v1 at the end, for example https://api.example.com',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'A user API key of your company, sent as a Bearer token on every request. Add to Campaign accepts only a user API key. The Test reads the webhook-flow listing, which other bearer tokens (a JWT, for one) pass too, so a passing Test does not prove that the key can add contacts.',
		},
	];

	// A function, not a `={{ ... }}` header template, which n8n evaluates in its sandbox on every request.
	authenticate: IAuthenticate = async (credentials, requestOptions) => ({
		...requestOptions,
		headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
		// Only the Test's request has a baseURL; n8n gives it 300 s whatever the Test asks, so it waits 15 s here.
		...(requestOptions.baseURL === undefined ? {} : { timeout: 15_000 }),
	});

	// Declarative, so n8n's SSRF protection and proxy apply as to every operation; a redirect is not followed, as by them.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.trim() }}',
			url: TEST_PATH,
			method: 'GET',
			headers: { Accept: 'application/json' },
			disableFollowRedirect: true,
		},
		// n8n reads both kinds of rule from one list; the type offers a list of one kind.
		rules: [...STATUS_RULES, ...BODY_RULES] as ICredentialTestRequest['rules'],
	};
}
