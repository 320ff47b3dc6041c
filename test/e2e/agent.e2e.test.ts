/**
 * The action node as an AI Agent tool in real n8n: Webhook → AI Agent, whose OpenAI Chat Model is a
 * scripted local stub (harness/modelStub.ts) and whose tool is the action node's tool variant (Contact →
 * Add to Campaign, fields from `$fromAI`), against the simulator. The stub calls the tool with a contact,
 * then answers with what the tool returned; it records everything it receives.
 */
import { DEMO, startSimulator, type Contact, type Simulator } from '../simulator/server.ts';
import { agentWorkflow, FROM_AI_KEYS, OPENAI_CREDENTIAL_TYPE, type AgentWorkflowOptions } from './harness/agent.ts';
import { FINAL_ANSWER_PREFIX, startModelStub, type ModelStub } from './harness/modelStub.ts';
import { executionError, type Execution, type N8nInstance } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { CREDENTIAL_TYPE, type CredentialRef } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const CONTACT = { firstName: 'Grace', lastName: 'Hopper', phoneNumber: '+14155550199' };
const PROMPT = { prompt: 'Please add Grace Hopper, +14155550199, to the campaign.' };
const OPENAI_KEY = 'stub-openai-key-not-a-secret';
/** The simulator's answer to the injected fault, which the tool's error carries. */
const FAULT_MESSAGE = 'internal server error';

