/**
 * A real reverse proxy in front of real n8n, for reverse-proxy.e2e.test.ts: Debian's nginx and Caddy as plain
 * processes on 127.0.0.1, with TLS from a local CA made with openssl, running the very blocks that
 * docs/reverse-proxy.md shows (read from the page, with its placeholders replaced); the service simulator as a
 * child process that trusts that CA; and the compose examples read back through Debian's `docker-compose config`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answersOk, cleanEnv, freePort, runCommand, sleep, spawnLogged, waitUntil, type LoggedProcess } from './process.ts';
import { findOnPath, type DebianNeed } from './system.ts';

export type ProxyKind = 'nginx' | 'caddy';
export const PROXY_KINDS: readonly ProxyKind[] = ['nginx', 'caddy'];

/** The page whose blocks the test runs, and the address and files its blocks name for the user to replace. */
export const PROXY_DOC = join('docs', 'reverse-proxy.md');
export const PUBLIC_HOST = 'n8n.example.com';
export const COMPOSE_DIR = join('examples', 'docker-compose');
export const COMPOSE_FILES: Record<ProxyKind, string> = { nginx: 'compose.nginx.yaml', caddy: 'compose.caddy.yaml' };
/** The proxy's configuration as the compose examples mount it (beside the compose files). */
export const COMPOSE_PROXY_CONFIGS: Record<ProxyKind, string> = { nginx: join('nginx', 'n8n.conf'), caddy: join('caddy', 'Caddyfile') };
/** Where n8n listens as the page's blocks say (n8n on the proxy's machine), and as the compose examples say (n8n's container). */
export const DOC_UPSTREAM = '127.0.0.1:5678';
export const COMPOSE_UPSTREAM = 'n8n:5678';
const DOC_CERTS: Record<ProxyKind, { cert: string; key: string }> = {
	nginx: { cert: `/etc/nginx/certs/${PUBLIC_HOST}.crt`, key: `/etc/nginx/certs/${PUBLIC_HOST}.key` },
	caddy: { cert: `/etc/caddy/certs/${PUBLIC_HOST}.crt`, key: `/etc/caddy/certs/${PUBLIC_HOST}.key` },
};
/** The HTML comment right before each tested fence on the page. */
const BLOCK_MARKERS: Record<ProxyKind | 'n8n', string> = {
	nginx: '<!-- run by test/e2e/reverse-proxy.e2e.test.ts: nginx -->',
	caddy: '<!-- run by test/e2e/reverse-proxy.e2e.test.ts: caddy -->',
	n8n: "<!-- run by test/e2e/reverse-proxy.e2e.test.ts: n8n's settings -->",
};

const NGINX = '/usr/sbin/nginx';
const CADDY = '/usr/bin/caddy';

/** Debian's packages the reverse-proxy test runs; installed by prepare.ts (`npm run test:prepare`) and the suite's globalSetup. */
export const REVERSE_PROXY_NEEDS: DebianNeed[] = [
	{ package: 'nginx', present: () => existsSync(NGINX) || findOnPath('nginx') !== undefined, purpose: 'The reverse-proxy test (nginx)' },
	{ package: 'caddy', present: () => existsSync(CADDY) || findOnPath('caddy') !== undefined, purpose: 'The reverse-proxy test (Caddy)' },
	{ package: 'docker-compose', present: () => findOnPath('docker-compose') !== undefined, purpose: "The compose examples' check (docker-compose config)" },
];

/**
 * Installs the reverse-proxy test's packages that are missing, in one apt-get run without recommended packages
 * (docker-compose recommends docker.io, containerd and iptables, which `docker-compose config` does not need; nginx
 * and Caddy are not started as services here). Lists are updated once, only when the install fails without.
 */
