/**
 * Pinned real n8n installs, kept outside the clone (they are 2-3 GB) and rebuilt when missing or when
 * the committed package.json / package-lock.json under test/e2e/runtime/ changes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { cleanEnv, log, readJson, runCommand, sleep, stopProcessesWorkingIn } from './process.ts';

export const N8N_VERSIONS = ['2.41.1', '1.123.81'] as const;
export type N8nVersion = (typeof N8N_VERSIONS)[number];

export interface N8nRuntime {
	version: N8nVersion;
	/** The install folder; n8n itself is `node_modules/n8n` in it. */
	dir: string;
	/** The Node that runs this n8n (and that its sqlite3 was built for). */
	nodeBinary: string;
	/** What to add to the environment to run this n8n: its Node first on PATH, line-specific settings. */
	env: Record<string, string>;
	/** The variable that sets the public webhook base URL: renamed in 2.x. */
	webhookUrlVariable: 'N8N_WEBHOOK_URL' | 'WEBHOOK_URL';
}

interface RuntimeSpec {
	nodeBinary: () => string;
	env: Record<string, string>;
	webhookUrlVariable: N8nRuntime['webhookUrlVariable'];
}

const RUNTIMES: Record<N8nVersion, RuntimeSpec> = {
	// Its MCP server registry would fetch a catalogue from n8n's servers at start.
	'2.41.1': { nodeBinary: node24Binary, env: { N8N_DISABLED_MODULES: 'mcp-registry' }, webhookUrlVariable: 'N8N_WEBHOOK_URL' },
	// The last 1.x runs on the machine's Node 20, which n8n 1.x users still have (N8N1_NODE names another, and a
	// machine without /usr/bin/node, such as a CI runner, uses Node 24). isolated-vm has no Node 20 build, hence
	// the legacy expression engine; 1.x still needs task runners switched on.
	'1.123.81': {
		nodeBinary: () => process.env.N8N1_NODE ?? (existsSync('/usr/bin/node') ? '/usr/bin/node' : node24Binary()),
		env: { N8N_EXPRESSION_ENGINE: 'legacy', N8N_RUNNERS_ENABLED: 'true' },
		webhookUrlVariable: 'WEBHOOK_URL',
	},
};

export const N8N_ENTRY = join('node_modules', 'n8n', 'bin', 'n8n');
const STAMP_FILE = '.campaign-calling-runtime.json';
/** Present while npm installs n8n into a folder: found at the next start, it means that install was cut off. */
const INSTALLING_MARKER = '.campaign-calling-installing';
/** What a cold install took on a 2-core machine (npm install, without sqlite3), for the progress line. */
const INSTALL_ESTIMATES: Record<N8nVersion, string> = { '2.41.1': 'about 2-6 minutes', '1.123.81': 'about 1-3 minutes' };


interface RuntimeStamp {
	/** sha256 of the committed package.json and package-lock.json this folder was installed from. */
	packageHash: string;
	/** The Node the native sqlite3 module was built for; null until it was. */
	sqlite3: { nodeVersion: string; nodeMajor: number } | null;
}

export function cacheDir(): string {
	return process.env.CAMPAIGN_CALLING_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-campaign-calling');
}

/** The versions a suite runs on: E2E_N8N_VERSIONS (comma-separated), default all pinned ones. */
export function e2eVersions(): N8nVersion[] {
	return (process.env.E2E_N8N_VERSIONS ?? N8N_VERSIONS.join(','))
		.split(',')
		.map((version) => version.trim())
		.filter(Boolean) as N8nVersion[];
}

/**
 * describe.each over the n8n lines a suite covers (default all pinned), on those E2E_N8N_VERSIONS
 * selects; a line it leaves out is a describe.skip whose title says so, so the output shows each
 * skipped test and why rather than nothing. `%s` in the title is the version.
 */
export function describeEachVersion(title: string, body: (version: N8nVersion) => void, lines: readonly N8nVersion[] = N8N_VERSIONS): void {
	const selected = e2eVersions();
	for (const version of lines) {
		const named = title.replaceAll('%s', version);
		if (selected.includes(version)) describe(named, () => body(version));
		else describe.skip(`${named} (n8n ${version} not selected: E2E_N8N_VERSIONS=${selected.join(',')})`, () => body(version));
	}
}

