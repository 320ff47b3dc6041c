/** Process helpers shared by the harness: progress logging, commands, free ports, long-running servers. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

let logPrefix = 'e2e';

/** Progress goes to stderr: jest shows it live, and a long install does not look hung. */
export function log(message: string): void {
	process.stderr.write(`[${logPrefix} ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** What progress lines start with: 'e2e' in the suites, the script's own name elsewhere (the demo). */
export function setLogPrefix(prefix: string): void {
	logPrefix = prefix;
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

/**
 * Ports handed out in this test file. A port stays free until its process binds it, so the OS may pick it again
 * meanwhile: a queue-mode worker's task broker once took the health-check port picked for it a moment before.
 */
const portsHandedOut = new Set<number>();

/** A loopback port that is free right now and not handed out before in this file (the OS picks it). */
export async function freePort(): Promise<number> {
	for (;;) {
		const port = await portTheOsPicks();
		if (portsHandedOut.has(port)) continue;
		portsHandedOut.add(port);
		return port;
	}
}

async function portTheOsPicks(): Promise<number> {
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

/** npm settings that say how to reach the registry (the machine's CA file may be set in npm's global config). */
const REGISTRY_SETTINGS = /^npm_config_(globalconfig|userconfig|cafile|ca|registry|proxy|https_proxy|noproxy|strict_ssl)$/i;

/**
 * The parent's environment without what would leak into the tools we start: npm's script variables
 * (e.g. the repo's prefix when run from `npm run`) except how to reach the registry, jest's NODE_ENV=test
 * (n8n behaves differently in test mode), and NODE_OPTIONS.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		const npmScriptVariable = /^npm_/i.test(name) && !REGISTRY_SETTINGS.test(name);
		const leaks = npmScriptVariable || ['INIT_CWD', 'NODE_ENV', 'NODE_OPTIONS', 'JEST_WORKER_ID'].includes(name);
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
	/** SIGKILLs its process group at once, with no grace, as a crash or the OOM killer ends it; then as stop(). */
	kill(): Promise<void>;
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
	recordGroup(child, options.label);
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
		kill() {
			stopping ??= stopProcessGroup(child, 'SIGKILL', options.stopGraceMs ?? 15_000);
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
	for (const pid of groupMembers(leaderPid)) {
		try {
			const rss = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
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
	if (child.pid !== undefined) rmSync(join(ownerDir(), `${child.pid}.json`), { force: true });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}

/*
 * A record on disk of every process group we start, so none outlives its run however the run ends: jest's
 * globalTeardown stops what its run left (a hook that timed out never reached its stop()), and the next run
 * sweeps what a killed run left. Records live under the harness's own temp folder, one folder per owner: the
 * jest run (CAMPAIGN_CALLING_RUN_OWNER, set by its globalSetup) or the process itself (the demo).
 */
const REGISTRY = join(tmpdir(), 'campaign-calling-e2e', 'owners');

interface GroupRecord {
	pid: number;
	/** The kernel's start time of the process (/proc/<pid>/stat field 22): tells it from a later one given the same pid. */
	startTime: string;
	label: string;
}

function ownerDir(owner = process.env.CAMPAIGN_CALLING_RUN_OWNER ?? String(process.pid)): string {
	return join(REGISTRY, owner);
}

/** This run's folder of records (created when missing): also where a run keeps what its files share (harness/shared.ts). */
export function runDir(): string {
	const dir = ownerDir();
	mkdirSync(dir, { recursive: true });
	return dir;
}

/** The fields of /proc/<pid>/stat after the parenthesised command name (state, ppid, pgrp, ...); undefined when gone. */
function statFields(pid: number | string): string[] | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	} catch {
		return undefined;
	}
}

function startTimeOf(pid: number): string | undefined {
	return statFields(pid)?.[19];
}

/**
 * Called once at the start of a run (jest's globalSetup, the demo): stops what runs that are gone left behind,
 * then records this process as the owner of every process group started from here on.
 */
export function beginRun(): void {
	sweepOrphans();
	process.env.CAMPAIGN_CALLING_RUN_OWNER = String(process.pid);
	registerOwner();
}

/** Marks this process as an owner, with its start time, so a later sweep can tell whether it is still alive. */
function registerOwner(owner = String(process.pid)): void {
	const dir = ownerDir(owner);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, 'owner.json'), JSON.stringify({ pid: Number(owner), startTime: startTimeOf(Number(owner)) }));
}

function recordGroup(child: ChildProcess, label: string): void {
	if (child.pid === undefined) return;
	const dir = ownerDir();
	if (!existsSync(join(dir, 'owner.json'))) registerOwner(process.env.CAMPAIGN_CALLING_RUN_OWNER ?? String(process.pid));
	const record: GroupRecord = { pid: child.pid, startTime: startTimeOf(child.pid) ?? '', label };
	writeFileSync(join(dir, `${child.pid}.json`), JSON.stringify(record));
}

/** Kills every recorded process group of one owner and forgets the owner; returns the labels it stopped. */
export function stopRecordedGroups(owner: string): string[] {
	const dir = ownerDir(owner);
	if (!existsSync(dir)) return [];
	const stopped: string[] = [];
	for (const file of readdirSync(dir).filter((name) => /^\d+\.json$/.test(name))) {
		const record = readJson<GroupRecord>(join(dir, file));
		if (record && killGroup(record)) stopped.push(`${record.label} (pid ${record.pid})`);
	}
	rmSync(dir, { recursive: true, force: true });
	return stopped;
}

/** Stops what earlier runs that are gone (killed, crashed, timed out) left running; returns what it stopped. */
export function sweepOrphans(): string[] {
	if (!existsSync(REGISTRY)) return [];
	const stopped: string[] = [];
	for (const owner of readdirSync(REGISTRY)) {
		const recorded = readJson<{ pid: number; startTime?: string }>(join(REGISTRY, owner, 'owner.json'));
		const alive = recorded !== undefined && startTimeOf(recorded.pid) === recorded.startTime;
		if (!alive) stopped.push(...stopRecordedGroups(owner));
	}
	if (stopped.length > 0) log(`stopped what earlier runs left running: ${stopped.join(', ')}`);
	return stopped;
}

/**
 * SIGKILLs a recorded group: through its leader when that is still the process we started, else whatever is
 * left in the group (task runners whose leader died). Returns whether anything was running.
 */
function killGroup(record: GroupRecord): boolean {
	const leaderIsOurs = startTimeOf(record.pid) === record.startTime;
	const members = leaderIsOurs ? [record.pid] : groupMembers(record.pid);
	if (members.length === 0) return false;
	try {
		process.kill(-record.pid, 'SIGKILL');
	} catch {
		members.forEach((pid) => {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// Already gone.
			}
		});
	}
	return true;
}

/**
 * SIGKILLs every process whose working folder is `dir` or inside it (an install a killed run left going,
 * a server started from that folder), waits until they are gone, and returns their pids.
 */
export async function stopProcessesWorkingIn(dir: string): Promise<number[]> {
	const inside = (pid: string) => {
		try {
			const cwd = readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
			return cwd === dir || cwd.startsWith(`${dir}/`);
		} catch {
			return false;
		}
	};
	const pids = readdirSync('/proc')
		.filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid && inside(entry))
		.map(Number);
	for (const pid of pids) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
	for (let waited = 0; waited < 10_000 && pids.some((pid) => statFields(pid) !== undefined && statFields(pid)?.[0] !== 'Z'); waited += 100) {
		await sleep(100);
	}
	return pids;
}

function groupMembers(pgid: number): number[] {
	return readdirSync('/proc')
		.filter((entry) => /^\d+$/.test(entry))
		.filter((entry) => Number(statFields(entry)?.[2]) === pgid)
		.map(Number);
}

/** A JSON file's value, or undefined when it is missing or not JSON. */
export function readJson<T>(file: string): T | undefined {
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as T;
	} catch {
		return undefined;
	}
}
