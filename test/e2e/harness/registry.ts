/**
 * A local npm registry (verdaccio, pinned under test/e2e/runtime/verdaccio/) on 127.0.0.1, for installing the
 * package the way users do: published with `npm publish`, then installed by n8n's own Community Nodes installer
 * from that registry (N8N_COMMUNITY_PACKAGES_REGISTRY). It has no uplink: it serves only what was published to it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packTarball, unpackTarball } from './package.ts';
import { answersOk, cleanEnv, freePort, log, readJson, runCommand, spawnLogged, waitUntil } from './process.ts';
import type { LoggedProcess } from './process.ts';
import { cacheDir, hashFiles, node24Binary, pathWithNodeFirst, withInstallLock } from './runtime.ts';

/** The committed package.json and package-lock.json the registry is installed from. */
const SOURCE = join(process.cwd(), 'test', 'e2e', 'runtime', 'verdaccio');
const STAMP_FILE = '.campaign-calling-registry.json';
/** Present while npm installs the registry: found at the next start, it means that install was cut off. */
const INSTALLING_MARKER = '.campaign-calling-installing';
const ENTRY = join('node_modules', 'verdaccio', 'bin', 'verdaccio');
/** The one account the registry has: the publisher. It lives and dies with the registry's temp folder. */
const PUBLISHER = { name: 'e2e-publisher', password: 'e2e-publisher-password', email: 'publisher@campaign-calling.invalid' };

export function registryVersion(): string {
	const manifest = JSON.parse(readFileSync(join(SOURCE, 'package.json'), 'utf8')) as { dependencies: { verdaccio: string } };
	return manifest.dependencies.verdaccio;
}

function registryDir(): string {
	return join(cacheDir(), `verdaccio-${registryVersion()}`);
}

/**
 * Installs (or reuses) the pinned verdaccio in the cache folder, outside the clone and never as a dependency
 * of the package. Locked like the n8n installs; an install that was cut off is started afresh.
 */
export async function ensureRegistryInstall(): Promise<string> {
	const dir = registryDir();
	const packageHash = hashFiles([join(SOURCE, 'package.json'), join(SOURCE, 'package-lock.json')]);
	const isReady = () =>
		readJson<{ packageHash: string }>(join(dir, STAMP_FILE))?.packageHash === packageHash &&
		existsSync(join(dir, ENTRY)) &&
		!existsSync(join(dir, INSTALLING_MARKER));
	if (isReady()) return dir;
	await withInstallLock(dir, `verdaccio ${registryVersion()}`, async () => {
		if (isReady()) return;
		const marker = join(dir, INSTALLING_MARKER);
		if (existsSync(marker)) {
			log(`verdaccio: an earlier install in ${dir} did not finish; removing it and starting again`);
			rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
		}
		mkdirSync(dir, { recursive: true });
		writeFileSync(marker, `${process.pid}\n`);
		for (const file of ['package.json', 'package-lock.json']) writeFileSync(join(dir, file), readFileSync(join(SOURCE, file)));
		await runCommand('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: dir,
			env: { ...cleanEnv(), PATH: pathWithNodeFirst(node24Binary()) },
			label: `npm install (verdaccio ${registryVersion()}, a local npm registry: 20-60 s, once)`,
		});
		rmSync(marker, { force: true });
		writeFileSync(join(dir, STAMP_FILE), `${JSON.stringify({ packageHash }, null, '\t')}\n`);
	});
	return dir;
}

export interface PublishedVersion {
	name: string;
	version: string;
	/** What `npm publish` printed (its notices: files, sizes, the registry it published to). */
	output: string;
}

export interface LocalRegistry {
	/** With a trailing slash: http://127.0.0.1:<port>/ */
	url: string;
	port: number;
	logFile: string;
	/** The registry's log so far: one line per request it served (`http <-- 200, user: ... GET /<package>`). */
	logs(): string;
	/** `npm publish` of the package folder at `dir`, as the publish workflow does (without provenance, which needs CI). */
	publish(dir: string): Promise<PublishedVersion>;
	/**
	 * Publishes the package at `packageRoot` as it is, then a copy of its packed tree with the version set to
	 * each of `laterVersions`, in that order.
	 */
	publishWithLaterVersions(packageRoot: string, laterVersions: string[]): Promise<PublishedVersion[]>;
	/** Stops the registry and removes its folder (kept with E2E_KEEP_WORK). Safe to call more than once. */
	stop(): Promise<void>;
}