export interface RuntimeOptions {
	/** Build the native sqlite3 module when it does not load; default true. Not needed with DB_TYPE=postgresdb. */
	sqlite3?: boolean;
}

/**
 * Installs (or reuses) the pinned n8n of this version and returns how to run it. Safe to call from several
 * processes at once (one installs, the others wait), and an install that was interrupted is started afresh.
 */
export async function ensureRuntime(version: N8nVersion, options: RuntimeOptions = {}): Promise<N8nRuntime> {
	const spec = RUNTIMES[version];
	if (!spec) throw new Error(`No n8n runtime is pinned for version '${version}' (known: ${N8N_VERSIONS.join(', ')})`);
	const source = runtimeSource(version);
	const dir = join(cacheDir(), `n8n-${version}`);
	const nodeBinary = spec.nodeBinary();
	const nodeVersion = nodeVersionOf(nodeBinary);
	const nodeMajor = Number(nodeVersion.split('.')[0]);
	const env = { PATH: pathWithNodeFirst(nodeBinary), ...spec.env };
	const npmEnv = installEnv(nodeBinary, env);
	const wantsSqlite3 = options.sqlite3 ?? true;

	const packageHash = hashFiles([join(source, 'package.json'), join(source, 'package-lock.json')]);
	const isReady = (stamp: RuntimeStamp | undefined) =>
		stamp?.packageHash === packageHash &&
		existsSync(join(dir, N8N_ENTRY)) &&
		(!wantsSqlite3 || (stamp.sqlite3?.nodeMajor === nodeMajor && sqlite3Loads(dir, nodeBinary, npmEnv)));
	if (isReady(readStamp(dir))) return { version, dir, nodeBinary, env, webhookUrlVariable: spec.webhookUrlVariable };

	await withInstallLock(dir, `n8n ${version}`, async () => {
		let stamp = readStamp(dir);
		if (isReady(stamp)) return;
		// sqlite3's build is CPU work and npm install mostly waiting on the disk and the registry: run them side by side.
		const sqlite3Build = wantsSqlite3 ? ensureSqlite3Build(version) : undefined;
		sqlite3Build?.catch(() => undefined);
		if (stamp?.packageHash !== packageHash || !existsSync(join(dir, N8N_ENTRY))) {
			await installN8n(version, source, dir, npmEnv, stamp);
			stamp = { packageHash, sqlite3: null };
			writeStamp(dir, stamp);
		}
		if (sqlite3Build) {
			const binary = await sqlite3Build;
			const target = join(dir, 'node_modules', 'sqlite3', 'build', 'Release');
			mkdirSync(target, { recursive: true });
			copyFileSync(binary, join(target, basename(binary)));
			if (!sqlite3Loads(dir, nodeBinary, npmEnv)) {
				throw new Error(`sqlite3 in ${dir} does not load with ${nodeBinary}, even with the fresh build from ${binary}`);
			}
			writeStamp(dir, { packageHash, sqlite3: { nodeVersion, nodeMajor } });
		}
	});
	return { version, dir, nodeBinary, env, webhookUrlVariable: spec.webhookUrlVariable };
}

/** Whether a pinned n8n is installed with a sqlite3 that loads in its Node, so no sqlite3 build is needed for it. */
export function hasWorkingSqlite3(version: N8nVersion): boolean {
	const dir = join(cacheDir(), `n8n-${version}`);
	const nodeBinary = RUNTIMES[version].nodeBinary();
	const env = { ...cleanEnv(), PATH: pathWithNodeFirst(nodeBinary) };
	return existsSync(join(dir, N8N_ENTRY)) && sqlite3Loads(dir, nodeBinary, env);
}

/** The committed package.json and package-lock.json a pinned n8n is installed from. */
function runtimeSource(version: N8nVersion): string {
	return join(process.cwd(), 'test', 'e2e', 'runtime', `n8n-${version}`);
}

function installEnv(nodeBinary: string, env: Record<string, string>): NodeJS.ProcessEnv {
	return {
		...cleanEnv(),
		...env,
		npm_config_nodedir: nodeHeadersDir(nodeBinary),
		// Some of n8n's dependencies run `npx` in their scripts; this machine's npm config refuses by default.
		npm_config_yes: 'true',
		// sqlite3 would first try to download a prebuilt binary from outside the registry.
		npm_config_build_from_source: 'true',
	};
}

