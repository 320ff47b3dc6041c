/**
 * Workflows where n8n's AI Agent uses the action node as a tool: Webhook → AI Agent, with an OpenAI Chat
 * Model (its credential's Base URL pointing at the model stub) and the tool variant of the action node
 * (Contact → Add to Campaign, the contact's fields filled by the model through `$fromAI`).
 */
import { randomUUID } from 'node:crypto';
import type { N8nVersion } from './runtime.ts';
import { CREDENTIAL_TYPE, PACKAGE_NAME, WEBHOOK_NODE_NAME, node } from './workflows.ts';
import type { CredentialRef, WorkflowJson, WorkflowNode } from './workflows.ts';

/** n8n generates this type for every node with `usableAsTool`. */
export const TOOL_NODE_TYPE = `${PACKAGE_NAME}.campaignCallingTool`;
export const AGENT_NODE_NAME = 'AI Agent';
export const MODEL_NODE_NAME = 'OpenAI Chat Model';
export const TOOL_NODE_NAME = 'Add to Campaign';
/** The credential type of n8n's OpenAI nodes; its `url` is the Base URL. */
export const OPENAI_CREDENTIAL_TYPE = 'openAiApi';

/**
 * The versions a new node gets in each line's editor (the agent's `defaultVersion`; the chat model's
 * newest, 1.3 on both). The chat model's "Use Responses API" (on by default in 1.3) is switched off: the
 * stub speaks Chat Completions, which is also what OpenAI-compatible servers other than OpenAI offer.
 */
const AGENT_VERSION: Record<N8nVersion, number> = { '2.41.1': 3.1, '1.123.81': 3 };
const CHAT_MODEL_VERSION = 1.3;

/** The `$fromAI` keys of the tool, which become its schema's properties. */
export const FROM_AI_KEYS = ['firstName', 'lastName', 'phoneNumber'] as const;

export interface AgentWorkflowOptions {
	version: N8nVersion;
	path: string;
	campaignId: string;
	campaignCredential: CredentialRef;
	openAiCredential: CredentialRef;
	/** The tool node's Settings > On Error; default n8n's (stop the workflow). */
	toolOnError?: WorkflowNode['onError'];
	/** The Webhook's Respond: 'lastNode' (default) answers with the agent's output; 'streaming' streams it. */
	responseMode?: 'lastNode' | 'streaming';
}

type AiConnectionType = 'main' | 'ai_languageModel' | 'ai_tool';
type AiConnections = Record<string, Partial<Record<AiConnectionType, Array<Array<{ node: string; type: AiConnectionType; index: number }>>>>>;

export function agentWorkflow(options: AgentWorkflowOptions): WorkflowJson {
	const streaming = options.responseMode === 'streaming';
	const webhook = node(
		WEBHOOK_NODE_NAME,
		'n8n-nodes-base.webhook',
		streaming ? 2.1 : 2,
		{
			httpMethod: 'POST',
			path: options.path,
			responseMode: options.responseMode ?? 'lastNode',
			...(streaming ? {} : { responseData: 'allEntries' }),
			options: {},
		},
		{ webhookId: randomUUID() },
	);
	const agent = node(AGENT_NODE_NAME, '@n8n/n8n-nodes-langchain.agent', AGENT_VERSION[options.version], {
		promptType: 'define',
		text: '={{ $json.body.prompt }}',
		options: { systemMessage: 'You add people to the calling campaign with the tool you have.', enableStreaming: streaming },
	});
	const model = node(
		MODEL_NODE_NAME,
		'@n8n/n8n-nodes-langchain.lmChatOpenAi',
		CHAT_MODEL_VERSION,
		{ model: { __rl: true, mode: 'id', value: 'stub-model' }, responsesApiEnabled: false, options: { maxRetries: 0 } },
		{ credentials: { [OPENAI_CREDENTIAL_TYPE]: options.openAiCredential } },
	);
	const tool = node(
		TOOL_NODE_NAME,
		TOOL_NODE_TYPE,
		1,
		{
			toolDescription: 'Adds one person to the phone-calling campaign. The service then calls them.',
			resource: 'contact',
			operation: 'addToCampaign',
			campaignId: options.campaignId,
			inputMode: 'fields',
			firstName: "={{ $fromAI('firstName', 'The person\\'s first name', 'string') }}",
			lastName: "={{ $fromAI('lastName', 'The person\\'s last name', 'string') }}",
			phoneNumber: "={{ $fromAI('phoneNumber', 'Phone number in international format, e.g. +14155550123', 'string') }}",
			additionalFields: {},
			options: {},
		},
		{ credentials: { [CREDENTIAL_TYPE]: options.campaignCredential }, ...(options.toolOnError ? { onError: options.toolOnError } : {}) },
	);
	const connections: AiConnections = {
		[WEBHOOK_NODE_NAME]: { main: [[{ node: AGENT_NODE_NAME, type: 'main', index: 0 }]] },
		[MODEL_NODE_NAME]: { ai_languageModel: [[{ node: AGENT_NODE_NAME, type: 'ai_languageModel', index: 0 }]] },
		[TOOL_NODE_NAME]: { ai_tool: [[{ node: AGENT_NODE_NAME, type: 'ai_tool', index: 0 }]] },
	};
	const positions: Record<string, [number, number]> = {
		[WEBHOOK_NODE_NAME]: [0, 0],
		[AGENT_NODE_NAME]: [240, 0],
		[MODEL_NODE_NAME]: [160, 220],
		[TOOL_NODE_NAME]: [400, 220],
	};
	const nodes = [webhook, agent, model, tool].map((each) => ({ ...each, position: positions[each.name] }));
	// workflows.ts types connections as main-only; the public API takes any connection type.
	return { name: `e2e agent ${options.path}`, nodes, connections: connections as WorkflowJson['connections'], settings: { executionOrder: 'v1' } };
}
