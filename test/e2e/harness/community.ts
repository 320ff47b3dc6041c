/**
 * n8n's own Community Nodes installer, driven through the REST endpoints behind Settings → Community Nodes
 * (`/rest/community-packages`), from the local registry (registry.ts), and what it leaves on disk.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as http from 'node:http';
import { join, relative } from 'node:path';
import { BROWSER_ID, isDatabaseNotReady, type ApiResponse, type N8nInstance } from './n8n.ts';
import { sleep } from './process.ts';

/** n8n's licence flag for a registry other than npmjs (N8N_COMMUNITY_PACKAGES_REGISTRY). */
export const CUSTOM_REGISTRY_FEATURE = 'feat:communityNodes:customRegistry';

/**
 * What n8n needs to install from the local registry: its address, and n8n's test hook (E2E_TESTS) through
 * which the test turns on the one licence flag a custom registry needs (enableCustomRegistry). Debug logging
 * makes n8n 2.x log each npm command it runs; npm's own debug logs go to `npmLogsDir` (1.x logs none itself).
 */
export function communityInstallEnv(registryUrl: string, npmLogsDir: string): Record<string, string> {
	return { E2E_TESTS: 'true', N8N_COMMUNITY_PACKAGES_REGISTRY: registryUrl, N8N_LOG_LEVEL: 'debug', npm_config_logs_dir: npmLogsDir };
}

/** Turns on the custom-registry licence flag through n8n's test hook (`PATCH /rest/e2e/feature`, E2E_TESTS=true). */
export async function enableCustomRegistry(n8n: N8nInstance): Promise<void> {
	const response = await sessionCall(n8n, 'PATCH', 'rest/e2e/feature', { feature: CUSTOM_REGISTRY_FEATURE, enabled: true });
	if (response.status !== 200) throw new Error(`PATCH /rest/e2e/feature: HTTP ${response.status} ${JSON.stringify(response.body)}`);
}

export interface InstalledNode {
	name: string;
	type: string;
	latestVersion: number;
}

/** An installed package as the Community Nodes screen lists it. */
export interface CommunityPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: InstalledNode[];
	/** Set by n8n when `npm outdated` in its nodes folder names a newer version. */
	updateAvailable?: string;
	/** Set when the package is in n8n's database but not loaded (its files are missing). */
	failedLoading?: boolean;
}

export interface TimedResponse<T> extends ApiResponse<T> {
	/** From sending the request to n8n's answer. */
	ms: number;
}

/** The screen's buttons, as the editor calls them: Install (name and version), Update, Uninstall, and the list. */
export function communityPackages(n8n: N8nInstance) {
	const timed = async <T>(method: string, path: string, body?: unknown): Promise<TimedResponse<T>> => {
		const startedAt = Date.now();
		const response = await sessionCall<T>(n8n, method, `rest${path}`, body);
		return { ...response, ms: Date.now() - startedAt };
	};
	return {
		install: (name: string, version?: string) => timed<{ data: CommunityPackage }>('POST', '/community-packages', { name, version }),
		update: (name: string, version?: string) => timed<{ data: CommunityPackage }>('PATCH', '/community-packages', { name, version }),
		uninstall: (name: string) => timed<unknown>('DELETE', `/community-packages?name=${encodeURIComponent(name)}`),
		list: async () => {
			const response = await sessionCall<{ data: CommunityPackage[] }>(n8n, 'GET', 'rest/community-packages');
			if (response.status !== 200) throw new Error(`GET /rest/community-packages: HTTP ${response.status} ${JSON.stringify(response.body)}`);
			return response.body.data;
		},
	};
}

/**
 * A call with the owner's session on a connection of its own. n8n closes some connections (after
 * `/types/nodes.json`, for one) in a way fetch's connection pool notices only on its next request there,
 * which then fails with "other side closed"; a request to the installer must never be sent twice.
 */
export async function sessionCall<T = unknown>(n8n: N8nInstance, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		const answer = await sessionCallOnce<T>(n8n, method, path, body);
		if (!isDatabaseNotReady(answer) || Date.now() > deadline) return answer;
		await sleep(1_000);
	}
}

async function sessionCallOnce<T>(n8n: N8nInstance, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
	const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
	return await new Promise((resolve, reject) => {
		const request = http.request(`${n8n.url}${path}`, {
			method,
			agent: false,
			headers: {
				cookie: n8n.cookie,
				'browser-id': BROWSER_ID,
				...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
			},
			signal: AbortSignal.timeout(300_000),
		});
		request.on('response', (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let parsed: unknown = text;
				try {
					parsed = JSON.parse(text);
				} catch {
					// Not JSON: keep the text.
				}
				resolve({ status: response.statusCode ?? 0, body: parsed as T });
			});
			response.on('error', reject);
		});
		request.on('error', reject);
		request.end(payload);
	});
}

