/**
 * n8n in queue mode, as users scale it past one process: a private Redis and Postgres, then `n8n start`
 * (the main: editor, API, trigger activation), one or more `n8n worker` (run the executions) and `n8n webhook`
 * (serves production webhooks and enqueues their executions), all on 127.0.0.1 and free ports, sharing one
 * user folder (with the package installed), encryption key, database and queue.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createUserFolder, n8nEnv, openSession, spawnN8n, waitUntilReady } from './n8n.ts';
import type { N8nCommand, N8nInstance } from './n8n.ts';
import { installPackage } from './package.ts';
import { cleanEnv, freePort, groupRssMb, log, spawnLogged, tail, waitUntil } from './process.ts';
import type { LoggedProcess } from './process.ts';
import { ensureRuntime } from './runtime.ts';
import { ensureDebianPackages, findOnPath } from './system.ts';
import type { DebianNeed } from './system.ts';
import type { N8nVersion } from './runtime.ts';

export interface QueueStartOptions {
	version: N8nVersion;
	/** The package installed into the shared user folder; default the repo (process.cwd()). It must be built. */
	packageRoot?: string;
	/** Install the package before n8n starts; default true. False leaves it to n8n's own installer (Community Nodes). */
	withPackage?: boolean;
	/** Added last to each n8n process's environment. */
	extraEnv?: Record<string, string>;
	/** For each n8n process; default 120 s. */
	readyTimeoutMs?: number;
	/** How many `n8n worker` processes take jobs from the queue; default 1. */
	workers?: number;
	/** Jobs each worker runs at once (N8N_CONCURRENCY_PRODUCTION_LIMIT, which a worker takes over its --concurrency); default n8n's (10). */
	workerConcurrency?: number;
}

export type QueueRole = 'main' | 'worker' | 'webhook';

export interface QueueProcess {
	role: QueueRole;
	/** What it serves, with a trailing slash: the main's editor and API, the worker's health server, the webhook process's webhooks. */
	url: string;
	port: number;
	logFile: string;
	logs(): string;
	/** Milliseconds from spawning it to it answering readiness. */
	startToReadyMs: number;
	/** Resident memory of its process group (it and its task runners) right now, in MB. */
	rssMb(): number;
}

export interface QueueN8nInstance extends N8nInstance {
	/** `webhookUrl` is the webhook process's URL; `url`, `port`, `logFile` are the main's. */
	processes: Record<QueueRole, QueueProcess>;
	/** Every worker, `processes.worker` first. */
	workers: QueueProcess[];
	redis: { port: number; logFile: string };
	postgres: { port: number; logFile: string; database: string; user: string; password: string };
	/** The temp folder with the user folder, every log, and the Redis and Postgres data; stop() removes it unless E2E_KEEP_WORK is set. */
	workDir: string;
	/**
	 * Stops the (first) worker or the webhook process and starts it again on the same port and log file, as an
	 * administrator restarts one. `kill: true` SIGKILLs its process group instead (no shutdown), as a crash would;
	 * `extraEnv` is added to its environment for this start (over the one startQueueN8n was given).
	 */
	restart(role: Exclude<QueueRole, 'main'>, options?: { kill?: boolean; extraEnv?: Record<string, string> }): Promise<void>;
}

/** The system packages queue mode needs, by the Debian package that brings them. */
export interface QueueServices {
	redisServer: string;
	/** The folder with Postgres' initdb, postgres and createdb. */
	postgresBin: string;
}

const DB_NAME = 'n8n';
const DB_USER = 'n8n';
// A private cluster on loopback, gone after the run: the password only has to match.
const DB_PASSWORD = 'campaign-calling-e2e';
const SERVICE_READY_MS = 60_000;
const execFileAsync = promisify(execFile);

