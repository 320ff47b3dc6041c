/**
 * Searching what n8n kept and said (executions, answers, logs) for secrets, and a stand-in service
 * that echoes the caller's key back in its answers, the worst a service can do with it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import type { N8nApi } from './n8n.ts';

/** One piece of collected text and where it came from. */
export interface Collected {
	source: string;
	text: string;
}

export interface Hit {
	needle: string;
	source: string;
	count: number;
	/** Some text around the first occurrence, with the needle itself masked, to locate the leak. */
	context: string;
}

/** A distinctive token: easy to find, impossible to appear by chance. */
export function distinctive(prefix: string): string {
	return `${prefix}${randomBytes(18).toString('hex')}`;
}

/** Every occurrence of each needle (name → value) in every piece: what a leak would look like. */
export function findSecrets(pieces: Collected[], needles: Record<string, string>): Hit[] {
	const hits: Hit[] = [];
	for (const [needle, value] of Object.entries(needles)) {
		if (value.length < 8) throw new Error(`Needle ${needle} is too short to search for meaningfully`);
		for (const piece of pieces) {
			const count = piece.text.split(value).length - 1;
			if (count === 0) continue;
			// Masked before cutting, so no partial copy of the needle shows at the edges.
			const masked = piece.text.split(value).join(`<${needle}>`);
			const at = masked.indexOf(`<${needle}>`);
			const context = masked.slice(Math.max(0, at - 200), at + needle.length + 400);
			hits.push({ needle, source: piece.source, count, context });
		}
	}
	return hits;
}

/** The lines of a text that hold the value. */
export function linesHolding(text: string, value: string): string[] {
	return text.split('\n').filter((line) => line.includes(value));
}

export function totalBytes(pieces: Collected[]): number {
	return pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece.text), 0);
}

/** Every execution n8n holds (all workflows), with its full data, through the public API's pages. */
export async function allExecutionsWithData(api: N8nApi): Promise<Array<Record<string, unknown>>> {
	const executions: Array<Record<string, unknown>> = [];
	let cursor: string | null = null;
	do {
		const query = new URLSearchParams({ includeData: 'true', limit: '100' });
		if (cursor) query.set('cursor', cursor);
		const page = await api.publicApi<{ data: Array<Record<string, unknown>>; nextCursor: string | null }>('GET', `/executions?${query}`);
		if (page.status !== 200) throw new Error(`GET /api/v1/executions: HTTP ${page.status} ${JSON.stringify(page.body).slice(0, 500)}`);
		executions.push(...page.body.data);
		cursor = page.body.nextCursor;
	} while (cursor);
	return executions;
}

/** Every `*.log` file under `dir` (n8n's own log, its file logger's, the event bus's), recursively. */
export function logFilesUnder(dir: string): string[] {
	if (!existsSync(dir)) return [];
	const found: string[] = [];
	for (const entry of readdirSync(dir)) {
		const path = join(dir, entry);
		// The installed package and its dependencies are not n8n's output.
		if (entry === 'node_modules') continue;
		const stats = statSync(path);
		if (stats.isDirectory()) found.push(...logFilesUnder(path));
		else if (entry.endsWith('.log')) found.push(path);
	}
	return found;
}

export function readCollected(paths: string[]): Collected[] {
	return paths.map((path) => ({ source: path, text: readFileSync(path, 'utf8') }));
}

/** How the echoing service answers the next request. */
export type EchoMode = 'http-400-json' | 'http-401-json' | 'envelope-error' | 'html-500' | 'text-200';

export interface EchoService {
	/** http://127.0.0.1:<port>, no trailing slash. */
	url: string;
	/** Answers to give, first to last; when empty, 'envelope-error'. */
	queue: EchoMode[];
	/** The Authorization header of every request received. */
	received: string[];
	close(): Promise<void>;
}

/**
 * A service that puts the caller's bearer token into every answer: in an error message, an envelope's
 * data, an HTML page, plain text. The key the node sent must still appear nowhere n8n shows or keeps.
 */
export async function startEchoService(): Promise<EchoService> {
	const received: string[] = [];
	const queue: EchoMode[] = [];
	const server = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			const authorization = String(request.headers.authorization ?? '');
			received.push(authorization);
			const key = authorization.replace(/^Bearer\s+/i, '');
			const send = (status: number, type: string, body: string) => {
				response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
				response.end(body);
			};
			const json = (status: number, body: unknown) => send(status, 'application/json', JSON.stringify(body));
			switch (queue.shift() ?? 'envelope-error') {
				case 'http-400-json':
					return json(400, { status: 'error', message: `invalid token ${key} (sent as "${authorization}")` });
				case 'http-401-json':
					return json(401, { status: 'error', message: `unauthorized: ${key}`, error: authorization });
				case 'envelope-error':
					return json(200, { status: 'error', message: `key ${key} refused`, data: `unauthorized ${authorization}` });
				case 'html-500':
					return send(500, 'text/html', `<!DOCTYPE html><html><body><h1>500</h1><pre>Authorization: ${authorization}</pre></body></html>`);
				case 'text-200':
					return send(200, 'text/plain', `token=${key}`);
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		url: `http://127.0.0.1:${port}`,
		queue,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