/** The node types the editor loads (`/types/nodes.json`), by name. */
export async function nodeTypeNames(n8n: N8nInstance): Promise<Set<string>> {
	const response = await sessionCall<Array<{ name: string }>>(n8n, 'GET', 'types/nodes.json');
	if (response.status !== 200 || !Array.isArray(response.body)) {
		throw new Error(`GET /types/nodes.json: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
	}
	return new Set(response.body.map((type) => type.name));
}

/** Polls the editor's node types until `present` holds for every one of `types`; resolves to the milliseconds it took. */
export async function waitForNodeTypes(n8n: N8nInstance, types: string[], present: boolean, timeoutMs = 60_000): Promise<number> {
	const startedAt = Date.now();
	for (;;) {
		// Right after an install n8n rebuilds the types file: an answer that is not the list yet is asked again.
		let failure = '';
		try {
			const known = await nodeTypeNames(n8n);
			if (types.every((type) => known.has(type) === present)) return Date.now() - startedAt;
		} catch (error) {
			failure = ` (last answer: ${(error as Error).message})`;
		}
		if (Date.now() - startedAt > timeoutMs) {
			throw new Error(`Node types ${types.join(', ')} still ${present ? 'missing from' : 'in'} /types/nodes.json after ${timeoutMs / 1000} s${failure}`);
		}
		await sleep(250);
	}
}

export interface NodesFolder {
	/** `<userFolder>/.n8n/nodes`: n8n's community-package folder. */
	dir: string;
	/** Its entries, and those of its node_modules. */
	entries: string[];
	modules: string[];
	/** Every file under the package's folder, relative to it, sorted. */
	packageFiles: string[];
	/** Their sizes added up (what the files hold, not the disk blocks). */
	packageBytes: number;
	/** The package.json n8n left in the package's folder. */
	manifest: Record<string, unknown>;
	/** n8n's ledger, `<nodes>/package.json`: its dependencies are the installed packages. */
	ledger: { dependencies?: Record<string, string> } | undefined;
}

/** What n8n's installer left in the user folder for `packageName`. */
export function readNodesFolder(userFolder: string, packageName: string): NodesFolder {
	const dir = join(userFolder, '.n8n', 'nodes');
	const packageDir = join(dir, 'node_modules', packageName);
	const packageFiles = existsSync(packageDir) ? listFiles(packageDir).map((file) => relative(packageDir, file)).sort() : [];
	const ledgerFile = join(dir, 'package.json');
	return {
		dir,
		entries: existsSync(dir) ? readdirSync(dir).sort() : [],
		modules: existsSync(join(dir, 'node_modules')) ? readdirSync(join(dir, 'node_modules')).sort() : [],
		packageFiles,
		packageBytes: packageFiles.reduce((total, file) => total + statSync(join(packageDir, file)).size, 0),
		manifest: existsSync(join(packageDir, 'package.json')) ? (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>) : {},
		ledger: existsSync(ledgerFile) ? (JSON.parse(readFileSync(ledgerFile, 'utf8')) as NodesFolder['ledger']) : undefined,
	};
}

function listFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
	);
}

/**
 * The npm commands n8n ran, from npm's own debug logs (`verbose argv` and `verbose cwd` of each run), for a
 * line that does not log them itself (1.x): n8n passes its environment on to npm, so `npm_config_logs_dir`
 * (communityInstallEnv's `npmLogsDir`) collects them. `seen` holds the log files already read, and is updated.
 */
export function npmCommandsInNpmLogs(logsDir: string, seen: Set<string>): string[] {
	if (!existsSync(logsDir)) return [];
	const commands: string[] = [];
	for (const file of readdirSync(logsDir).sort()) {
		if (seen.has(file)) continue;
		seen.add(file);
		const text = readFileSync(join(logsDir, file), 'utf8');
		const argv = /verbose argv (.*)$/m.exec(text)?.[1];
		if (!argv) continue;
		const args = [...argv.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]);
		const cwd = /verbose cwd (.*)$/m.exec(text)?.[1]?.trim();
		commands.push(`npm ${args.join(' ')}${cwd ? ` (in ${cwd})` : ''}`);
	}
	return commands;
}

/**
 * The npm commands n8n ran, from its debug log (2.x logs `Executing npm command` with the arguments, tokens
 * masked); `since` is a log offset, so a step's own commands can be told apart.
 */
export function npmCommandsInLog(log: string, since = 0): string[] {
	const commands: string[] = [];
	for (const line of log.slice(since).split('\n')) {
		const match = /Executing npm command.*?(\{.*\})\s*$/.exec(line);
		if (!match) continue;
		try {
			const { args } = JSON.parse(match[1]) as { args: string[] };
			commands.push(`npm ${args.join(' ')}`);
		} catch {
			commands.push(line.trim());
		}
	}
	return commands;
}