/** Starts the registry on a free loopback port, with an empty storage and a publisher account. */
export async function startRegistry(options: { readyTimeoutMs?: number } = {}): Promise<LocalRegistry> {
	const installDir = await ensureRegistryInstall();
	const workDir = mkdtempSync(join(tmpdir(), 'campaign-calling-e2e-registry-'));
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/`;
	const config = join(workDir, 'config.yaml');
	writeFileSync(config, registryConfig(workDir));
	const logFile = join(workDir, 'verdaccio.log');
	const nodeBinary = node24Binary();
	log(`verdaccio ${registryVersion()}: starting on ${url} (work folder ${workDir})`);
	const server: LoggedProcess = spawnLogged({
		label: `verdaccio ${registryVersion()}`,
		command: nodeBinary,
		args: [ENTRY, '--config', config, '--listen', `127.0.0.1:${port}`],
		cwd: installDir,
		env: { ...cleanEnv(), PATH: pathWithNodeFirst(nodeBinary) },
		logFile,
	});
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= server.stop().then(() => {
			if (!process.env.E2E_KEEP_WORK) rmSync(workDir, { recursive: true, force: true });
		});
		return stopping;
	};
	try {
		await waitUntil('answering /-/ping', server, () => answersOk(`${url}-/ping`), options.readyTimeoutMs ?? 60_000);
		const userconfig = join(workDir, 'publisher.npmrc');
		writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=${await createPublisher(url)}\n`);

		const publish = async (dir: string): Promise<PublishedVersion> => {
			const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
			const result = spawnSync('npm', ['publish', '--access', 'public', `--registry=${url}`, `--userconfig=${userconfig}`], {
				cwd: dir,
				env: { ...cleanEnv(), PATH: pathWithNodeFirst(nodeBinary) },
				encoding: 'utf8',
			});
			const output = `${result.stdout}${result.stderr}`;
			if (result.status !== 0) throw new Error(`npm publish of ${manifest.name}@${manifest.version} to ${url} failed:\n${output}`);
			log(`published ${manifest.name}@${manifest.version} to ${url}`);
			return { name: manifest.name, version: manifest.version, output };
		};

		return {
			url,
			port,
			logFile,
			logs: server.logs,
			publish,
			async publishWithLaterVersions(packageRoot, laterVersions) {
				const published = [await publish(packageRoot)];
				const staging = mkdtempSync(join(tmpdir(), 'campaign-calling-e2e-publish-'));
				try {
					const { tarball } = packTarball(packageRoot, staging);
					for (const version of laterVersions) {
						const copy = join(staging, version);
						unpackTarball(tarball, copy);
						const manifestFile = join(copy, 'package.json');
						const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
						writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
						published.push(await publish(copy));
					}
				} finally {
					rmSync(staging, { recursive: true, force: true });
				}
				return published;
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

/** The next patch version of a semver version (`0.1.0` → `0.1.1`). */
export function nextPatch(version: string): string {
	const [major, minor, patch] = version.split('-')[0].split('.').map(Number);
	return `${major}.${minor}.${patch + 1}`;
}

/** Storage and accounts in the work folder, no uplink, every request logged, no web UI. */
function registryConfig(workDir: string): string {
	return [
		`storage: ${JSON.stringify(join(workDir, 'storage'))}`,
		'auth:',
		'  htpasswd:',
		`    file: ${JSON.stringify(join(workDir, 'htpasswd'))}`,
		'    max_users: 1',
		'uplinks: {}',
		'packages:',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'    unpublish: $authenticated',
		'web:',
		'  enable: false',
		'log: { type: stdout, format: pretty, level: http }',
		'',
	].join('\n');
}

/** Signs the publisher up (npm's `adduser` request) and returns its token. */
async function createPublisher(url: string): Promise<string> {
	const response = await fetch(`${url}-/user/org.couchdb.user:${PUBLISHER.name}`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ ...PUBLISHER, type: 'user', roles: [], date: new Date().toISOString() }),
	});
	const body = (await response.json()) as { token?: string };
	if (!response.ok || !body.token) throw new Error(`Creating the registry's publisher failed: HTTP ${response.status} ${JSON.stringify(body)}`);
	return body.token;
}