export async function ensureReverseProxyPackages(): Promise<void> {
	const missing = REVERSE_PROXY_NEEDS.filter((need) => !need.present());
	if (missing.length === 0) return;
	const packages = missing.map((need) => need.package);
	if (process.getuid?.() !== 0 || !findOnPath('apt-get')) {
		throw new Error(
			`${missing.map((need) => `${need.purpose} needs Debian's ${need.package}`).join('; ')}: install ${packages.length > 1 ? 'them' : 'it'} ` +
				`(apt-get install --no-install-recommends ${packages.join(' ')}), or run as root on a machine with apt-get so the suite does`,
		);
	}
	const options = { cwd: tmpdir(), env: { ...cleanEnv(), DEBIAN_FRONTEND: 'noninteractive' } };
	const install = () =>
		runCommand('apt-get', ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', ...packages], {
			...options,
			label: `apt-get install ${packages.join(' ')} (under a minute, once)`,
		});
	try {
		await install();
	} catch {
		await runCommand('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=600'], { ...options, label: 'apt-get update' });
		await install();
	}
	const stillMissing = missing.filter((need) => !need.present()).map((need) => need.package);
	if (stillMissing.length > 0) throw new Error(`apt-get installed ${packages.join(' ')}, but ${stillMissing.join(' and ')} is still not found`);
}

/** Fails, before anything starts, naming what to install, when a package the test runs is missing. */
export function requireReverseProxyPackages(): void {
	const missing = REVERSE_PROXY_NEEDS.filter((need) => !need.present()).map((need) => need.package);
	if (missing.length > 0) throw new Error(`Missing Debian packages ${missing.join(', ')}: run npm run test:prepare (as root), or apt-get install --no-install-recommends ${missing.join(' ')}`);
}

/** A fresh folder for the proxies' files, readable by nginx's workers (which run as nobody when started as root). */
export function proxyWorkDir(): string {
	const dir = mkdtempSync(join(tmpdir(), 'campaign-calling-proxy-'));
	chmodSync(dir, 0o755);
	return dir;
}

export function removeWorkDir(dir: string | undefined): void {
	if (dir && !process.env.E2E_KEEP_WORK) rmSync(dir, { recursive: true, force: true });
}

export interface LocalTls {
	/** The local CA's certificate (PEM): what the service, and the test's own https requests, trust. */
	caFile: string;
	ca: string;
	/** The server certificate (subjectAltName IP:127.0.0.1), signed by the CA, and its key. */
	certFile: string;
	keyFile: string;
}

