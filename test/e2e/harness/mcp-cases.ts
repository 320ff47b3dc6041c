/**
 * The MCP path's cases inside a real n8n, against the simulator, with the official MCP client SDK: the
 * example workflow (examples/mcp-campaign-tools.json) published, then reached over each transport its
 * trigger offers. Shared by the single-process suite (mcp.e2e) and queue mode (queue.e2e): call it
 * inside a describe block.
 */
import { DEMO, startSimulator, type Contact, type Simulator } from '../../simulator/server.ts';
import type { Execution, N8nInstance } from './n8n.ts';
import { log } from './process.ts';
import type { N8nVersion } from './runtime.ts';
import { CREDENTIAL_TYPE, type CredentialRef } from './workflows.ts';
import {
	BEARER_CREDENTIAL_TYPE,
	connectMcp,
	mcpToolsWorkflow,
	mcpUrl,
	postInitialize,
	resultText,
	TOOL_ARGUMENTS,
	TOOL_NAMES,
	type McpConnection,
	type McpTransportKind,
} from './mcp.ts';

/** A token of the kind users generate; the tests look for it where it must not be. */
export const MCP_TEST_TOKEN = 'mcp-e2e-token-7c1f0a9d2b4e4f3a8e6d5c4b3a291807';
const CONTACT = { firstName: 'Grace', lastName: 'Hopper', phoneNumber: '+14155550199' };
/** The simulator's message for an injected 500, which the tool error carries. */
const FAULT_MESSAGE = 'internal server error';

/** Start-up on the shared 2-core machine took up to 154 s at load 20-40 (n8n 2.41.1); the harness's default is 120 s. */
export const READY_TIMEOUT_MS = 300_000;
/** The trigger's path in these cases: the example's own. */
export const MCP_PATH = 'campaign-calling-tools';

export interface McpCaseOptions<T extends N8nInstance> {
	version: N8nVersion;
	/** Starts the n8n the cases run in (with the package installed), once for the block; stopped after it. */
	start: () => Promise<T>;
	/** The transports to prove. */
	transports: McpTransportKind[];
	/**
	 * What n8n records for a tool call that failed: an execution with this status, or none at all. Measured:
	 * 2.41.1 'success' (single process and queue mode: the error is the tool's answer), 1.123.81 none.
	 */
	failedCallExecution: 'success' | 'none';
	/** Called with every execution a tool call started, e.g. to check which process ran it. */
	checkExecution?: (n8n: T, execution: Execution) => Promise<void> | void;
}

