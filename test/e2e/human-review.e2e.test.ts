/**
 * n8n 2.x's human review on the agent's Add to Campaign tool, through n8n's own Chat (harness/humanReview.ts):
 * the example examples/agent-human-review.json, with the scripted model stub as its model. A person
 * approves in the chat: exactly one contact is added; a person declines: nothing reaches the service and the
 * model is told. n8n 1.x has no human review on tool connections (the README's alternative for it is a
 * Send and Wait step before the action node, outside the agent), so this suite runs on 2.x only.
 */
import { DEMO, startSimulator, type Contact, type Simulator } from '../simulator/server.ts';
import { OPENAI_CREDENTIAL_TYPE } from './harness/agent.ts';
import { CHAT_REVIEW_TYPE, CHAT_TRIGGER_TYPE, humanReviewWorkflow, startChat, type ReviewButton } from './harness/humanReview.ts';
import { FINAL_ANSWER_PREFIX, startModelStub, type ModelStub } from './harness/modelStub.ts';
import { executionError, type N8nInstance } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { N8N_VERSIONS, describeEachVersion } from './harness/runtime.ts';
import { CREDENTIAL_TYPE } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const CONTACT = { firstName: 'Grace', lastName: 'Hopper', phoneNumber: '+14155550199' };
const PROMPT = 'Please add Grace Hopper, +14155550199, to the campaign.';
const REVIEW_NODE = 'Human Review';
const TOOL_NODE = 'Add to Campaign';

describeEachVersion("human review of the agent's Add to Campaign tool, through n8n's Chat, in n8n %s", (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let model: ModelStub;
	let workflowId: string;
	let chatWebhookId: string;
	let finished = 0;

	beforeAll(async () => {
		simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
		model = await startModelStub({ toolArguments: CONTACT, toolName: /add_to_campaign/i });
		n8n = await sharedN8n(version as '2.41.1');
		const campaign = await n8n.api.createCredential('Campaign Calling (simulator)', CREDENTIAL_TYPE, { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		const openAi = await n8n.api.createCredential('Model stub', OPENAI_CREDENTIAL_TYPE, { apiKey: 'stub-openai-key-not-a-secret', url: model.baseUrl, header: false });
		const workflow = humanReviewWorkflow(campaign, openAi);
		chatWebhookId = workflow.nodes.find((node) => node.type === CHAT_TRIGGER_TYPE)?.webhookId ?? '';
		expect(workflow.nodes.find((node) => node.name === REVIEW_NODE)?.type).toBe(CHAT_REVIEW_TYPE);
		const created = await n8n.api.createWorkflow(workflow);
		workflowId = created.id;
		await n8n.api.activate(workflowId);
	});

	afterAll(async () => {
		await model?.close();
		await simulator?.close();
	});

	beforeEach(() => {
		simulator.reset();
		model.clear();
	});

	const addRequests = () => simulator.requests.filter((request) => request.path.includes('addToCampaign'));
	const added = (): Contact[] => [...simulator.state.contacts.values()].filter((contact) => contact.phone_number === CONTACT.phoneNumber);

	/** Chats the prompt, waits for the review's buttons, clicks the one labelled `choice`, and waits for the end. */
	async function review(choice: 'Approve' | 'Decline') {
		const chat = await startChat(n8n, chatWebhookId, PROMPT);
		try {
			const buttons = await chat.reviewButtons();
			// While the review waits, nothing has been sent to the service.
			expect(addRequests()).toHaveLength(0);
			const waiting = (await n8n.api.listExecutions(workflowId)).find((each) => each.id === chat.executionId);
			expect(waiting?.status).toBe('waiting');
			const button = buttons.find((each: ReviewButton) => each.text === choice);
			if (!button) throw new Error(`No ${choice} button in ${JSON.stringify(buttons)}`);
			log(`n8n ${version}: the review message offered ${buttons.map((each) => each.text).join(' / ')}; clicking ${choice}`);
			expect(await chat.click(button)).toBe(200);
			await chat.closed();
			const executions = await n8n.api.waitForExecutions(workflowId, ++finished, 60_000);
			const done = executions.find((each) => each.id === chat.executionId);
			if (!done) throw new Error(`Execution ${chat.executionId} did not finish`);
			return { chat, execution: done };
		} finally {
			chat.close();
		}
	}

	it('waits for a person, and an approval adds exactly one contact, whose record the model gets back', async () => {
		const { chat, execution } = await review('Approve');

		expect(execution.status).toBe('success');
		expect(executionError(execution)).toBeUndefined();
		expect(addRequests()).toHaveLength(1);
		const [contact] = added();
		expect(added()).toHaveLength(1);
		expect(contact).toMatchObject({ campaign_id: DEMO.campaignId, firstname: CONTACT.firstName, lastname: CONTACT.lastName });
		const results = model.toolResults();
		expect(results).toHaveLength(1);
		expect(JSON.stringify(results[0].content)).toContain(contact.id);
		// The agent's answer reached the person in the chat.
		expect(chat.messages.some((message) => message.includes(FINAL_ANSWER_PREFIX) && message.includes(contact.id))).toBe(true);
		expect(execution.data?.resultData.runData[TOOL_NODE]).toHaveLength(1);
	});

	it('a decline sends nothing to the service, and the model is told the person rejected the call', async () => {
		const { chat, execution } = await review('Decline');

		expect(execution.status).toBe('success');
		expect(simulator.requests).toHaveLength(0);
		expect(added()).toHaveLength(0);
		const results = model.toolResults();
		expect(results).toHaveLength(1);
		const told = JSON.stringify(results[0].content);
		log(`n8n ${version}: after the decline the model was told: ${told}`);
		expect(told).toMatch(/rejected the tool call/i);
		expect(chat.messages.some((message) => message.includes(FINAL_ANSWER_PREFIX) && /rejected/i.test(message))).toBe(true);
		expect(execution.data?.resultData.runData[TOOL_NODE]).toBeUndefined();
	});
}, N8N_VERSIONS.filter((version) => version.startsWith('2.')));