/** Starts Redis, Postgres and n8n's main, worker(s) and webhook processes, and signs in on the main. */
export async function startQueueN8n(options: QueueStartOptions): Promise<QueueN8nInstance> {
	// Postgres holds n8n's data, so n8n's native SQLite module is never loaded.
	const runtime = await ensureRuntime(options.version, { sqlite3: false });
	const services = await ensureQueueServices();
	const workDir = createUserFolder(`queue-${options.version}`);
	// Postgres runs as its own OS user when we are root: it must get through to its folder inside.
	chmodSync(workDir, 0o711);
	const userFolder = join(workDir, 'n8n');
	mkdirSync(userFolder);

	const started: LoggedProcess[] = [];
	const own = (server: LoggedProcess) => {
		started.push(server);
		return server;
	};
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= (async () => {
			// Newest first: n8n before the Redis and Postgres it holds connections to.
			for (const server of [...started].reverse()) await server.stop();
			if (!process.env.E2E_KEEP_WORK) rmSync(workDir, { recursive: true, force: true });
		})();
		return stopping;
	};

	try {
		const [redis, postgres, installedPackage] = await allOrFirstError([
			startRedis(services.redisServer, workDir, own),
			startPostgres(services.postgresBin, workDir, own),
			options.withPackage === false ? Promise.resolve(undefined) : installPackage(userFolder, options.packageRoot),
		]);
		const workerCount = options.workers ?? 1;
		const ports = { main: await freePort(), webhook: await freePort(), workers: [] as number[] };
		for (let index = 0; index < workerCount; index++) ports.workers.push(await freePort());
		const url = (port: number) => `http://127.0.0.1:${port}/`;
		const urls = { main: url(ports.main), webhook: url(ports.webhook) };
		const shared = {
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: DB_NAME,
			DB_POSTGRESDB_USER: DB_USER,
			DB_POSTGRESDB_PASSWORD: DB_PASSWORD,
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
		};
		/** One n8n process: the main, the webhook process, or worker `index` (0 is `processes.worker`). */
		interface Slot {
			role: QueueRole;
			port: number;
			url: string;
			/** In log lines and file names: `worker`, then `worker-2`, `worker-3`… */
			name: string;
		}
		const slots = {
			main: { role: 'main', port: ports.main, url: urls.main, name: 'main' } as Slot,
			webhook: { role: 'webhook', port: ports.webhook, url: urls.webhook, name: 'webhook' } as Slot,
			workers: ports.workers.map((port, index): Slot => ({ role: 'worker', port, url: url(port), name: index === 0 ? 'worker' : `worker-${index + 1}` })),
		};
		const roleEnv = (slot: Slot): Record<string, string> =>
			slot.role !== 'worker'
				? {}
				: {
						// The worker's only server is its health check, on a port of its own.
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(slot.port),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
						...(options.workerConcurrency === undefined ? {} : { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(options.workerConcurrency) }),
					};
		const spawnRole = async (slot: Slot, laterEnv: Record<string, string> = {}) => {
			// Every process registers and shows the webhook process's URL, as users' load balancers route it.
			const env = await n8nEnv(runtime, {
				userFolder,
				port: slot.port,
				editorUrl: urls.main,
				webhookUrl: urls.webhook,
				extraEnv: { ...shared, ...roleEnv(slot), ...options.extraEnv, ...laterEnv },
			});
			return own(spawnN8n(runtime, COMMANDS[slot.role], env, join(workDir, `n8n-${slot.name}.log`), `n8n ${options.version} ${slot.name}`));
		};

		/**
		 * n8n's crash journal assumes one process per user folder: a process that finds another's journal takes
		 * it for a crash of its own and waits 10 s. So each starts with the file removed, and the next one
		 * only once the previous one has written its own.
		 */
		const journal = join(userFolder, '.n8n', 'crash.journal');
		const spawnWithOwnJournal = async (slot: Slot, laterEnv?: Record<string, string>) => {
			rmSync(journal, { force: true });
			const server = await spawnRole(slot, laterEnv);
			await waitUntil('past its crash-journal check', server, () => existsSync(journal), options.readyTimeoutMs ?? 120_000);
			return server;
		};

		log(`n8n ${options.version} queue mode: starting the main on ${urls.main} (work folder ${workDir})`);
		const main = await spawnRole(slots.main);
		// The main migrates the database; the worker and webhook processes expect it migrated.
		const mainReadyMs = await waitUntilReady(main, urls.main, { rest: true, timeoutMs: options.readyTimeoutMs });
		log(`n8n ${options.version} queue mode: main ready in ${seconds(mainReadyMs)}; starting ${workerCount} worker(s) and the webhook process`);
		/**
		 * Readiness, and for the webhook process its webhook routes: /healthz/readiness answers before they
		 * are mounted, and until then n8n 1.x answers a webhook call 404 "Cannot POST /webhook/...". A
		 * restarted process appends to the same log, so its own line is the one after `linesBefore`.
		 */
		const waitUntilServing = async (slot: Slot, server: LoggedProcess, linesBefore = 0) => {
			const readyMs = await waitUntilReady(server, slot.url, { rest: false, timeoutMs: options.readyTimeoutMs });
			if (slot.role === 'webhook') {
				await waitUntil('listening for webhooks', server, () => listeningLines(server) > linesBefore, options.readyTimeoutMs ?? 120_000);
			}
			return readyMs;
		};
		const workerServers: LoggedProcess[] = [];
		for (const slot of slots.workers) workerServers.push(await spawnWithOwnJournal(slot));
		const webhook = await spawnWithOwnJournal(slots.webhook);
		const [webhookReadyMs, ...workerReadyMs] = await allOrFirstError([
			waitUntilServing(slots.webhook, webhook),
			...workerServers.map((server, index) => waitUntilServing(slots.workers[index], server)),
		]);
		const startToReadyMs = Date.now() - main.startedAt;
		log(
			`n8n ${options.version} queue mode: ready in ${seconds(startToReadyMs)} ` +
				`(main ${seconds(mainReadyMs)}, ${slots.workers.map((slot, index) => `${slot.name} ${seconds(workerReadyMs[index])}`).join(', ')}, webhook ${seconds(webhookReadyMs)})`,
		);

		const summary = (slot: Slot, server: LoggedProcess, readyMs: number): QueueProcess => ({
			role: slot.role,
			url: slot.url,
			port: slot.port,
			logFile: server.logFile,
			logs: server.logs,
			startToReadyMs: readyMs,
			rssMb: () => groupRssMb(server.child.pid),
		});
		const workers = workerServers.map((server, index) => summary(slots.workers[index], server, workerReadyMs[index]));
		const processes = {
			main: summary(slots.main, main, mainReadyMs),
			worker: workers[0],
			webhook: summary(slots.webhook, webhook, webhookReadyMs),
		};
		const running: Record<Exclude<QueueRole, 'main'>, LoggedProcess> = { worker: workerServers[0], webhook };
		const restart = async (role: Exclude<QueueRole, 'main'>, { kill = false, extraEnv }: { kill?: boolean; extraEnv?: Record<string, string> } = {}) => {
			const slot = role === 'worker' ? slots.workers[0] : slots.webhook;
			const linesBefore = listeningLines(running[role]);
			await (kill ? running[role].kill() : running[role].stop());
			log(`n8n ${options.version} queue mode: ${kill ? 'killed (SIGKILL, its process group)' : 'stopped'} the ${role}; starting it again`);
			running[role] = await spawnWithOwnJournal(slot, extraEnv);
			const readyMs = await waitUntilServing(slot, running[role], linesBefore);
			processes[role] = summary(slot, running[role], readyMs);
			if (role === 'worker') workers[0] = processes.worker;
		};
		const logs = (lines?: number) =>
			[processes.main, ...workers, processes.webhook]
				.map((each) => `--- n8n ${each.role} (${each.logFile}) ---\n${lines ? tail(each.logs(), lines) : each.logs()}`)
				.join('\n');
		const session = await openSession(urls.main, urls.webhook, () => logs(25));
		return {
			version: options.version,
			runtime,
			url: urls.main,
			webhookUrl: urls.webhook,
			port: ports.main,
			userFolder,
			logFile: main.logFile,
			installedPackage,
			startToReadyMs,
			...session,
			logs: () => logs(),
			stop,
			processes,
			workers,
			redis: { port: redis.port, logFile: redis.server.logFile },
			postgres: { port: postgres.port, logFile: postgres.server.logFile, database: DB_NAME, user: DB_USER, password: DB_PASSWORD },
			workDir,
			restart,
		};
	} catch (error) {
		await stop();
		if (error instanceof Error) {
			error.message += `\n(queue-mode logs: ${workDir}/*.log; E2E_KEEP_WORK=1 keeps them)`;
		}
		throw error;
	}
}

