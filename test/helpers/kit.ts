/**
 * Shared set-up of the tests that talk to the service (nodes and transport): one simulator per test
 * file (reset before each test), credentials for it, and a small scripted HTTP server for answers
 * the simulator cannot give (an echoed API key, an unlisted status code, a barrier that counts
 * requests in flight).
 */
import * as http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import type { CredentialData, RunOptions } from './n8nContext.ts';
import { DEMO, startSimulator, type RecordedRequest, type Simulator } from '../simulator/server.ts';

export { DEMO };

export interface SimulatorHandle {
	readonly simulator: Simulator;
	credentials(apiKey?: string): CredentialData;
	/** Requests the simulator recorded, optionally only those whose path contains `path`. */
	requests(path?: string): RecordedRequest[];
}

/** Starts a simulator for the calling test file; closes it after the file's tests. */
export function useSimulator(): SimulatorHandle {
	let simulator: Simulator | undefined;
	beforeAll(async () => {
		simulator = await startSimulator();
	});
	afterAll(async () => {
		await simulator?.close();
	});
	beforeEach(() => simulator?.reset());
	const current = (): Simulator => {
		if (!simulator) throw new Error('the simulator has not started');
		return simulator;
	};
	return {
		get simulator() {
			return current();
		},
		credentials: (apiKey: string = DEMO.apiKey) => ({ baseUrl: current().url, apiKey }),
		requests: (path?: string) =>
			current().requests.filter((request) => path === undefined || request.path.includes(path)),
	};
}

/** Request Options that turn retries off, so failure tests send exactly one request. */
export const NO_RETRIES = { maxRetries: 0 };

/** Node parameters with retries off added. */
export function withoutRetries(parameters: RunOptions['parameters']): RunOptions['parameters'] {
	return { ...parameters, requestOptions: NO_RETRIES };
}

export interface ScriptedRequest {
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	body: unknown;
}

export interface ScriptedServer {
	url: string;
	requests: ScriptedRequest[];
	close(): Promise<void>;
}

export type ScriptedHandler = (request: ScriptedRequest, response: ServerResponse) => void | Promise<void>;

/** A loopback HTTP server answering with `handler`; every request is recorded with its parsed body. */
export async function startScriptedServer(handler: ScriptedHandler): Promise<ScriptedServer> {
	const requests: ScriptedRequest[] = [];
	const sockets = new Set<Socket>();
	const server = http.createServer((incoming, response) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body: unknown = text;
			try {
				body = text === '' ? undefined : JSON.parse(text);
			} catch {
				body = text;
			}
			const request: ScriptedRequest = {
				method: incoming.method ?? 'GET',
				path: incoming.url ?? '/',
				headers: incoming.headers,
				body,
			};
			requests.push(request);
			Promise.resolve(handler(request, response)).catch(() => response.destroy());
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.destroy();
			}),
	};
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
	response.end(text);
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
	const server = http.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
