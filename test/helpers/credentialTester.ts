/**
 * Runs the credential's declarative Test as n8n's CredentialsTester does (n8n 2.41.1,
 * `services/credentials-tester.service.js`, `runRequestTest`): a stand-in node whose one property
 * routes the test request, n8n-core's real RoutingNode and HTTP stack, then the rules and messages
 * applied in the tester's order. The real tester is proven in test/e2e/credential-test.e2e.test.ts.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type { ICredentialDataDecryptedObject, ICredentialsDecrypted, INode, INodeType } from 'n8n-workflow';
import { Workflow, createRunExecutionData } from 'n8n-workflow';

import { CampaignCallingApi } from '../../credentials/CampaignCallingApi.credentials';
import { additionalDataFor, nodeTypesFor, type AuthenticatedRequestHook, type CredentialData } from './n8nContext.ts';

export interface TestResult {
	status: 'OK' | 'Error';
	message: string;
}

type TesterError = Error & { cause?: { code?: string; response?: { status: number; statusText?: string } } };

/** `afterAuthenticate` sees the Test's request as the credential left it, and may change it (e.g. to wait less). */
export async function runCredentialTest(data: ICredentialDataDecryptedObject, afterAuthenticate?: AuthenticatedRequestHook): Promise<TestResult> {
	const credentialType = new CampaignCallingApi();
	const test = credentialType.test;
	if (!test) throw new Error('the credential has no declarative test');
	const nodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: [],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' }],
		},
	} as unknown as INodeType;
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'c1', name: 'Campaign Calling' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypesFor(nodeType) });
	const decrypted: ICredentialsDecrypted = { id: 'c1', name: 'Campaign Calling', type: credentialType.name, data };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(data as unknown as CredentialData, afterAuthenticate),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	let response;
	try {
		response = await new RoutingNode(context, nodeType, decrypted).runNode();
	} catch (caught) {
		const error = caught as TesterError;
		if (error.cause?.response) {
			const { status, statusText } = error.cause.response;
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status) return { status: 'Error', message: rule.properties.message };
			}
			return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		}
		if (error.cause?.code) return { status: 'Error', message: error.cause.code };
		return { status: 'Error', message: error.message };
	}
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		// The tester reads response[0][0].json: a body of [] leaves no item, and it throws (seen in real n8n 2.41.1).
		if (!response?.[0]?.[0]) throw new TypeError("Cannot read properties of undefined (reading 'json')");
		const json = response[0][0].json as unknown;
		// The tester's own lookup is lodash `get`.
		const value = rule.properties.key.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | null | undefined)?.[key], json);
		if (value === rule.properties.value) return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
