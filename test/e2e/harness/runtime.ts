/**
 * Pinned real n8n installs, kept outside the clone (they are 2-3 GB) and rebuilt when missing or when
 * the committed package.json / package-lock.json under test/e2e/runtime/ changes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { cleanEnv, log, runCommand } from './process.ts';

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
	// The last 1.x runs on the machine's Node 20, which n8n 1.x users still have. isolated-vm has no Node 20
	// build, hence the legacy expression engine; 1.x still needs task runners switched on.
	'1.123.81': {
		nodeBinary: () => '/usr/bin/node',
		env: { N8N_EXPRESSION_ENGINE: 'legacy', N8N_RUNNERS_ENABLED: 'true' },
		webhookUrlVariable: 'WEBHOOK_URL',
	},
};

export const N8N_ENTRY = join('node_modules', 'n8n', 'bin', 'n8n');
const STAMP_FILE = '.campaign-calling-runtime.json';

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

export interface RuntimeOptions {
	/** Build the native sqlite3 module when it does not load; default true. Not needed with DB_TYPE=postgresdb. */
	sqlite3?: boolean;
}

/** Installs (or reuses) the pinned n8n of this version and returns how to run it. */
export async function ensureRuntime(version: N8nVersion, options: RuntimeOptions = {}): Promise<N8nRuntime> {
	const spec = RUNTIMES[version];
	if (!spec) throw new Error(`No n8n runtime is pinned for version '${version}' (known: ${N8N_VERSIONS.join(', ')})`);
	const source = join(process.cwd(), 'test', 'e2e', 'runtime', `n8n-${version}`);
	const dir = join(cacheDir(), `n8n-${version}`);
	const nodeBinary = spec.nodeBinary();
	const nodeVersion = nodeVersionOf(nodeBinary);
	const nodeMajor = Number(nodeVersion.split('.')[0]);
	const env = { PATH: `${dirname(nodeBinary)}${delimiter}${process.env.PATH ?? ''}`, ...spec.env };
	const npmEnv = {
		...cleanEnv(),
		...env,
		npm_config_nodedir: nodeHeadersDir(nodeBinary),
		// Some of n8n's dependencies run `npx` in their scripts; this machine's npm config refuses by default.
		npm_config_yes: 'true',
		// sqlite3 would first try to download a prebuilt binary from outside the registry.
		npm_config_build_from_source: 'true',
	};

	const packageHash = hashFiles([join(source, 'package.json'), join(source, 'package-lock.json')]);
	let stamp = readStamp(dir);
	if (stamp?.packageHash !== packageHash || !existsSync(join(dir, N8N_ENTRY))) {
		log(`n8n ${version}: installing into ${dir} (cold install takes several minutes)`);
		mkdirSync(dir, { recursive: true });
		for (const file of ['package.json', 'package-lock.json']) {
			if (existsSync(join(source, file))) copyFileSync(join(source, file), join(dir, file));
		}
		// Install scripts that download prebuilt binaries from outside the registry would fail; the one native
		// module n8n needs with SQLite is built below.
		await runCommand('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: dir,
			env: npmEnv,
			label: `npm install (n8n ${version})`,
		});
		// An install that replaced sqlite3 leaves it unbuilt, which the load check below catches.
		stamp = { packageHash, sqlite3: stamp?.sqlite3 ?? null };
		writeStamp(dir, stamp);
	}
	const wantsSqlite3 = options.sqlite3 ?? true;
	if (wantsSqlite3 && (stamp.sqlite3?.nodeMajor !== nodeMajor || !sqlite3Loads(dir, nodeBinary, npmEnv))) {
		await runCommand('npm', ['rebuild', 'sqlite3', '--loglevel=error'], {
			cwd: dir,
			env: npmEnv,
			label: `npm rebuild sqlite3 for Node ${nodeVersion} (n8n ${version})`,
		});
		if (!sqlite3Loads(dir, nodeBinary, npmEnv)) {
			throw new Error(`sqlite3 in ${dir} still does not load with ${nodeBinary} after rebuilding it`);
		}
		stamp = { packageHash, sqlite3: { nodeVersion, nodeMajor } };
		writeStamp(dir, stamp);
	}
	return { version, dir, nodeBinary, env, webhookUrlVariable: spec.webhookUrlVariable };
}

/** Node 24 from scripts/toolchain.sh (NODE24_BIN), or the Node running us when it is 24 or newer. */
function node24Binary(): string {
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

function hashFiles(files: string[]): string {
	const hash = createHash('sha256');
	for (const file of files) {
		hash.update(basename(file)).update('\0');
		if (existsSync(file)) hash.update(readFileSync(file));
		hash.update('\0');
	}
	return hash.digest('hex');
}

function readStamp(dir: string): RuntimeStamp | undefined {
	try {
		return JSON.parse(readFileSync(join(dir, STAMP_FILE), 'utf8')) as RuntimeStamp;
	} catch {
		return undefined;
	}
}

function writeStamp(dir: string, stamp: RuntimeStamp): void {
	writeFileSync(join(dir, STAMP_FILE), `${JSON.stringify(stamp, null, '\t')}\n`);
}