/** A local CA and a server certificate for 127.0.0.1 that it signs, made with openssl in `dir`. */
export function makeLocalTls(dir: string): LocalTls {
	const file = (name: string) => join(dir, name);
	const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2', '-subj', '/CN=Campaign Calling e2e local CA',
		'-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
	openssl('req', ...ec, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1');
	writeFileSync(file('server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
	openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.crt'), '-days', '2', '-extfile', file('server.ext'));
	rmSync(file('ca.key'));
	return { caFile: file('ca.crt'), ca: readFileSync(file('ca.crt'), 'utf8'), certFile: file('server.crt'), keyFile: file('server.key') };
}

/** The fenced block right after `marker` on the page. */
function blockAfter(page: string, marker: string, pageName: string): string {
	const at = page.indexOf(marker);
	if (at < 0) throw new Error(`${pageName} has no block marked ${marker}`);
	const fence = /```[a-z]*\n([\s\S]*?)\n```/.exec(page.slice(at + marker.length));
	if (!fence) throw new Error(`${pageName}: no fenced block after ${marker}`);
	return `${fence[1]}\n`;
}

/** The nginx or Caddy block docs/reverse-proxy.md shows, as a user copies it (placeholders in place). */
export function documentedBlock(kind: ProxyKind | 'n8n', root = process.cwd()): string {
	return blockAfter(readFileSync(join(root, PROXY_DOC), 'utf8'), BLOCK_MARKERS[kind], PROXY_DOC);
}

/** n8n's settings from the page's block (`NAME=value` lines), with the public address replaced by `publicUrl`'s. */
export function documentedN8nSettings(publicUrl: string): Record<string, string> {
	const url = new URL(publicUrl);
	const settings: Record<string, string> = {};
	for (const line of documentedBlock('n8n').split('\n')) {
		const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
		if (!match) continue;
		const [, name, value] = match;
		settings[name] = name === 'N8N_HOST' ? value.replace(PUBLIC_HOST, url.hostname) : value.replace(`https://${PUBLIC_HOST}/`, url.href);
	}
	return settings;
}

/** Replaces each placeholder, failing when the block no longer has one (the page changed: the test must follow). */
function substitute(kind: string, block: string, replacements: Array<[string, string]>): string {
	let text = block;
	for (const [from, to] of replacements) {
		if (!text.includes(from)) throw new Error(`${PROXY_DOC}'s ${kind} block no longer contains '${from}', which the test replaces`);
		text = text.replaceAll(from, to);
	}
	return text;
}

export interface ProxyAddresses {
	/** Where the proxy serves https (the page's 443) and plain http (the page's 80), on 127.0.0.1. */
	httpsPort: number;
	httpPort: number;
	/** Where n8n listens (the page's 5678). */
	n8nPort: number;
	tls: LocalTls;
}

/** The page's nginx block as this test runs it: on 127.0.0.1's ports, with the test's certificate and n8n's port. */
export function nginxSiteAsRun(addresses: ProxyAddresses, block = documentedBlock('nginx')): string {
	return substitute('nginx', block, [
		['listen 443 ssl;', `listen 127.0.0.1:${addresses.httpsPort} ssl;`],
		['listen 80;', `listen 127.0.0.1:${addresses.httpPort};`],
		[DOC_CERTS.nginx.cert, addresses.tls.certFile],
		[DOC_CERTS.nginx.key, addresses.tls.keyFile],
		[`server_name ${PUBLIC_HOST};`, 'server_name 127.0.0.1;'],
		[DOC_UPSTREAM, `127.0.0.1:${addresses.n8nPort}`],
	]);
}

/** The page's Caddy block as this test runs it: the site at https://127.0.0.1:<port>, with the test's certificate and n8n's port. */
export function caddySiteAsRun(addresses: ProxyAddresses, block = documentedBlock('caddy')): string {
	return substitute('Caddy', block, [
		[DOC_CERTS.caddy.cert, addresses.tls.certFile],
		[DOC_CERTS.caddy.key, addresses.tls.keyFile],
		[`${PUBLIC_HOST} {`, `https://127.0.0.1:${addresses.httpsPort} {`],
		[DOC_UPSTREAM, `127.0.0.1:${addresses.n8nPort}`],
	]);
}

/**
 * What a user would put in nginx's main configuration (Debian's /etc/nginx/nginx.conf includes the site file in
 * its `http` block): here a process of its own, in the foreground, with its pid, logs and temp files in `dir`.
 */
function nginxMainConfig(dir: string, site: string): string {
	const temp = (name: string) => `${name}_temp_path ${join(dir, 'temp', name)};`;
	return [
		'daemon off;',
		'worker_processes 1;',
		`pid ${join(dir, 'nginx.pid')};`,
		`error_log ${join(dir, 'nginx-error.log')} info;`,
		'events {}',
		'http {',
		`    access_log ${join(dir, 'nginx-access.log')};`,
		...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `    ${temp(name)}`),
		'',
		'    # docs/reverse-proxy.md\'s block, as run:',
		...site.trimEnd().split('\n').map((line) => (line ? `    ${line}` : '')),
		'}',
		'',
	].join('\n');
}

/**
 * Caddy's global options for a process of its own: no admin endpoint, listening on 127.0.0.1 only, HTTP/1.1 and
 * HTTP/2 (no UDP listener), the HTTP->HTTPS redirect on the test's http port, its storage in `dir`. The site
 * block after it is the page's.
 */
function caddyfile(dir: string, httpPort: number, site: string): string {
	return [
		'{',
		'\tadmin off',
		'\tdefault_bind 127.0.0.1',
		`\thttp_port ${httpPort}`,
		'\tservers {',
		'\t\tprotocols h1 h2',
		'\t}',
		`\tstorage file_system ${join(dir, 'caddy-data')}`,
		'}',
		'',
		'# docs/reverse-proxy.md\'s block, as run:',
		site,
	].join('\n');
}

export interface RunningProxy {
	kind: ProxyKind;
	/** The configuration file it runs. */
	configFile: string;
	/** The site block in it, as run. */
	site: string;
	process: LoggedProcess;
	stop(): Promise<void>;
}

/** Starts nginx or Caddy with the page's block; resolves once it answers https://127.0.0.1:<httpsPort>/healthz (n8n's) through TLS. */
export async function startProxy(kind: ProxyKind, dir: string, addresses: ProxyAddresses): Promise<RunningProxy> {
	requireReverseProxyPackages();
	const own = join(dir, kind);
	mkdirSync(join(own, 'temp'), { recursive: true });
	chmodSync(own, 0o755);
	let site: string;
	let configFile: string;
	let proxy: LoggedProcess;
	if (kind === 'nginx') {
		site = nginxSiteAsRun(addresses);
		configFile = join(own, 'nginx.conf');
		writeFileSync(configFile, nginxMainConfig(own, site));
		const binary = findOnPath('nginx') ?? NGINX;
		execFileSync(binary, ['-t', '-p', `${own}/`, '-c', configFile, '-e', join(own, 'nginx-error.log')], { stdio: 'pipe' });
		// SIGQUIT: nginx's graceful shutdown (SIGTERM is its fast one; either ends the workers too).
		proxy = spawnLogged({ label: 'nginx', command: binary, args: ['-p', `${own}/`, '-c', configFile, '-e', join(own, 'nginx-error.log')], cwd: own, env: cleanEnv(), logFile: join(own, 'nginx.out'), stopSignal: 'SIGQUIT', stopGraceMs: 10_000 });
	} else {
		site = caddySiteAsRun(addresses);
		configFile = join(own, 'Caddyfile');
		writeFileSync(configFile, caddyfile(own, addresses.httpPort, site));
		const binary = findOnPath('caddy') ?? CADDY;
		// Its autosave and data go to the test's folder, not the user's home.
		const env = { ...cleanEnv(), HOME: own, XDG_DATA_HOME: join(own, 'data'), XDG_CONFIG_HOME: join(own, 'config') };
		execFileSync(binary, ['validate', '--config', configFile, '--adapter', 'caddyfile'], { stdio: 'pipe', env });
		proxy = spawnLogged({ label: 'caddy', command: binary, args: ['run', '--config', configFile, '--adapter', 'caddyfile'], cwd: own, env, logFile: join(own, 'caddy.log'), stopGraceMs: 10_000 });
	}
	const healthz = `https://127.0.0.1:${addresses.httpsPort}/healthz`;
	try {
		await waitUntil(`answering ${healthz}`, proxy, async () => (await httpsCall(healthz, addresses.tls.ca).catch(() => undefined))?.status === 200, 30_000);
	} catch (error) {
		await proxy.stop();
		throw error;
	}
	return { kind, configFile, site, process: proxy, stop: () => proxy.stop() };
}

export interface HttpAnswer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
}

/** One request over https that trusts only `ca` (as the service would with the local CA installed), or plain http. */
export async function httpsCall(url: string, ca: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
	const target = new URL(url);
	const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
	return await new Promise((resolve, reject) => {
		const request = send(target, { method: options.method ?? 'GET', headers: options.headers, ca, agent: false, timeout: 15_000 }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
			response.on('error', reject);
		});
		request.on('timeout', () => request.destroy(new Error(`${url}: no answer in 15 s`)));
		request.on('error', reject);
		request.end(options.body);
	});
}

