/**
 * Runs the package's nodes inside n8n's own execution contexts (n8n-core's ExecuteContext and
 * HookContext/WebhookContext stand-ins) so tests get n8n's real parameter and expression
 * handling, continueOnFail, execution metadata helpers and HTTP stack (axios through
 * httpRequestWithAuthentication). Only the credential store is faked: it hands out the
 * credential data given, and applies the credential's own `authenticate` function.
 */
import { ExecuteContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow, createRunExecutionData } from 'n8n-workflow';

import { CampaignCallingApi } from '../../credentials/CampaignCallingApi.credentials';
import { CampaignCalling } from '../../nodes/CampaignCalling/CampaignCalling.node';

export interface CredentialData {
	baseUrl: string;
	apiKey: string;
}

export interface RunOptions {
	parameters: IDataObject;
	items?: INodeExecutionData[];
	credentials: CredentialData;
	continueOnFail?: boolean;
	/** The node's Settings → On Error; `continueOnFail: true` is 'continueRegularOutput'. */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** The node's Settings → Retry On Fail. */
	retryOnFail?: boolean;
}

const credentialType = new CampaignCallingApi();

/** Applies the credential's own `authenticate` function, as n8n's credentials helper does. */
export async function authenticate(credentials: ICredentialDataDecryptedObject, options: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	if (typeof credentialType.authenticate !== 'function') throw new Error('the credential\'s authenticate is not a function');
	return credentialType.authenticate(credentials, options);
}

/** What a test may do to a request once the credential authenticated it: record it, or shorten its timeout. */
export type AuthenticatedRequestHook = (options: IHttpRequestOptions) => IHttpRequestOptions;

export function additionalDataFor(credentials: CredentialData, afterAuthenticate: AuthenticatedRequestHook = (options) => options): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: {
			getParentTypes: () => [],
			isCredentialUsableByNode: () => true,
			getDecrypted: async () => ({ ...credentials }),
			preAuthentication: async () => undefined,
			authenticate: async (data: ICredentialDataDecryptedObject, _type: string, options: IHttpRequestOptions) =>
				afterAuthenticate(await authenticate(data, options)),
		},
		executionId: 'test-execution',
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export function nodeTypesFor(nodeType: INodeType): INodeTypes {
	return {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
}

/** Builds n8n's real ExecuteContext for the action node over the given items. */
export function executeContextFor(options: RunOptions): { context: ExecuteContext; node: INode; nodeType: CampaignCalling; workflow: Workflow } {
	const nodeType = new CampaignCalling();
	const node: INode = {
		id: 'node-under-test',
		name: 'Campaign Calling',
		type: 'n8n-nodes-campaign-calling.campaignCalling',
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters as INode['parameters'],
		credentials: { campaignCallingApi: { id: 'credential-1', name: 'Campaign Calling account' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.onError ? { onError: options.onError } : {}),
		...(options.retryOnFail ? { retryOnFail: true } : {}),
	};
	const workflow = new Workflow({
		id: 'workflow-under-test',
		name: 'Test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: nodeTypesFor(nodeType),
	});
	const items = options.items ?? [{ json: {} }];
	const context = runContext(workflow, node, options, items, { node, data: { main: [items] }, source: null });
	return { context, node, nodeType, workflow };
}

/** n8n's ExecuteContext for one run of `node` over `items`, with the execute data n8n hands that run. */
function runContext(workflow: Workflow, node: INode, options: RunOptions, items: INodeExecutionData[], executeData: IExecuteData): ExecuteContext {
	return new ExecuteContext(workflow, node, additionalDataFor(options.credentials), 'manual', createRunExecutionData(), 0, items, { main: [items] }, executeData, []);
}

/**
 * The tries of one run of the action node, as n8n's Retry On Fail makes them: each call runs the node in
 * a new ExecuteContext over the same execute data object, and returns its single output.
 */
export function triesOf(options: RunOptions): () => Promise<INodeExecutionData[]> {
	const { context, node, nodeType, workflow } = executeContextFor(options);
	const executeData = context.getExecuteData();
	const items = executeData.data.main[0] ?? [];
	return async () => {
		const tryContext = runContext(workflow, node, options, items, executeData);
		const [output] = await nodeType.execute.call(tryContext);
		return output;
	};
}

/** Runs the action node once and returns its single output. */
export async function runActionNode(options: RunOptions): Promise<INodeExecutionData[]> {
	const { context, nodeType } = executeContextFor(options);
	const [output] = await nodeType.execute.call(context);
	return output;
}

/** Runs the action node and returns the error it throws (fails the test when it does not throw). */
export async function runActionNodeExpectingError(options: RunOptions): Promise<Error & { description?: string; context?: IDataObject }> {
	try {
		await runActionNode(options);
	} catch (error) {
		return error as Error & { description?: string; context?: IDataObject };
	}
	throw new Error('The node did not fail');
}
