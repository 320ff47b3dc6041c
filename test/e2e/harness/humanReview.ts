/**
 * n8n 2.x's human review on an AI Agent's tool connection (the editor's "Add human review step"), through
 * n8n's own Chat: the example workflow examples/agent-human-review.json, and a chat client that talks to it
 * as n8n's hosted chat page does.
 *
 * How n8n represents it (n8n 2.41.1's source: tool-generation/hitl-tools.js, n8n-core's
 * get-input-connection-data.js): every node with a "send and wait" operation gets a `<type>HitlTool`
 * variant (Chat: `@n8n/n8n-nodes-langchain.chatHitlTool`); the gated tool connects to it over `ai_tool`, and
 * it connects to the agent over `ai_tool`. The agent offers the tool with `{ toolParameters, hitlParameters }`;
 * when the model calls it, the review node sends its message and waits; on approval the agent runs the
 * gated tool, on a decline the model gets "User rejected the tool call to <tool> ...".
 *
 * The chat (n8n/dist/chat): in Response Mode "Using Response Nodes" a POST to the trigger's webhook answers
 * `{ executionStarted, executionId, resumeToken }`; the page then opens a WebSocket on the main's
 * `/chat?sessionId&executionId&isPublic&token`, receives each message (the review's as JSON with buttons whose
 * links are signed resume URLs), answers the `n8n|heartbeat` pings, and is closed when the execution ends.
 */
import { randomUUID } from 'node:crypto';
import { HUMAN_REVIEW_EXAMPLE, readExample } from '../../../scripts/examples.ts';
import { BROWSER_ID } from './n8n.ts';
import { sleep } from './process.ts';
import { CREDENTIAL_TYPE, type CredentialRef, type WorkflowJson } from './workflows.ts';

export const CHAT_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.chatTrigger';
export const CHAT_REVIEW_TYPE = '@n8n/n8n-nodes-langchain.chatHitlTool';
export const OPENAI_CHAT_MODEL_TYPE = '@n8n/n8n-nodes-langchain.lmChatOpenAi';
const HEARTBEAT = 'n8n|heartbeat';
const HEARTBEAT_ACK = 'n8n|heartbeat-ack';
/** The waiting webhook ignores bots (by user agent) for approvals, as link previews would approve otherwise. */
const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

/**
 * The example with the test's credentials; its OpenAI Chat Model pointed at the model stub (through the
 * credential's Base URL), with the stub's model, Chat Completions (not the Responses API) and no retries.
 */
export function humanReviewWorkflow(campaignCredential: CredentialRef, openAiCredential: CredentialRef): WorkflowJson {
	const workflow = readExample(HUMAN_REVIEW_EXAMPLE);
	for (const node of workflow.nodes) {
		if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = campaignCredential;
		if (node.type === OPENAI_CHAT_MODEL_TYPE) {
			node.credentials = { openAiApi: openAiCredential };
			node.parameters = { ...node.parameters, model: { __rl: true, mode: 'id', value: 'stub-model' }, responsesApiEnabled: false, options: { maxRetries: 0 } };
		}
	}
	return workflow;
}

export interface ReviewButton {
	text: string;
	link: string;
}

export interface ChatSession {
	executionId: string;
	/** Every text the chat received over its WebSocket, heartbeats left out, oldest first. */
	messages: string[];
	/** Waits for the human review's message and returns its buttons (Approve, Decline). */
	reviewButtons(timeoutMs?: number): Promise<ReviewButton[]>;
	/** Opens a button's link as a person's browser does. */
	click(button: ReviewButton): Promise<number>;
	/** Resolves when n8n closes the chat (the execution ended). */
	closed(timeoutMs?: number): Promise<void>;
	close(): void;
}

/**
 * Sends `chatInput` to the chat trigger with webhook id `webhookId`, as a signed-in n8n user (the example's
 * Authentication is n8n User Auth), and connects to the chat's WebSocket for the execution it started.
 */
export async function startChat(n8n: { url: string; webhookUrl: string; cookie: string }, webhookId: string, chatInput: string): Promise<ChatSession> {
	const sessionId = randomUUID();
	const response = await fetch(`${n8n.webhookUrl}webhook/${webhookId}/chat`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie: n8n.cookie, 'browser-id': BROWSER_ID },
		body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
	});
	const text = await response.text();
	if (response.status !== 200) throw new Error(`The chat trigger answered HTTP ${response.status}: ${text}`);
	const started = JSON.parse(text) as { executionStarted?: boolean; executionId?: string; resumeToken?: string };
	if (!started.executionId) throw new Error(`The chat trigger started no execution: ${text}`);

	const query = new URLSearchParams({ sessionId, executionId: started.executionId, isPublic: 'true', ...(started.resumeToken ? { token: started.resumeToken } : {}) });
	const socket = new WebSocket(`${n8n.url.replace(/^http/, 'ws')}chat?${query}`);
	const messages: string[] = [];
	let isClosed = false;
	socket.addEventListener('message', (event) => {
		const data = String(event.data);
		if (data === HEARTBEAT) socket.send(HEARTBEAT_ACK);
		else messages.push(data);
	});
	socket.addEventListener('close', () => (isClosed = true));
	await new Promise<void>((resolve, reject) => {
		socket.addEventListener('open', () => resolve(), { once: true });
		socket.addEventListener('error', () => reject(new Error('The chat WebSocket did not open')), { once: true });
	});

	return {
		executionId: started.executionId,
		messages,
		async reviewButtons(timeoutMs = 60_000) {
			const deadline = Date.now() + timeoutMs;
			while (Date.now() < deadline) {
				for (const message of messages) {
					const buttons = parseButtons(message);
					if (buttons) return buttons;
				}
				await sleep(250);
			}
			throw new Error(`No review message with buttons within ${timeoutMs / 1000} s; the chat received: ${JSON.stringify(messages)}`);
		},
		async click(button) {
			const answer = await fetch(button.link, { headers: { 'user-agent': BROWSER_USER_AGENT } });
			await answer.text();
			return answer.status;
		},
		async closed(timeoutMs = 60_000) {
			const deadline = Date.now() + timeoutMs;
			while (!isClosed && Date.now() < deadline) await sleep(250);
			if (!isClosed) throw new Error(`n8n did not close the chat within ${timeoutMs / 1000} s; it received: ${JSON.stringify(messages)}`);
		},
		close() {
			socket.close();
		},
	};
}

function parseButtons(message: string): ReviewButton[] | undefined {
	try {
		const parsed = JSON.parse(message) as { buttons?: ReviewButton[] };
		return Array.isArray(parsed.buttons) && parsed.buttons.length > 0 ? parsed.buttons : undefined;
	} catch {
		return undefined;
	}
}