describeEachVersion('the action node as an AI Agent tool in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let model: ModelStub;
	let credentials: { campaign: CredentialRef; openAi: CredentialRef };
	let workflowCount = 0;

	beforeAll(async () => {
		simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
		model = await startModelStub({ toolArguments: CONTACT, toolName: /add_to_campaign/i });
		n8n = await sharedN8n(version);
		const campaign = await n8n.api.createCredential('Campaign Calling (simulator)', CREDENTIAL_TYPE, {
			baseUrl: simulator.url,
			apiKey: DEMO.apiKey,
		});
		const openAi = await n8n.api.createCredential('Model stub', OPENAI_CREDENTIAL_TYPE, { apiKey: OPENAI_KEY, url: model.baseUrl, header: false });
		credentials = { campaign, openAi };
	});

	afterAll(async () => {
		await model?.close();
		await simulator?.close();
	});

	beforeEach(() => {
		simulator.reset();
		model.clear();
	});

	/** Creates and activates an agent workflow, posts the prompt to it, and returns its answer and execution. */
	async function runAgent(options: Partial<AgentWorkflowOptions> = {}): Promise<{ status: number; body: unknown; execution: Execution }> {
		const path = `agent-${++workflowCount}`;
		const workflow = agentWorkflow({
			version,
			path,
			campaignId: DEMO.campaignId,
			campaignCredential: credentials.campaign,
			openAiCredential: credentials.openAi,
			...options,
		});
		const { id } = await n8n.api.createWorkflow(workflow);
		await n8n.api.activate(id);
		const answer = await n8n.api.callWebhook(path, PROMPT);
		const [execution] = await n8n.api.waitForExecutions(id, 1);
		await n8n.api.deleteWorkflow(id);
		return { ...answer, execution };
	}

	function campaignContacts(): Contact[] {
		return [...simulator.state.contacts.values()].filter((contact) => contact.campaign_id === DEMO.campaignId && contact.phone_number === CONTACT.phoneNumber);
	}

	it('offers the tool with its $fromAI schema, adds the contact the model chose, and hands the result back to the model', async () => {
		const { status, body, execution } = await runAgent();

		expect(executionError(execution)).toBeUndefined();
		expect(status).toBe(200);
		const [firstCall] = model.chatRequests();
		const tool = firstCall.chat?.tools?.find((each) => /add_to_campaign/i.test(each.function.name));
		expect(Object.keys(tool?.function.parameters?.properties ?? {}).sort()).toEqual([...FROM_AI_KEYS].sort());

		const added = campaignContacts();
		expect(added).toHaveLength(1);
		expect(added[0]).toMatchObject({ firstname: CONTACT.firstName, lastname: CONTACT.lastName, phone_number: CONTACT.phoneNumber });

		// The tool's result (the service's record of the new contact) is what the model got back...
		const results = model.toolResults();
		expect(results).toHaveLength(1);
		expect(JSON.stringify(results[0].content)).toContain(added[0].id);
		// ...and the agent's final answer, which quotes it, is the workflow's output.
		expect(JSON.stringify(body)).toContain(FINAL_ANSWER_PREFIX);
		expect(JSON.stringify(body)).toContain(added[0].id);
	});

	it('streams the final answer through a Webhook set to Streaming Response', async () => {
		const { status, body, execution } = await runAgent({ responseMode: 'streaming' });

		expect(executionError(execution)).toBeUndefined();
		expect(status).toBe(200);
		expect(model.chatRequests().every((request) => request.chat?.stream === true)).toBe(true);
		const [added] = campaignContacts();
		expect(added).toBeDefined();
		// n8n streams JSON lines whose `content` pieces make up the answer.
		const streamed = streamedText(body);
		expect(streamed).toContain(FINAL_ANSWER_PREFIX);
		expect(streamed).toContain(added.id);
	});

	it("gives the model the service's error as the tool's result when the tool's On Error is Continue", async () => {
		simulator.injectFault({ kind: 'http-500', method: 'POST', path: 'addToCampaign' });
		const { status, body, execution } = await runAgent({ toolOnError: 'continueRegularOutput' });

		expect(executionError(execution)).toBeUndefined();
		expect(status).toBe(200);
		expect(campaignContacts()).toHaveLength(0);
		const results = model.toolResults();
		expect(results).toHaveLength(1);
		expect(JSON.stringify(results[0].content)).toContain(FAULT_MESSAGE);
		expect(JSON.stringify(body)).toContain(FAULT_MESSAGE);
	});

	it("with the tool's On Error left at Stop Workflow: n8n 2.x still gives the error to the model, n8n 1.x stops the workflow", async () => {
		simulator.injectFault({ kind: 'http-500', method: 'POST', path: 'addToCampaign' });
		const { status, body, execution } = await runAgent();

		expect(campaignContacts()).toHaveLength(0);
		if (version.startsWith('1.')) {
			// n8n 1.x core: a tool's error fails the agent, so the whole execution stops and the model never hears of it.
			expect(execution.status).toBe('error');
			expect(status).toBe(500);
			expect(JSON.stringify(executionError(execution))).toContain(FAULT_MESSAGE);
			expect(model.toolResults()).toHaveLength(0);
		} else {
			// n8n 2.x hands the tool's error to the model as the tool's result and the agent carries on.
			expect(execution.status).toBe('success');
			expect(status).toBe(200);
			const results = model.toolResults();
			expect(results).toHaveLength(1);
			expect(JSON.stringify(results[0].content)).toContain(FAULT_MESSAGE);
			expect(JSON.stringify(body)).toContain(FAULT_MESSAGE);
		}
	});

	it('never gives the model the API key (while the service does get it)', async () => {
		await runAgent();
		simulator.injectFault({ kind: 'http-500', method: 'POST', path: 'addToCampaign' });
		await runAgent({ toolOnError: 'continueRegularOutput' });

		expect(model.toolResults()).toHaveLength(2);
		expect(model.everythingReceived()).not.toContain(DEMO.apiKey);
		// Control: the search would find it, since the service received it on both calls.
		const sentToService = simulator.requests.filter((request) => request.path.includes('addToCampaign'));
		expect(sentToService).toHaveLength(2);
		for (const request of sentToService) expect(JSON.stringify(request.headers)).toContain(DEMO.apiKey);
	});
});

/** The text of n8n's streamed answer: JSON lines, of which the `item` ones carry `content` pieces. */
function streamedText(body: unknown): string {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	return text
		.split('\n')
		.map((line) => {
			try {
				const chunk = JSON.parse(line) as { type?: string; content?: string };
				return chunk.type === 'item' ? (chunk.content ?? '') : '';
			} catch {
				return '';
			}
		})
		.join('');
}