export interface SimulatorProcess {
	url: string;
	process: LoggedProcess;
	/** A call to the simulator's control API (`/__sim/...`) over plain http on 127.0.0.1. */
	call<T>(method: string, path: string, body?: unknown): Promise<T>;
	stop(): Promise<void>;
}

/**
 * The service simulator as a process of its own (test/simulator/cli.ts) on 127.0.0.1, trusting the local CA through
 * NODE_EXTRA_CA_CERTS as a service trusts a public CA: its deliveries to the proxy's https address check the
 * certificate (Node's https, as the simulator sends).
 */
export async function startSimulatorProcess(caFile: string, logFile: string): Promise<SimulatorProcess> {
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const simulator = spawnLogged({
		label: 'simulator (trusting the local CA)',
		command: process.execPath,
		args: [join(process.cwd(), 'test', 'simulator', 'cli.ts')],
		cwd: process.cwd(),
		env: { ...cleanEnv(), SIMULATOR_PORT: String(port), NODE_EXTRA_CA_CERTS: caFile },
		logFile,
	});
	await waitUntil(`answering ${url}/__sim/health`, simulator, async () => await answersOk(`${url}/__sim/health`), 30_000).catch(async (error: unknown) => {
		await simulator.stop();
		throw error;
	});
	const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${url}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (!response.ok) throw new Error(`${method} ${url}${path}: HTTP ${response.status} ${await response.text()}`);
		return (await response.json()) as T;
	};
	return { url, process: simulator, call, stop: () => simulator.stop() };
}