async function installN8n(version: N8nVersion, source: string, dir: string, npmEnv: NodeJS.ProcessEnv, stamp: RuntimeStamp | undefined): Promise<void> {
	const marker = join(dir, INSTALLING_MARKER);
	// A marker left behind, or packages without a stamp, mean an install was cut off: npm may take a half-unpacked
	// package for a whole one, so start from an empty node_modules.
	if (existsSync(marker) || (!stamp && existsSync(join(dir, 'node_modules')))) {
		log(`n8n ${version}: an earlier install in ${dir} did not finish; removing it and starting again`);
		rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
	}
	log(`n8n ${version}: installing into ${dir} (${INSTALL_ESTIMATES[version]} the first time; later runs reuse it)`);
	mkdirSync(dir, { recursive: true });
	writeFileSync(marker, `${process.pid}\n`);
	for (const file of ['package.json', 'package-lock.json']) {
		if (existsSync(join(source, file))) copyFileSync(join(source, file), join(dir, file));
	}
	// Install scripts that download prebuilt binaries from outside the registry would fail; the one native
	// module n8n needs with SQLite is built by ensureSqlite3Build.
	const install = () =>
		runCommand('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: dir,
			env: npmEnv,
			label: `npm install (n8n ${version})`,
		});
	try {
		await install().catch(async () => {
			// npm sometimes trips over its own half-written tree (ENOTEMPTY and the like): once more from nothing.
			log(`n8n ${version}: npm install failed; removing ${join(dir, 'node_modules')} and trying once more`);
			rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
			await install();
		});
	} catch (error) {
		throw new Error(
			`${(error as Error).message}. npm's message is above. Check that this machine reaches the npm registry, ` +
				'then run the same command again: the cut-off install is started afresh.',
		);
	}
	rmSync(marker, { force: true });
}

/**
 * Builds the sqlite3 that a pinned n8n's lockfile names, in its own folder, for the Node that runs that n8n, and
 * returns the path of its native module. It needs no n8n install, so it can run beside one (prepare.ts starts
 * every build at once). Although sqlite3 5 is a Node-API module, a build made with Node 24's headers crashes
 * Node 20 as it loads, so there is one build per sqlite3 version and Node major.
 */
export async function ensureSqlite3Build(n8nVersion: N8nVersion): Promise<string> {
	const version = sqlite3VersionOf(runtimeSource(n8nVersion));
	const nodeBinary = RUNTIMES[n8nVersion].nodeBinary();
	const nodeMajor = nodeVersionOf(nodeBinary).split('.')[0];
	const key = `${version}-node${nodeMajor}`;
	const dir = join(cacheDir(), `sqlite3-${key}`);
	const binary = join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
	const done = join(dir, '.built');
	if (existsSync(done) && existsSync(binary)) return binary;
	sqlite3Builds[key] ??= withInstallLock(dir, `sqlite3 ${version} for Node ${nodeMajor}`, async () => {
		if (existsSync(done) && existsSync(binary)) return;
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true, dependencies: { sqlite3: version } })}\n`);
		await runCommand('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: dir,
			env: installEnv(nodeBinary, { PATH: pathWithNodeFirst(nodeBinary) }),
			label: `building sqlite3 ${version} for Node ${nodeMajor} from source (a C compiler's work: 1-5 minutes, once)`,
		});
		if (!existsSync(binary)) throw new Error(`sqlite3 ${version} was built in ${dir}, but ${binary} is missing`);
		writeFileSync(done, `${new Date().toISOString()}\n`);
	}).finally(() => delete sqlite3Builds[key]);
	await sqlite3Builds[key];
	return binary;
}

const sqlite3Builds: Record<string, Promise<void> | undefined> = {};

