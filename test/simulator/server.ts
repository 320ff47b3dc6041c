/**
 * A local HTTP simulator of the campaign calling service (the interface as docs/service-interface.md records it):
 * the seven endpoints, per-request fault injection, event delivery to webhook modules, and control
 * routes under /__sim/ for drivers in another process. It listens on 127.0.0.1 only by default.
 */
import * as http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerApiRequest } from './api.ts';
import type { ApiAnswer } from './api.ts';
import { answerControlRequest } from './control.ts';
import { createEmptyState, seedState } from './data.ts';
import { deliverEvent, playCall } from './delivery.ts';
import { FaultQueue, answerWithFault, slowDelayMs } from './faults.ts';
import type { IncomingRequest, RecordedRequest, Simulator, SimulatorOptions } from './types.ts';

export { DEMO } from './data.ts';
export { EVENT_TYPES, INTEGRATION_TYPES } from './validation.ts';
export { FAULT_KINDS } from './faults.ts';
export { normalizePhoneNumber } from './phone.ts';
export type * from './types.ts';

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const host = options.host ?? '127.0.0.1';
	const recordBodies = options.recordBodies ?? true;
	const deliveryHosts = new Set(options.deliveryHosts ?? []);
	const state = createEmptyState();
	seedState(state);
	const requests: RecordedRequest[] = [];
	const faults = new FaultQueue();
	// Aborted by close(): cancels deliveries and 'slow' waits still running.
	const closing = new AbortController();
	const sockets = new Set<Socket>();

	const server = http.createServer((request, response) => {
		handle(request, response).catch(() => {
			// The client went away mid-request (or close() ran); nothing is left to answer.
			if (!response.headersSent) request.socket.destroy();
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? '/', 'http://simulator.invalid');
		const rawBody = await readBody(request);
		const { parsed, malformed } = parseJson(rawBody);
		const incoming: IncomingRequest = {
			method: request.method ?? 'GET',
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: request.headers,
			body: parsed,
		};

		if (incoming.path === '/__sim' || incoming.path.startsWith('/__sim/')) {
			const controlTarget = { simulator, listFaults: () => faults.list() };
			send(response, await answerControlRequest(controlTarget, incoming, malformed));
			return;
		}

		requests.push({ ...incoming, body: recordBodies ? (malformed ? rawBody : parsed) : undefined, receivedAt: Date.now() });
		const fault = faults.take(incoming.method, incoming.path);
		if (fault !== undefined && fault.kind !== 'slow') {
			answerWithFault(fault, request, response);
			return;
		}
		if (fault !== undefined) await sleep(slowDelayMs(fault), undefined, { signal: closing.signal });
		send(response, answerApiRequest(state, incoming, malformed));
	}

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as { port: number };

	const simulator: Simulator = {
		url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
		port,
		state,
		requests,
		injectFault: (fault) => faults.add(fault),
		clearFaults: () => faults.clear(),
		reset() {
			seedState(state);
			requests.length = 0;
			faults.clear();
		},
		deliverEvent: (eventType, payload = {}) => deliverEvent(state, eventType, payload, closing.signal, undefined, deliveryHosts),
		playCall: (callOptions = {}) => playCall(state, callOptions, closing.signal, deliveryHosts),
		close() {
			closing.abort();
			return new Promise<void>((resolve) => {
				server.close(() => resolve());
				for (const socket of sockets) socket.destroy();
			});
		},
	};
	return simulator;
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { parsed: unknown; malformed: boolean } {
	if (text.trim() === '') return { parsed: undefined, malformed: false };
	try {
		return { parsed: JSON.parse(text), malformed: false };
	} catch {
		return { parsed: undefined, malformed: true };
	}
}

function send(response: ServerResponse, { status, body, reason }: ApiAnswer): void {
	if (response.destroyed) return;
	const text = JSON.stringify(body);
	const headers: Record<string, string | number> = {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(text),
	};
	if (reason !== undefined) headers['x-simulator-error'] = reason.replace(/[^\x20-\x7e]/g, '?');
	response.writeHead(status, headers);
	response.end(text);
}
