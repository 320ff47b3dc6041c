/**
 * A scripted, OpenAI-compatible chat model on 127.0.0.1, for driving n8n's AI Agent without a network:
 * `POST /v1/chat/completions` (plain JSON or server-sent events when the request asks to stream) and
 * `GET /v1/models`. Each request is recorded raw, so a test can search everything the model received.
 *
 * The script, per request: while the conversation holds no tool result since the last user message, it
 * calls the offered tool (the one whose name matches `toolName`, else the first) with `toolArguments`,
 * keeping only the arguments the tool's schema declares (under `toolParameters` for a tool behind n8n's human
 * review); once a tool result is there, it answers with a
 * final message quoting that result, so what the tool returned is visible in the agent's output too.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const STUB_MODEL = 'stub-model';
/** What the final answer starts with, before the tool's result. */
export const FINAL_ANSWER_PREFIX = 'The tool answered: ';

export interface ModelStubOptions {
	/** Arguments of the scripted tool call, by name; those the offered tool's schema lacks are left out. */
	toolArguments: Record<string, unknown>;
	/** Which offered tool to call; default the first one offered. */
	toolName?: RegExp;
}

export interface ChatMessage {
	role: string;
	content?: unknown;
	tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
	name?: string;
}

export interface OfferedTool {
	type: string;
	function: { name: string; description?: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } };
}

export interface ModelRequest {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	/** The body exactly as received. */
	rawBody: string;
	/** The parsed chat request (chat completions only). */
	chat?: { model?: string; messages: ChatMessage[]; tools?: OfferedTool[]; stream?: boolean };
	/** What the stub answered: a tool call or the final text. */
	answered?: { toolCall: { name: string; arguments: Record<string, unknown> } } | { text: string };
}

export interface ModelStub {
	/** The base URL an OpenAI credential takes: `http://127.0.0.1:<port>/v1`. */
	baseUrl: string;
	/** Every request received, oldest first. */
	requests: ModelRequest[];
	/** The chat completion requests only. */
	chatRequests(): ModelRequest[];
	/** Messages of role `tool` the model received (each tool result once, from the request that first carried it). */
	toolResults(): ChatMessage[];
	/** Every request's headers and body as one text, for searching what the model was given. */
	everythingReceived(): string;
	clear(): void;
	close(): Promise<void>;
}

