/** Process helpers shared by the harness: progress logging, commands, free ports, long-running servers. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
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

export interface LoggedProcessOptions {
	/** Shown in progress lines and errors, e.g. 'n8n 2.41.1 worker'. */
	label: string;
	command: string;
	args: string[];
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** stdout and stderr are appended here. */
	logFile: string;
	/** Run as this user (we may be root; Postgres refuses to run as root). */
	uid?: number;
	gid?: number;
	/** What stop() sends first; default SIGTERM. */
	stopSignal?: NodeJS.Signals;
	/** How long stop() waits after stopSignal before SIGKILL; default 15 s. */
	stopGraceMs?: number;
}

export interface LoggedProcess {
	label: string;
	child: ChildProcess;
	logFile: string;
	/** Date.now() when it was spawned. */
	startedAt: number;
	/** Its output so far. */
	logs(): string;
	exited(): boolean;
	/** Stops it and everything it started (its process group). Safe to call more than once. */
	stop(): Promise<void>;
}

/**
 * Spawns a long-running server in its own process group, its output in `logFile`. A process `exit` hook
 * (and SIGINT/SIGTERM/SIGHUP where nobody else handles them) kills the group if we die before stop().
 */
export function spawnLogged(options: LoggedProcessOptions): LoggedProcess {
	const logFd = openSync(options.logFile, 'a');
	const startedAt = Date.now();
	const child = spawn(options.command, options.args, {
		cwd: options.cwd,
		env: options.env,
		uid: options.uid,
		gid: options.gid,
		// Its own process group, so stop() can end what it spawns too (n8n's task runners).
		detached: true,
		stdio: ['ignore', logFd, logFd],
	});
	closeSync(logFd);
	child.unref();
	// A missing binary surfaces as the readiness wait's "exited" error, with this line in the log.
	child.on('error', (error) => appendFileSync(options.logFile, `\n[harness] cannot run ${options.command}: ${error.message}\n`));
	track(child);
	let stopping: Promise<void> | undefined;
	return {
		label: options.label,
		child,
		logFile: options.logFile,
		startedAt,
		logs: () => (existsSync(options.logFile) ? readFileSync(options.logFile, 'utf8') : ''),
		exited: () => child.exitCode !== null || child.signalCode !== null || child.pid === undefined,
		stop() {
			stopping ??= stopProcessGroup(child, options.stopSignal ?? 'SIGTERM', options.stopGraceMs ?? 15_000);
			return stopping;
		},
	};
}

/**
 * Polls `check` until it holds; throws with the tail of the process's log when the process exits first or
 * the time runs out. Resolves to the milliseconds from spawning the process.
 */
export async function waitUntil(what: string, server: LoggedProcess, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<number> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (server.exited()) {
			const how = server.child.signalCode ?? `code ${server.child.exitCode}`;
			throw new Error(`${server.label} exited (${how}) before ${what}; its log (${server.logFile}):\n${tail(server.logs())}`);
		}
		if (await check()) return Date.now() - server.startedAt;
		await sleep(250);
	}
	throw new Error(`${server.label}: not ${what} after ${timeoutMs / 1000} s; its log (${server.logFile}):\n${tail(server.logs())}`);
}

/** Whether GET `address` answers 200 within 5 s. */
export async function answersOk(address: string): Promise<boolean> {
	try {
		const response = await fetch(address, { signal: AbortSignal.timeout(5_000) });
		await response.arrayBuffer();
		return response.status === 200;
	} catch {
		return false;
	}
}

export function tail(text: string, lines = 60): string {
	return text.split('\n').slice(-lines).join('\n');
}

/** Resident memory of a process group (a server and what it spawned), in MB, from /proc; 0 when gone. */
export function groupRssMb(leaderPid: number | undefined): number {
	if (leaderPid === undefined) return 0;
	let kb = 0;
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			// Fields after the parenthesised command name: state, ppid, pgrp, ...
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
			if (pgrp !== leaderPid) continue;
			const rss = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
			kb += rss ? Number(rss[1]) : 0;
		} catch {
			// The process ended while we looked.
		}
	}
	return Math.round(kb / 1024);
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Makes sure no server outlives the test process, even when a test crashes before its afterAll. */
function track(child: ChildProcess): void {
	if (!exitHookInstalled) {
		process.on('exit', () => running.forEach((each) => signalGroup(each, 'SIGKILL')));
		exitHookInstalled = true;
	}
	running.add(child);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		// Only where nobody else handles the signal: kill our groups, then die of it as we would have.
		if (process.listenerCount(signal) === 0) {
			process.once(signal, () => {
				running.forEach((each) => signalGroup(each, 'SIGKILL'));
				process.kill(process.pid, signal);
			});
		}
	}
}

async function stopProcessGroup(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
	if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
		let graceTimer: NodeJS.Timeout | undefined;
		const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
		const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, graceMs)));
		signalGroup(child, signal);
		await Promise.race([exited, graceOver]);
		clearTimeout(graceTimer);
	}
	// Whatever is left in the group (task runners, or the server itself when it ignored the signal).
	signalGroup(child, 'SIGKILL');
	running.delete(child);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}