const COMMANDS: Record<QueueRole, N8nCommand> = { main: 'start', worker: 'worker', webhook: 'webhook' };

/** How many times a process's log says its webhook routes are mounted (n8n writes this line on both lines). */
const listeningLines = (server: LoggedProcess) => server.logs().split('Webhook listener waiting for requests.').length - 1;

let servicesReady: Promise<QueueServices> | undefined;

/** What queue mode needs from Debian, installed by ensureDebianPackages when missing (as root with apt-get). */
export const QUEUE_NEEDS: DebianNeed[] = [
	{ package: 'redis-server', present: () => findOnPath('redis-server') !== undefined, purpose: 'Queue mode' },
	{ package: 'postgresql', present: () => findPostgresBin() !== undefined, purpose: 'Queue mode (Postgres 13 or newer)' },
];

/** Finds redis-server and Postgres' binaries, installing Debian's packages for them first when missing. */
export async function ensureQueueServices(): Promise<QueueServices> {
	servicesReady ??= ensureDebianPackages(QUEUE_NEEDS).then(() => ({
		redisServer: findOnPath('redis-server') as string,
		postgresBin: findPostgresBin() as string,
	}));
	// A failed attempt may succeed later (e.g. once the apt lock is free): do not keep the rejection.
	servicesReady.catch(() => (servicesReady = undefined));
	return await servicesReady;
}

