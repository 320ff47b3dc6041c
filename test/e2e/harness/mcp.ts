/**
 * The action node's tools behind n8n's MCP Server Trigger, reached with the official MCP client SDK
 * (`@modelcontextprotocol/sdk`), as Claude Desktop, IDE agents and other MCP clients reach it.
 *
 * The workflow is examples/mcp-campaign-tools.json (what users import), with its credentials pointed at the
 * test's and its path made unique. The trigger serves, from n8n's source (McpTrigger.node.js):
 * - version 2 and up (2.1 is what 2.x's editor adds, 2 what 1.x's adds): `<base>mcp/<path>` for both
 *   transports; a GET opens server-sent events (SSE), a POST without a session starts streamable HTTP;
 * - versions 1 and 1.1: SSE only, `<base>mcp/<path>/sse` and `<base>mcp/<path>/messages`;
 * - test URLs under `mcp-test/` instead of `mcp/` while the editor listens for a test event.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { randomUUID } from 'node:crypto';
import { MCP_EXAMPLE, readExample } from '../../../scripts/examples.ts';
import type { N8nVersion } from './runtime.ts';
import { CREDENTIAL_TYPE, type CredentialRef, type WorkflowJson } from './workflows.ts';

export const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';
/** The version each line's editor gives a new MCP Server Trigger (its newest). */
export const MCP_TRIGGER_VERSION: Record<N8nVersion, number> = { '2.41.1': 2.1, '1.123.81': 2 };
/** n8n's Bearer Auth credential (data `{ token }`), which the trigger's Authentication = Bearer Auth takes. */
export const BEARER_CREDENTIAL_TYPE = 'httpBearerAuth';
/** The tools a model sees: n8n names each after its node, other characters than letters, digits, _ and - as _. */
export const TOOL_NAMES = { addToCampaign: 'Add_to_Campaign', getContact: 'Get_Contact', getCampaign: 'Get_Campaign' } as const;
/** Each tool's `$fromAI` keys, which become its input schema's properties. */
export const TOOL_ARGUMENTS: Record<string, string[]> = {
	[TOOL_NAMES.addToCampaign]: ['firstName', 'lastName', 'phoneNumber'],
	[TOOL_NAMES.getContact]: ['contactId'],
	[TOOL_NAMES.getCampaign]: [],
};

export type McpTransportKind = 'streamable HTTP' | 'SSE';
export const MCP_TRANSPORTS: McpTransportKind[] = ['streamable HTTP', 'SSE'];

export interface McpWorkflowOptions {
	version: N8nVersion;
	/** The trigger's path (the example's is campaign-calling-tools); unique per workflow in one n8n. */
	path: string;
	campaignCredential: CredentialRef;
	bearerCredential: CredentialRef;
	/** 'auto': every tool's description left to n8n (Tool Description = Set Automatically), to compare. */
	descriptions?: 'example' | 'auto';
}

/** The example with this test's credentials, path and the trigger version of the given line. */
export function mcpToolsWorkflow(options: McpWorkflowOptions): WorkflowJson {
	const workflow = readExample(MCP_EXAMPLE);
	for (const node of workflow.nodes) {
		if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = options.campaignCredential;
		if (node.type === MCP_TRIGGER_TYPE) {
			node.typeVersion = MCP_TRIGGER_VERSION[options.version];
			node.parameters.path = options.path;
			node.webhookId = randomUUID();
			node.credentials = { [BEARER_CREDENTIAL_TYPE]: options.bearerCredential };
		}
		if (options.descriptions === 'auto' && 'toolDescription' in node.parameters) {
			const { toolDescription: _dropped, ...rest } = node.parameters;
			node.parameters = { ...rest, descriptionType: 'auto' };
		}
	}
	return { ...workflow, name: `${workflow.name} (${options.path})` };
}

/** The trigger's production URL (`mcp/`), or its test URL (`mcp-test/`). */
export function mcpUrl(baseUrl: string, path: string, { test = false } = {}): string {
	return `${baseUrl}${test ? 'mcp-test' : 'mcp'}/${path}`;
}

export interface McpConnection {
	client: Client;
	/** Everything the server sent this client (response headers and bodies, as text), for searching. */
	received(): string;
	close(): Promise<void>;
}

/**
 * Connects the SDK's client over the given transport, with `Authorization: Bearer <token>` when a token is
 * given. Rejects (as the SDK does) when the server refuses the connection.
 */
export async function connectMcp(url: string, transportKind: McpTransportKind, token?: string): Promise<McpConnection> {
	const pieces: string[] = [];
	const requestInit: RequestInit = token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } };
	const fetchRecorded = recordingFetch(pieces);
	const endpoint = new URL(url);
	const transport: Transport =
		transportKind === 'SSE'
			? new SSEClientTransport(endpoint, { requestInit, fetch: fetchRecorded })
			: new StreamableHTTPClientTransport(endpoint, { requestInit, fetch: fetchRecorded });
	const client = new Client({ name: 'campaign-calling-e2e', version: '1.0.0' });
	await client.connect(transport);
	return {
		client,
		received: () => pieces.join(''),
		async close() {
			await client.close();
		},
	};
}

/** A fetch that hands the client every answer unchanged and keeps a copy of its headers and body. */
function recordingFetch(pieces: string[]): typeof fetch {
	return async (input, init) => {
		const response = await fetch(input, init);
		const headers: string[] = [];
		response.headers.forEach((value, name) => headers.push(`${name}: ${value}`));
		pieces.push(`${response.status}\n${headers.join('\n')}\n\n`);
		if (!response.body) return response;
		const [forClient, forRecord] = response.body.tee();
		void (async () => {
			const reader = forRecord.getReader();
			const decoder = new TextDecoder();
			for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) pieces.push(decoder.decode(chunk.value, { stream: true }));
		})().catch(() => undefined);
		return new Response(forClient, { status: response.status, statusText: response.statusText, headers: response.headers });
	};
}

/** The text parts of a tool call's result, joined. */
export function resultText(result: object): string {
	const content = 'content' in result && Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
	return content.map((part) => part.text ?? '').join('');
}

/** A raw MCP `initialize` POST (what starts a streamable HTTP session), outside the SDK. */
export async function postInitialize(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
	const initialize = {
		jsonrpc: '2.0',
		id: 1,
		method: 'initialize',
		params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
	};
	return await postJsonRpc(url, initialize, undefined, headers);
}

export interface RawAnswer {
	status: number;
	headers: Headers;
	body: string;
}

/** A raw JSON-RPC POST to an MCP URL, in the session `sessionId` when given. */
export async function postJsonRpc(url: string, message: unknown, sessionId?: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			...(sessionId ? { 'mcp-session-id': sessionId } : {}),
			...headers,
		},
		body: JSON.stringify(message),
		signal: AbortSignal.timeout(15_000),
	});
	return { status: response.status, headers: response.headers, body: await response.text().catch(() => '') };
}
