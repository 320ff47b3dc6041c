/**
 * `npm run demo`: a local n8n 2.x with this package installed, the service simulator, a ready credential
 * and the example workflows, to try the nodes in the editor. Run from the repo root after `npm run build`
 * (the npm script, through scripts/bootstrap.sh, builds first). N8N_PORT (default 5678) and SIMULATOR_PORT
 * (default: a free one) choose the ports. n8n's data, edits to the examples, the webhook modules the
 * simulator holds and the examples' webhook secret are kept between runs; Ctrl-C (or SIGTERM) stops n8n
 * and the simulator.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DEMO, startSimulator } from '../test/simulator/server.ts';
import type { Simulator } from '../test/simulator/server.ts';
import { OWNER, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nInstance } from '../test/e2e/harness/n8n.ts';
import { beginRun, log, setLogPrefix } from '../test/e2e/harness/process.ts';
import { cacheDir } from '../test/e2e/harness/runtime.ts';
import type { N8nVersion } from '../test/e2e/harness/runtime.ts';
import {
	DEMO_CREDENTIAL_NAME,
	EXAMPLES,
	installExamples,
	MCP_BEARER_CREDENTIAL_NAME,
	mcpExamplePath,
	newWebhookSecret,
	OPENAI_PLACEHOLDER_CREDENTIAL_NAME,
	WEBHOOK_SECRET_CREDENTIAL_NAME,
	WEBHOOK_SECRET_HEADER,
} from './examples.ts';

const VERSION: N8nVersion = '2.41.1';
const DEFAULT_N8N_PORT = 5678;
const HEALTH_CHECK_MS = 5_000;
const READY_TIMEOUT_MS = 600_000;
const USER_FOLDER = join(cacheDir(), 'demo-user-folder');
/** The simulator forgets everything when it stops; the modules n8n registered in it are kept here for the next run. */
const MODULES_FILE = join(USER_FOLDER, 'simulator-modules.json');
/** The secret of the examples' Header Auth credential: made on the first run, kept for the next ones. */
const WEBHOOK_SECRET_FILE = join(USER_FOLDER, 'webhook-secret');
const startedAt = Date.now();

let n8n: N8nInstance | undefined;
let simulator: Simulator | undefined;
let stopping = false;

// Registered before n8n starts, so the harness leaves these signals to us and n8n gets a graceful stop.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal));

async function shutdown(reason: string, exitCode = 0): Promise<void> {
	if (stopping) {
		// A second Ctrl-C: leave now; the harness's exit hook kills n8n's process group.
		process.exit(130);
	}
	stopping = true;
	if (!n8n) {
		// Still starting (or failed to): the harness's exit hook kills an n8n that is on its way up.
		process.stderr.write(`\n${reason}: stopping during start-up.\n`);
		await simulator?.close();
		process.exit(exitCode === 0 ? 130 : exitCode);
	}
	process.stderr.write(`\n${reason}: stopping n8n and the simulator...\n`);
	if (simulator) saveModules(simulator);
	await n8n.stop();
	await simulator?.close();
	process.stderr.write('Stopped.\n');
	process.exit(exitCode);
}

