/** Small process helpers shared by the harness: progress logging, commands, free ports. */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** Progress goes to stderr: jest shows it live, and a long install does not look hung. */
export function log(message: string): void {
	process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export interface CommandOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** Shown in progress lines and errors, e.g. 'npm install (n8n 2.41.1)'. */
	label: string;
}

const HEARTBEAT_MS = 30_000;

/**
 * Runs a command to completion, its output streamed to our stderr, with a progress line every 30 s.
 * Rejects with the exit code when it fails.
 */
export async function runCommand(command: string, args: string[], options: CommandOptions): Promise<void> {
	const startedAt = Date.now();
	log(`${options.label}: started`);
	const heartbeat = setInterval(
		() => log(`${options.label}: still running (${Math.round((Date.now() - startedAt) / 1000)} s)`),
		HEARTBEAT_MS,
	);
	try {
		await new Promise<void>((resolve, reject) => {
			const child = spawn(command, args, {
				cwd: options.cwd,
				env: options.env,
				stdio: ['ignore', 2, 2],
			});
			child.on('error', reject);
			child.on('exit', (code, signal) => {
				if (code === 0) resolve();
				else reject(new Error(`${options.label} failed (${signal ?? `exit code ${code}`}) in ${options.cwd}`));
			});
		});
	} finally {
		clearInterval(heartbeat);
	}
	log(`${options.label}: done in ${Math.round((Date.now() - startedAt) / 1000)} s`);
}

/** A loopback port that is free right now (the OS picks it; the server is closed before returning). */
export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address !== null ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/**
 * The parent's environment without what would leak into the tools we start: npm's script variables
 * (e.g. the repo's prefix when run from `npm run`), jest's NODE_ENV=test (n8n behaves differently in
 * test mode), and NODE_OPTIONS.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		const leaks = /^npm_/i.test(name) || ['INIT_CWD', 'NODE_ENV', 'NODE_OPTIONS', 'JEST_WORKER_ID'].includes(name);
		if (!leaks) env[name] = value;
	}
	return env;
}

export async function sleep(ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}