export function mcpCases<T extends N8nInstance>(options: McpCaseOptions<T>): void {
	let n8n: T;
	let simulator: Simulator;
	let credentials: { campaign: CredentialRef; bearer: CredentialRef };
	let workflowId: string;
	let url: string;
	let executionsSeen = 0;
	const open: McpConnection[] = [];
	const failedCallLeavesExecution = options.failedCallExecution !== 'none';

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await options.start();
		const campaign = await n8n.api.createCredential('Campaign Calling (simulator)', CREDENTIAL_TYPE, { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		const bearer = await n8n.api.createCredential('MCP bearer token', BEARER_CREDENTIAL_TYPE, { token: MCP_TEST_TOKEN });
		credentials = { campaign, bearer };
		const path = MCP_PATH;
		const { id } = await n8n.api.createWorkflow(
			mcpToolsWorkflow({ version: options.version, path, campaignCredential: campaign, bearerCredential: bearer }),
		);
		workflowId = id;
		await n8n.api.activate(id);
		url = mcpUrl(n8n.webhookUrl, path);
	});

	afterAll(async () => {
		for (const connection of open) await connection.close().catch(() => undefined);
		await n8n?.stop();
		await simulator?.close();
	});

	beforeEach(() => simulator.reset());

	async function connect(transport: McpTransportKind, token: string | undefined = MCP_TEST_TOKEN): Promise<McpConnection> {
		const connection = await connectMcp(url, transport, token);
		open.push(connection);
		return connection;
	}

	/** The executions tool calls started since the last look (each tool call is one execution). */
	async function newExecutions(count: number): Promise<Execution[]> {
		const all = await n8n.api.waitForExecutions(workflowId, executionsSeen + count);
		const fresh = all.slice(executionsSeen);
		executionsSeen = all.length;
		for (const execution of fresh) await options.checkExecution?.(n8n, execution);
		return fresh;
	}

	const addedContacts = (): Contact[] =>
		[...simulator.state.contacts.values()].filter((contact) => contact.phone_number === CONTACT.phoneNumber);
	const addRequests = () => simulator.requests.filter((request) => request.path.includes('addToCampaign'));

	describe.each(options.transports)('over %s', (transport) => {
		it('lists the three tools, each with exactly its $fromAI arguments and the description the example gives it', async () => {
			const connection = await connect(transport);
			const { tools } = await connection.client.listTools();

			expect(tools.map((tool) => tool.name).sort()).toEqual(Object.values(TOOL_NAMES).sort());
			for (const tool of tools) {
				expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual([...TOOL_ARGUMENTS[tool.name]].sort());
			}
			const add = tools.find((tool) => tool.name === TOOL_NAMES.addToCampaign);
			expect(add?.description).toMatch(/billed phone calls/);
			log(`n8n ${options.version} over ${transport}: tools/list → ${tools.map((tool) => `${tool.name}(${Object.keys(tool.inputSchema.properties ?? {}).join(', ')})`).join('; ')}`);
			// Listing tools runs nothing and sends nothing.
			expect(simulator.requests).toHaveLength(0);
			await connection.close();
		});

		it('a call of Add_to_Campaign adds the contact at the simulator in exactly one request and returns it', async () => {
			const connection = await connect(transport);
			const result = await connection.client.callTool({ name: TOOL_NAMES.addToCampaign, arguments: CONTACT });

			expect(result.isError).toBeFalsy();
			expect(addRequests()).toHaveLength(1);
			const added = addedContacts();
			expect(added).toHaveLength(1);
			expect(added[0]).toMatchObject({ campaign_id: DEMO.campaignId, firstname: CONTACT.firstName, lastname: CONTACT.lastName });
			expect(resultText(result)).toContain(added[0].id);
			const [execution] = await newExecutions(1);
			expect(execution.status).toBe('success');
			await connection.close();
		});

		it('a service error comes back as a tool error, and the same session goes on to read the campaign', async () => {
			simulator.injectFault({ kind: 'http-500', method: 'POST', path: 'addToCampaign' });
			const connection = await connect(transport);
			const failed = await connection.client.callTool({ name: TOOL_NAMES.addToCampaign, arguments: CONTACT });

			expect(failed.isError).toBe(true);
			expect(resultText(failed)).toContain(FAULT_MESSAGE);
			expect(addRequests()).toHaveLength(1);
			expect(addedContacts()).toHaveLength(0);
			log(`n8n ${options.version} over ${transport}: the failed call's tool error: ${resultText(failed)}`);

			const campaign = await connection.client.callTool({ name: TOOL_NAMES.getCampaign, arguments: {} });
			expect(campaign.isError).toBeFalsy();
			expect(resultText(campaign)).toContain(DEMO.campaignId);
			const statuses = (await newExecutions(failedCallLeavesExecution ? 2 : 1)).map((execution) => execution.status);
			expect(statuses).toEqual(failedCallLeavesExecution ? [options.failedCallExecution, 'success'] : ['success']);
			await connection.close();
		});

		it('Get_Contact reads the contact a call added, by the id the model passes', async () => {
			const connection = await connect(transport);
			const added = await connection.client.callTool({ name: TOOL_NAMES.addToCampaign, arguments: CONTACT });
			const [contact] = addedContacts();
			expect(added.isError).toBeFalsy();
			const read = await connection.client.callTool({ name: TOOL_NAMES.getContact, arguments: { contactId: contact.id } });

			expect(read.isError).toBeFalsy();
			expect(resultText(read)).toContain(contact.id);
			expect(resultText(read)).toContain(CONTACT.phoneNumber);
			expect(addRequests()).toHaveLength(1);
			await newExecutions(2);
			await connection.close();
		});
	});

	it("tool descriptions: n8n's automatic ones (from each operation's action) against the example's, which say when to use a tool and what it costs", async () => {
		const path = 'campaign-calling-tools-auto';
		const auto = await n8n.api.createWorkflow(
			mcpToolsWorkflow({ version: options.version, path, campaignCredential: credentials.campaign, bearerCredential: credentials.bearer, descriptions: 'auto' }),
		);
		try {
			await n8n.api.activate(auto.id);
			const before = await connectMcp(mcpUrl(n8n.webhookUrl, path), options.transports[0], MCP_TEST_TOKEN);
			const automatic = descriptions((await before.client.listTools()).tools);
			await before.close();
			const after = await connect(options.transports[0]);
			const example = descriptions((await after.client.listTools()).tools);
			await after.close();
			log(`n8n ${options.version}: automatic tool descriptions: ${JSON.stringify(automatic, null, 1)}`);
			log(`n8n ${options.version}: the example's tool descriptions: ${JSON.stringify(example, null, 1)}`);

			expect(automatic).toEqual({
				[TOOL_NAMES.addToCampaign]: 'Add to campaign in Campaign Calling',
				[TOOL_NAMES.getContact]: 'Get contact in Campaign Calling',
				[TOOL_NAMES.getCampaign]: 'Get campaign in Campaign Calling',
			});
			expect(example[TOOL_NAMES.addToCampaign]).toMatch(/billed phone calls/);
			expect(example[TOOL_NAMES.getContact]).toMatch(/Read-only and free/);
			expect(example[TOOL_NAMES.getCampaign]).toMatch(/Read-only and free/);
		} finally {
			await n8n.api.deleteWorkflow(auto.id);
		}
	});

	it.each([
		['no bearer token', undefined],
		['a wrong bearer token', 'wrong-token'],
	])('refuses a client with %s (403) on every transport and route, and nothing reaches the service', async (_label, token) => {
		const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
		const callTool = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: TOOL_NAMES.addToCampaign, arguments: CONTACT } };
		const post = (body: unknown, extra: Record<string, string> = {}) =>
			fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers, ...extra },
				body: JSON.stringify(body),
			});
		const answers = [
			await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: AbortSignal.timeout(10_000) }),
			await postInitialize(url, headers),
			await post(callTool),
			await post(callTool, { 'mcp-session-id': 'a-guessed-session-id' }),
		];
		expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
		for (const transport of options.transports) await expect(connectMcp(url, transport, token)).rejects.toThrow();

		expect(simulator.requests).toHaveLength(0);
		expect(await n8n.api.listExecutions(workflowId)).toHaveLength(executionsSeen);
	});

	it('the API key appears in nothing any client received (while the service did get it)', async () => {
		let received = '';
		for (const transport of options.transports) {
			const connection = await connect(transport);
			await connection.client.listTools();
			await connection.client.callTool({ name: TOOL_NAMES.addToCampaign, arguments: CONTACT });
			simulator.injectFault({ kind: 'http-500', method: 'POST', path: 'addToCampaign' });
			await connection.client.callTool({ name: TOOL_NAMES.addToCampaign, arguments: CONTACT });
			await connection.client.callTool({ name: TOOL_NAMES.getCampaign, arguments: {} });
			received += connection.received();
			await connection.close();
		}
		await newExecutions(options.transports.length * (failedCallLeavesExecution ? 3 : 2));

		expect(received).toContain(DEMO.campaignId);
		expect(received).not.toContain(DEMO.apiKey);
		const sent = simulator.requests.filter((request) => JSON.stringify(request.headers).includes(DEMO.apiKey));
		expect(sent).toHaveLength(options.transports.length * 3);
	});
}

function descriptions(tools: Array<{ name: string; description?: string }>): Record<string, string | undefined> {
	return Object.fromEntries(tools.map((tool) => [tool.name, tool.description]));
}