function portSetting(name: string, fallback: number): number {
	const value = process.env[name];
	const port = value === undefined || value === '' ? fallback : Number(value);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not ${value}`);
	return port;
}

/** n8n would only fail after seconds of start-up with a buried EADDRINUSE: check first. */
async function portIsFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * An active trigger registered its modules in an earlier run's simulator, and n8n will not register them again
 * (the trigger remembers them, as it must with the real service): give them back to this run's simulator.
 */
function restoreModules(target: Simulator): void {
	if (!existsSync(MODULES_FILE)) return;
	const saved = JSON.parse(readFileSync(MODULES_FILE, 'utf8')) as {
		webhookModules: Array<[string, never]>;
		integrationModules: Array<[string, never]>;
	};
	for (const [id, module] of saved.webhookModules) target.state.webhookModules.set(id, module);
	for (const [id, module] of saved.integrationModules) target.state.integrationModules.set(id, module);
}

function saveModules(source: Simulator): void {
	const { webhookModules, integrationModules } = source.state;
	writeFileSync(MODULES_FILE, JSON.stringify({ webhookModules: [...webhookModules], integrationModules: [...integrationModules] }));
}

/** This demo's webhook secret: random, made once per user folder (readable by its owner only) and reused after. */
function webhookSecret(): string {
	if (existsSync(WEBHOOK_SECRET_FILE)) return readFileSync(WEBHOOK_SECRET_FILE, 'utf8').trim();
	const secret = newWebhookSecret();
	writeFileSync(WEBHOOK_SECRET_FILE, `${secret}\n`, { mode: 0o600 });
	return secret;
}

/** Exits (stopping the simulator) when n8n goes away on its own, rather than leaving a dead demo waiting. */
function watchN8n(instance: N8nInstance): void {
	let failures = 0;
	setInterval(async () => {
		if (stopping) return;
		if (simulator) saveModules(simulator);
		const healthy = await fetch(`${instance.url}healthz`, { signal: AbortSignal.timeout(4_000) }).then(
			(response) => response.ok,
			() => false,
		);
		failures = healthy ? 0 : failures + 1;
		if (failures >= 3 && !stopping) {
			process.stderr.write(`n8n stopped answering; its log: ${instance.logFile}\n`);
			void shutdown('n8n is gone', 1);
		}
	}, HEALTH_CHECK_MS);
}

async function main(): Promise<void> {
	const n8nPort = portSetting('N8N_PORT', DEFAULT_N8N_PORT);
	const simulatorPort = portSetting('SIMULATOR_PORT', 0);
	if (!(await portIsFree(n8nPort))) {
		throw new Error(`Port ${n8nPort} is in use (another n8n, or an earlier demo?): stop it, or choose another with N8N_PORT=<port>`);
	}

	setLogPrefix('demo');
	// Stops what a demo killed without its Ctrl-C (a closed terminal, kill -9) left running.
	beginRun();
	log(
		`starting n8n ${VERSION} with this package, the service simulator and the examples ` +
			'(the first run installs n8n: about 3-10 minutes; later runs start in under a minute)',
	);
	simulator = await startSimulator({ host: '127.0.0.1', port: simulatorPort });
	restoreModules(simulator);
	// A first start migrates a new database: on a 2-core machine shared with other n8n instances (load 40-50)
	// that took over 300 s, against the harness's default of 120 s.
	n8n = await startN8n({ version: VERSION, withPackage: true, port: n8nPort, userFolder: USER_FOLDER, readyTimeoutMs: READY_TIMEOUT_MS });

	log('setting up the credential and the example workflows');
	const secret = webhookSecret();
	const imported = await installExamples(n8n, simulator.url, secret);
	saveModules(simulator);
	const callEnded = imported.find((each) => each.file === EXAMPLES.callEnded);
	watchN8n(n8n);

	const nameWidth = Math.max(...imported.map((each) => each.name.length));
	const lead = JSON.stringify({ first_name: 'Ada', last_name: 'Lovelace', phone: '+14155550123', email: 'ada@example.com', company: 'Acme' });
	process.stdout.write(
		[
			'',
			`Campaign Calling demo ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
			'',
			`  n8n ${VERSION}:   ${n8n.url}`,
			`  login:        ${OWNER.email} / ${OWNER.password}`,
			`  simulator:    ${simulator.url}  (the credential "${DEMO_CREDENTIAL_NAME}" points here, API key ${DEMO.apiKey})`,
			'',
			'  Example workflows:',
			...imported.map(
				(each) =>
					`    ${each.name.padEnd(nameWidth)}  ${n8n?.url}workflow/${each.id}${each.active ? '  (active)' : ''}${each.kept ? '  (kept from the last run)' : ''}`,
			),
			'',
			`  Play a call, so "${callEnded?.name}" runs (see its Executions tab):`,
			`    curl -X POST ${simulator.url}/__sim/play-call`,
			`  The examples' Webhook nodes ask for a header (Header Auth, the credential "${WEBHOOK_SECRET_CREDENTIAL_NAME}");`,
			'  without it n8n answers 403 and nothing runs, so no one who finds the URL can add contacts:',
			`    ${WEBHOOK_SECRET_HEADER}: ${secret}`,
			'  Send a lead: open the new-lead workflow, click "Execute workflow", then',
			`    curl -X POST ${n8n.url}webhook-test/new-lead -H 'content-type: application/json' \\`,
			`      -H '${WEBHOOK_SECRET_HEADER}: ${secret}' -d '${lead}'`,
			'  Call, then act on the outcome: open its workflow, click "Execute workflow", send it a lead as above to',
			`    ${n8n.url}webhook-test/call-then-act (with the header), then play that contact's call (its id is in Add to Campaign's output):`,
			`    curl -X POST ${simulator.url}/__sim/play-call -H 'content-type: application/json' -d '{"contact_id": "<id>"}'`,
			'    Its first check comes after 5 minutes (Wait Between Checks).',
			`  What the service received:  curl ${simulator.url}/__sim/requests`,
			'',
			'  MCP server (tools Add_to_Campaign, Get_Contact, Get_Campaign; streamable HTTP or SSE):',
			`    ${n8n.webhookUrl}mcp/${mcpExamplePath()}   header  Authorization: Bearer ${secret}`,
			`    e.g. npx mcp-remote ${n8n.webhookUrl}mcp/${mcpExamplePath()} --header 'Authorization: Bearer ${secret}'`,
			`  The human review example needs a model: put your OpenAI key in the credential "${OPENAI_PLACEHOLDER_CREDENTIAL_NAME}".`,
			'',
			`  Kept between runs in ${n8n.userFolder}: n8n's data, your edits to the examples (a deleted example`,
			`  comes back on the next start), the simulator's webhook modules and the demo's secret (in webhook-secret;`,
			`  each start sets the credentials "${WEBHOOK_SECRET_CREDENTIAL_NAME}" and "${MCP_BEARER_CREDENTIAL_NAME}" to it). Delete that folder to start afresh.`,
			`  n8n's log: ${n8n.logFile}`,
			'  Ctrl-C stops n8n and the simulator.',
			'',
		].join('\n'),
	);
}

main().catch(async (error: unknown) => {
	process.stderr.write(`Demo failed: ${(error as Error).message}\n`);
	await shutdown('error', 1);
});