export async function startModelStub(options: ModelStubOptions): Promise<ModelStub> {
	const requests: ModelRequest[] = [];
	const sockets = new Set<Socket>();

	const server = http.createServer((request, response) => {
		handle(request, response).catch((error: unknown) => {
			if (!response.headersSent) sendJson(response, 500, openAiError(String(error)));
			else response.end();
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const rawBody = await readBody(request);
		const path = new URL(request.url ?? '/', 'http://stub.invalid').pathname.replace(/\/+$/, '');
		const recorded: ModelRequest = { method: request.method ?? 'GET', path, headers: request.headers, rawBody };
		requests.push(recorded);

		if (recorded.method === 'GET' && path === '/v1/models') {
			sendJson(response, 200, { object: 'list', data: [{ id: STUB_MODEL, object: 'model', created: 0, owned_by: 'stub' }] });
			return;
		}
		if (recorded.method !== 'POST' || path !== '/v1/chat/completions') {
			sendJson(response, 404, openAiError(`the model stub has no route ${recorded.method} ${path}`));
			return;
		}
		const chat = JSON.parse(rawBody) as NonNullable<ModelRequest['chat']>;
		recorded.chat = chat;
		const turn = nextTurn(chat, options);
		recorded.answered = turn;
		if (chat.stream) streamTurn(response, chat, turn);
		else sendJson(response, 200, completion(chat, turn));
	}

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const address = server.address();
	const port = typeof address === 'object' && address !== null ? address.port : 0;

	const chatRequests = () => requests.filter((each) => each.chat !== undefined);
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		chatRequests,
		toolResults() {
			const seen = new Map<string, ChatMessage>();
			for (const each of chatRequests()) {
				for (const message of each.chat?.messages ?? []) {
					if (message.role === 'tool') seen.set(`${message.tool_call_id}:${JSON.stringify(message.content)}`, message);
				}
			}
			return [...seen.values()];
		},
		everythingReceived() {
			return requests.map((each) => `${each.method} ${each.path}\n${JSON.stringify(each.headers)}\n${each.rawBody}`).join('\n\n');
		},
		clear() {
			requests.length = 0;
		},
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

type Turn = NonNullable<ModelRequest['answered']>;

/** The script: call the tool until a tool result follows the last user message, then answer with it. */
function nextTurn(chat: NonNullable<ModelRequest['chat']>, options: ModelStubOptions): Turn {
	const messages = chat.messages ?? [];
	const lastUser = messages.map((message) => message.role).lastIndexOf('user');
	const toolResult = messages.slice(lastUser + 1).find((message) => message.role === 'tool');
	if (toolResult) return { text: `${FINAL_ANSWER_PREFIX}${contentText(toolResult.content)}` };

	const tools = chat.tools ?? [];
	const tool = tools.find((each) => options.toolName?.test(each.function.name) ?? true);
	if (!tool) {
		const offered = tools.map((each) => each.function.name).join(', ') || 'none';
		return { text: `No tool to call (offered: ${offered})` };
	}
	const properties = tool.function.parameters?.properties ?? {};
	// A tool behind n8n's human review (2.x) takes its own arguments under `toolParameters`, beside the review's.
	if ('toolParameters' in properties && 'hitlParameters' in properties) {
		const inner = (properties.toolParameters as { properties?: Record<string, unknown> }).properties ?? {};
		return { toolCall: { name: tool.function.name, arguments: { toolParameters: declaredArguments(options, inner), hitlParameters: {} } } };
	}
	return { toolCall: { name: tool.function.name, arguments: declaredArguments(options, properties) } };
}

function declaredArguments(options: ModelStubOptions, properties: Record<string, unknown>): Record<string, unknown> {
	return Object.fromEntries(Object.entries(options.toolArguments).filter(([name]) => name in properties));
}

function contentText(content: unknown): string {
	if (typeof content === 'string') return content;
	// Content parts: [{ type: 'text', text }].
	if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? '').join('');
	return JSON.stringify(content);
}

function completion(chat: NonNullable<ModelRequest['chat']>, turn: Turn): Record<string, unknown> {
	const message =
		'toolCall' in turn
			? {
					role: 'assistant',
					content: null,
					tool_calls: [{ id: callId(), type: 'function', function: { name: turn.toolCall.name, arguments: JSON.stringify(turn.toolCall.arguments) } }],
				}
			: { role: 'assistant', content: turn.text };
	return {
		id: `chatcmpl-${randomUUID()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: chat.model ?? STUB_MODEL,
		choices: [{ index: 0, message, logprobs: null, finish_reason: 'toolCall' in turn ? 'tool_calls' : 'stop' }],
		usage: USAGE,
	};
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** The same answer as server-sent chunks: role, then the tool call or the text in pieces, then the finish. */
function streamTurn(response: ServerResponse, chat: NonNullable<ModelRequest['chat']> & { stream_options?: { include_usage?: boolean } }, turn: Turn): void {
	const id = `chatcmpl-${randomUUID()}`;
	const created = Math.floor(Date.now() / 1000);
	const model = chat.model ?? STUB_MODEL;
	const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
		`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...extra })}\n\n`;

	response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
	response.write(chunk({ role: 'assistant', content: '' }));
	if ('toolCall' in turn) {
		const args = JSON.stringify(turn.toolCall.arguments);
		const half = Math.ceil(args.length / 2);
		response.write(chunk({ tool_calls: [{ index: 0, id: callId(), type: 'function', function: { name: turn.toolCall.name, arguments: args.slice(0, half) } }] }));
		response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }));
		response.write(chunk({}, 'tool_calls'));
	} else {
		for (const piece of turn.text.match(/.{1,40}/gs) ?? ['']) response.write(chunk({ content: piece }));
		response.write(chunk({}, 'stop'));
	}
	if (chat.stream_options?.include_usage) {
		response.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: USAGE })}\n\n`);
	}
	response.end('data: [DONE]\n\n');
}

function callId(): string {
	return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

function openAiError(message: string): Record<string, unknown> {
	return { error: { message, type: 'invalid_request_error', param: null, code: null } };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
	response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}
