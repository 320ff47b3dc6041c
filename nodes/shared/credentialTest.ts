import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

import { isPlainObject, normaliseBaseUrl, redactSecret } from './transport';

/**
 * The name both nodes give n8n in `credentials[].testedBy`. There it is written out as text: n8n's lint
 * reads `testedBy` from the source to check that the credential is tested. A unit test ties the two.
 */
export const CREDENTIAL_TEST_NAME = 'campaignCallingApiTest';

/** The listing the Test reads: cheap, and any valid key may call it (spec, "Get webhooks"). */
const TEST_PATH = '/v1/webhooks';

const TEST_TIMEOUT_MS = 15_000;

const NOT_THE_SERVICE = 'The Base URL does not look like the Campaign Calling API';

const WHAT_IS_CORRECT =
	'A correct Base URL is the API address your provider gave you, without /v1 (for example https://api.example.com): ' +
	`GET {Base URL}${TEST_PATH} must answer the service's JSON, {"status": "ok", "message": "...", "data": [ ...webhook flows ]}.`;

const REFUSED_KEY =
	'The service refused this API key (it answered status "error"). Check the key and that it belongs to your company.';

/** What the test request got back, as far as the verdict needs it. */
export interface TestAnswer {
	statusCode: number;
	contentType: string;
	body: string;
	/** The Location header of a redirect. */
	location?: string;
}

/**
 * The credential's Test button. A function rather than the credential's declarative `test`, whose
 * rules can only fail on one key having one value: they cannot require the service's envelope
 * (`status` text plus a `data` list), so any server answering 200 passed, n8n's own address included.
 *
 * The request goes out through the runtime's `fetch`: n8n hands a credential test function only its
 * deprecated `helpers.request`, in 1.x and 2.x alike.
 */
export async function testCampaignCallingCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey : '';
	const failed = (message: string): INodeCredentialTestResult => ({ status: 'Error', message: redactSecret(message, apiKey) });

	let baseUrl: string;
	try {
		baseUrl = normaliseBaseUrl(data.baseUrl);
	} catch (error) {
		return failed((error as Error).message);
	}
	if (apiKey.trim() === '') return failed('The API Key is empty. Enter the user API key of your company.');

	const url = `${baseUrl}${TEST_PATH}`;
	let answer: TestAnswer;
	try {
		const response = await fetch(url, {
			method: 'GET',
			// The same header the credential's `authenticate` adds to every request.
			headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
			// A redirect is reported, not followed: the node's writes would not survive one, and a
			// followed redirect would carry the key to wherever it points.
			redirect: 'manual',
			signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
		});
		answer = {
			statusCode: response.status,
			contentType: response.headers.get('content-type') ?? '',
			location: response.headers.get('location') ?? undefined,
			body: await response.text(),
		};
	} catch (error) {
		return failed(`Could not reach ${new URL(url).origin}: ${unreachableReason(error)}. ${WHAT_IS_CORRECT}`);
	}
	return redacted(judgeTestAnswer(url, answer), apiKey);
}

function redacted(result: INodeCredentialTestResult, apiKey: string): INodeCredentialTestResult {
	return { ...result, message: redactSecret(result.message, apiKey) };
}

/** The verdict on the test request's answer: only the service's own listing envelope passes. */
export function judgeTestAnswer(url: string, answer: TestAnswer): INodeCredentialTestResult {
	const { statusCode } = answer;
	const notTheService = (what: string): INodeCredentialTestResult => ({
		status: 'Error',
		message: `${NOT_THE_SERVICE}: GET ${url} answered ${what}. ${WHAT_IS_CORRECT}`,
	});

	if (statusCode >= 300 && statusCode < 400) {
		return notTheService(`HTTP ${statusCode}, a redirect${answer.location ? ` to ${answer.location}` : ''}`);
	}
	if (statusCode === 401 || statusCode === 403) {
		return {
			status: 'Error',
			message: `GET ${url} answered HTTP ${statusCode}: the API key was refused. Check the key, and that the Base URL is your provider's API address.`,
		};
	}
	if (statusCode >= 500) {
		return {
			status: 'Error',
			message: `GET ${url} answered HTTP ${statusCode}: the service had a problem. Try again later; if it persists, check the Base URL. ${WHAT_IS_CORRECT}`,
		};
	}
	if (statusCode < 200 || statusCode >= 300) return notTheService(`HTTP ${statusCode}`);

	const text = answer.body.trim();
	if (text === '') return notTheService(`HTTP ${statusCode} with an empty body`);
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		const isPage = /html/i.test(answer.contentType) || /^<(!doctype|html)/i.test(text);
		return notTheService(isPage ? 'with a web page (HTML), not JSON' : 'with text that is not JSON');
	}
	if (!isPlainObject(value) || typeof value.status !== 'string') {
		return notTheService('with JSON that is not the service\'s envelope (it has no "status" text)');
	}
	if (value.status.toLowerCase() === 'error') return { status: 'Error', message: REFUSED_KEY };
	if (!Array.isArray(value.data)) {
		return notTheService('with JSON whose "data" is not a list of webhook flows');
	}
	return { status: 'OK', message: 'Connection tested successfully' };
}

function unreachableReason(error: unknown): string {
	const cause = (error as { cause?: { code?: unknown } }).cause;
	const code = typeof cause?.code === 'string' ? cause.code : '';
	if ((error as Error).name === 'TimeoutError') return `no answer within ${TEST_TIMEOUT_MS / 1000} seconds`;
	if (code === 'ECONNREFUSED') return 'the connection was refused';
	// The runtime's fetch reports a connection closed mid-answer as UND_ERR_SOCKET.
	if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'the connection was dropped before an answer came';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name could not be resolved';
	if (code.startsWith('ERR_TLS') || /CERT|SSL/.test(code)) return `its TLS certificate was not accepted (${code})`;
	return code ? `the request failed (${code})` : 'the request failed';
}