/** Debian puts each Postgres major under /usr/lib/postgresql/<major>/bin; the newest wins. */
function findPostgresBin(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const majors = readdirSync(root)
		.filter((major) => /^\d+$/.test(major) && existsSync(join(root, major, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return majors.length > 0 ? join(root, majors[0], 'bin') : undefined;
}

interface StartedService {
	server: LoggedProcess;
	port: number;
}

/** A Redis with nothing persisted, in its own folder. */
async function startRedis(redisServer: string, workDir: string, own: (server: LoggedProcess) => LoggedProcess): Promise<StartedService> {
	const dir = join(workDir, 'redis');
	mkdirSync(dir);
	const port = await freePort();
	const server = own(
		spawnLogged({
			label: 'redis-server',
			command: redisServer,
			args: ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
			cwd: dir,
			env: cleanEnv(),
			logFile: join(workDir, 'redis.log'),
		}),
	);
	await waitUntil('accepting connections', server, () => server.logs().includes('Ready to accept connections'), SERVICE_READY_MS);
	return { server, port };
}

/**
 * A Postgres cluster of its own (initdb into the work folder, its socket there too), with database and
 * user `n8n`. Postgres refuses to run as root, so as root it runs as the `postgres` OS user.
 */
async function startPostgres(binDir: string, workDir: string, own: (server: LoggedProcess) => LoggedProcess): Promise<StartedService> {
	const owner = postgresOwner();
	const dir = join(workDir, 'postgres');
	const data = join(dir, 'data');
	const passwordFile = join(dir, 'password');
	mkdirSync(dir, { mode: 0o700 });
	writeFileSync(passwordFile, `${DB_PASSWORD}\n`);
	if (owner) {
		chownSync(dir, owner.uid, owner.gid);
		chownSync(passwordFile, owner.uid, owner.gid);
	}
	const env = { ...cleanEnv(), LC_ALL: 'C' };
	await runQuietly(join(binDir, 'initdb'), [
		`--pgdata=${data}`,
		`--username=${DB_USER}`,
		`--pwfile=${passwordFile}`,
		'--auth-local=trust',
		'--auth-host=scram-sha-256',
		'--encoding=UTF8',
		'--locale=C',
		// Thrown away after the run: no need to wait for the disk.
		'--no-sync',
	], { cwd: dir, env, ...owner });
	const port = await freePort();
	const server = own(
		spawnLogged({
			label: 'postgres',
			command: join(binDir, 'postgres'),
			args: ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', dir, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
			cwd: dir,
			env,
			logFile: join(workDir, 'postgres.log'),
			...owner,
			// Fast shutdown: roll back and close sessions instead of waiting for clients to leave.
			stopSignal: 'SIGINT',
		}),
	);
	await waitUntil('accepting connections', server, () => server.logs().includes('ready to accept connections'), SERVICE_READY_MS);
	// Over TCP with the password, as n8n connects.
	await runQuietly(join(binDir, 'createdb'), ['--host=127.0.0.1', `--port=${port}`, `--username=${DB_USER}`, DB_NAME], {
		cwd: tmpdir(),
		env: { ...env, PGPASSWORD: DB_PASSWORD },
	});
	return { server, port };
}

/** The `postgres` OS user's ids when we are root (Postgres will not run as root); undefined otherwise. */
function postgresOwner(): { uid: number; gid: number } | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
	const uid = id('-u');
	const gid = id('-g');
	if (uid.status !== 0 || gid.status !== 0) {
		throw new Error('Running as root, Postgres needs the `postgres` OS user to run as: install Debian\'s postgresql package, which creates it');
	}
	return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function runQuietly(
	command: string,
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number },
): Promise<void> {
	try {
		await execFileAsync(command, args, options);
	} catch (error) {
		const failed = error as Error & { stdout?: string; stderr?: string };
		throw new Error(`${command} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
	}
}

/** Like Promise.all, but settles everything first, so a failure never leaves a start-up still running behind stop(). */
async function allOrFirstError<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
	const results = await Promise.allSettled(promises);
	const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
	if (failed) throw failed.reason;
	return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)} s`;
}