/** Polls `check` until it returns a value, or fails after `timeoutMs` naming `what`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`not ${what} after ${timeoutMs / 1000} s`);
		await sleep(250);
	}
}

/** `docker-compose -f <file> config`: the file as Compose reads it, normalised; throws with Compose's message when it is not valid. */
export function composeConfig(file: string): string {
	try {
		return execFileSync('docker-compose', ['-f', file, 'config'], { stdio: 'pipe', env: cleanEnv(), encoding: 'utf8' });
	} catch (error) {
		const stderr = String((error as { stderr?: Buffer | string }).stderr ?? '');
		throw new Error(`docker-compose -f ${file} config failed: ${stderr || (error as Error).message}`);
	}
}

/**
 * The parts of `docker-compose config`'s output the test checks, read from its normalised YAML (two-space
 * indentation, services and keys sorted): each service's image, networks, published ports, volumes and environment.
 */
export interface ComposeService {
	image?: string;
	networks: string[];
	ports: string[];
	volumes: string[];
	environment: Record<string, string>;
}

export function composeServices(config: string): Record<string, ComposeService> {
	const services: Record<string, ComposeService> = {};
	let section = '';
	let service: ComposeService | undefined;
	let key = '';
	let port: { published?: string; target?: string } = {};
	const flushPort = () => {
		if (service && (port.published || port.target)) service.ports.push(`${port.published ?? ''}:${port.target ?? ''}`);
		port = {};
	};
	for (const line of config.split('\n')) {
		const indent = line.length - line.trimStart().length;
		const text = line.trim();
		if (!text) continue;
		if (indent === 0) {
			flushPort();
			section = text.replace(/:.*$/, '');
			service = undefined;
			continue;
		}
		if (section !== 'services') continue;
		if (indent === 2) {
			flushPort();
			service = { networks: [], ports: [], volumes: [], environment: {} };
			services[text.replace(/:$/, '')] = service;
			continue;
		}
		if (!service) continue;
		if (indent === 4 && !text.startsWith('- ')) {
			flushPort();
			const [name, ...rest] = text.split(':');
			key = name;
			if (name === 'image') service.image = rest.join(':').trim();
			continue;
		}
		const unquote = (value: string) => value.trim().replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
		if (key === 'environment' && indent === 6) {
			const at = text.indexOf(':');
			service.environment[text.slice(0, at)] = unquote(text.slice(at + 1));
		} else if (key === 'networks' && indent === 6) {
			service.networks.push(text.replace(/:.*$/, ''));
		} else if (key === 'volumes' && text.startsWith('- ')) {
			service.volumes.push(text.slice(2));
		} else if (key === 'ports') {
			const entry = text.replace(/^- /, '');
			if (text.startsWith('- ')) flushPort();
			const [name, value] = entry.split(':').map((part) => part.trim());
			if (name === 'published' || name === 'target') port[name] = unquote(value);
		}
	}
	flushPort();
	return services;
}