function sqlite3VersionOf(source: string): string {
	const lock = JSON.parse(readFileSync(join(source, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
	const version = lock.packages['node_modules/sqlite3']?.version;
	if (!version) throw new Error(`${source}/package-lock.json pins no sqlite3`);
	return version;
}

/**
 * Runs `work` holding a lock folder beside `dir`, so two processes (two test runs, the demo and a test) never
 * install into the same folder at once. A lock whose holder is gone is taken over.
 */
export async function withInstallLock(dir: string, what: string, work: () => Promise<void>): Promise<void> {
	const lock = `${dir}.lock`;
	mkdirSync(dirname(lock), { recursive: true });
	let waitingSince: number | undefined;
	for (;;) {
		try {
			mkdirSync(lock);
			writeFileSync(join(lock, 'pid'), `${process.pid}\n`);
			break;
		} catch {
			const holder = Number(readFileSync(join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }).trim());
			if (!holder || !isAlive(holder)) {
				// Gone without releasing it (killed mid-install), or still writing its pid: a second look decides.
				await sleep(1_000);
				const again = Number(readFileSync(join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }).trim());
				if (!again || !isAlive(again)) {
					// What the dead holder started may still be at work in the folder (npm finishing after a Ctrl-C):
					// a second install beside it would fail, or leave a mix of both.
					const stopped = await stopProcessesWorkingIn(dir);
					if (stopped.length > 0) log(`${what}: stopped what an interrupted install left running in ${dir} (pids ${stopped.join(', ')})`);
					rmSync(lock, { recursive: true, force: true });
				}
				continue;
			}
			if (waitingSince === undefined || Date.now() - waitingSince >= 30_000) {
				log(`${what}: another process (pid ${holder}) is installing it; waiting`);
				waitingSince = Date.now();
			}
			await sleep(2_000);
		}
	}
	try {
		await work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Node 24 from scripts/toolchain.sh (NODE24_BIN), or the Node running us when it is 24 or newer. */
export function node24Binary(): string {
	const candidates = [
		process.env.NODE24_BIN ? join(process.env.NODE24_BIN, 'node') : undefined,
		Number(process.versions.node.split('.')[0]) >= 24 ? process.execPath : undefined,
	];
	const found = candidates.find((candidate) => candidate !== undefined && existsSync(candidate));
	if (!found) throw new Error('n8n 2.x needs Node 24: run `source scripts/toolchain.sh` first (it sets NODE24_BIN)');
	return found;
}

function nodeVersionOf(nodeBinary: string): string {
	const result = spawnSync(nodeBinary, ['-p', 'process.versions.node'], { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`Cannot run ${nodeBinary}: ${result.error?.message ?? result.stderr}`);
	return result.stdout.trim();
}

/**
 * The headers native modules must be built against, found offline: an installed Node's prefix (/usr for
 * /usr/bin/node), or the platform package beside the registry's `node` package (the toolchain's Node 24).
 */
function nodeHeadersDir(nodeBinary: string): string {
	const binDir = dirname(realpathSync(nodeBinary));
	const candidates = [
		dirname(binDir),
		join(binDir, '..', 'node_modules', `node-${process.platform}-${process.arch}`),
	];
	const found = candidates.find((candidate) => existsSync(join(candidate, 'include', 'node', 'node.h')));
	if (!found) throw new Error(`No Node headers found for ${nodeBinary} (looked in ${candidates.join(', ')})`);
	return found;
}

function sqlite3Loads(dir: string, nodeBinary: string, env: NodeJS.ProcessEnv): boolean {
	return spawnSync(nodeBinary, ['-e', "require('sqlite3')"], { cwd: dir, env, stdio: 'ignore' }).status === 0;
}

export function hashFiles(files: string[]): string {
	const hash = createHash('sha256');
	for (const file of files) {
		hash.update(basename(file)).update('\0');
		if (existsSync(file)) hash.update(readFileSync(file));
		hash.update('\0');
	}
	return hash.digest('hex');
}

function readStamp(dir: string): RuntimeStamp | undefined {
	return readJson<RuntimeStamp>(join(dir, STAMP_FILE));
}

/** PATH with this Node's folder first, so npm and what it runs use that Node. */
export function pathWithNodeFirst(nodeBinary: string): string {
	return `${dirname(nodeBinary)}${delimiter}${process.env.PATH ?? ''}`;
}

function writeStamp(dir: string, stamp: RuntimeStamp): void {
	writeFileSync(join(dir, STAMP_FILE), `${JSON.stringify(stamp, null, '\t')}\n`);
}
