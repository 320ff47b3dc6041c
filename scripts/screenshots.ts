/**
 * `npm run screenshots`: signs in to the editor with Debian's chromium (through playwright-core) and saves
 * PNGs of the package's nodes into docs/screenshots/. Uses a running `npm run demo` (N8N_PORT, default
 * 5678) when there is one; otherwise starts its own n8n and simulator with the examples, and stops them.
 * Needs /usr/bin/chromium (`apt-get install -y chromium`).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Page } from 'playwright-core';
import { BROWSER_ID, OWNER, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nInstance } from '../test/e2e/harness/n8n.ts';
import { startSimulator } from '../test/simulator/server.ts';
import type { Simulator } from '../test/simulator/server.ts';
import { EXAMPLES, installExamples, readExample } from './examples.ts';

const CHROMIUM = '/usr/bin/chromium';
const OUT_DIR = join(process.cwd(), 'docs', 'screenshots');
const VIEWPORT = { width: 1440, height: 900 };
// Quiet, offline, disposable: no updates, sync or first-run screens.
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--no-first-run',
];
/** What the canvas and panels need to finish their animations before a shot. */
const SETTLE_MS = 800;

const NEW_LEAD = readExample(EXAMPLES.newLead).name;
const CALL_ENDED = readExample(EXAMPLES.callEnded).name;

/** The running demo's URL when it answers and takes the demo login, else undefined. */
async function runningDemo(): Promise<string | undefined> {
	const url = `http://127.0.0.1:${process.env.N8N_PORT || 5678}/`;
	try {
		const login = await fetch(`${url}rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
			signal: AbortSignal.timeout(5_000),
		});
		return login.ok ? url : undefined;
	} catch {
		return undefined;
	}
}

async function signIn(page: Page, url: string): Promise<void> {
	await page.goto(`${url}signin`);
	await page.fill('#emailOrLdapLoginId', OWNER.email);
	await page.fill('#password', OWNER.password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL((address) => !address.pathname.includes('signin'));
}

/** Opens a workflow from the overview by its name, as a user would. */
async function openWorkflow(page: Page, url: string, name: string): Promise<void> {
	await page.goto(`${url}home/workflows`);
	await page.getByText(name, { exact: true }).first().click();
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.waitForTimeout(SETTLE_MS);
}

async function openNode(page: Page, nodeName: string): Promise<void> {
	await page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).dblclick();
	await page.waitForSelector('[data-test-id="ndv"] [data-test-id="node-parameters"]');
	await page.waitForTimeout(SETTLE_MS);
}

async function shoot(page: Page, file: string): Promise<string> {
	const path = join(OUT_DIR, file);
	await page.screenshot({ path });
	process.stdout.write(`  ${path}\n`);
	return path;
}

async function capture(url: string): Promise<void> {
	const profile = mkdtempSync(join(tmpdir(), 'campaign-calling-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: VIEWPORT,
	});
	try {
		const page = context.pages()[0] ?? (await context.newPage());
		await signIn(page, url);

		// The node panel: searching "Campaign Calling" after a trigger, then the action node's operations.
		await openWorkflow(page, url, NEW_LEAD);
		await page.click('[data-test-id="node-creator-plus-button"]');
		await page.waitForSelector('[data-test-id="node-creator-search-bar"]');
		await page.keyboard.type('Campaign Calling');
		await page.waitForSelector('[data-test-id="node-creator-item-name"]');
		await page.waitForTimeout(SETTLE_MS);
		await shoot(page, 'node-panel-search.png');
		await page.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Campaign Calling$/ }).first().click();
		await page.getByText('Add contacts to a campaign').first().waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await shoot(page, 'node-panel-actions.png');
		await page.keyboard.press('Escape');

		// A filled-in Add Contacts step: example a's node.
		await openWorkflow(page, url, NEW_LEAD);
		await openNode(page, 'Add to Campaign');
		await shoot(page, 'add-contacts-step.png');

		// The trigger's event picker, opened.
		await openWorkflow(page, url, CALL_ENDED);
		await openNode(page, 'Call Ended');
		await page.click('[data-test-id="parameter-input-events"]');
		await page.getByText('Call: Started').first().waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await shoot(page, 'trigger-event-picker.png');
	} finally {
		await context.close();
		rmSync(profile, { recursive: true, force: true });
	}
}

async function main(): Promise<void> {
	if (!existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get update && apt-get install -y chromium)`);
	}
	mkdirSync(OUT_DIR, { recursive: true });
	let url = await runningDemo();
	let own: { n8n?: N8nInstance; simulator?: Simulator } | undefined;
	if (url) {
		process.stdout.write(`Using the running demo at ${url}\n`);
	} else {
		process.stdout.write('No demo running: starting an n8n of its own (run `npm run build` first)\n');
		own = {};
		own.simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
		own.n8n = await startN8n({ version: '2.41.1', withPackage: true });
		await installExamples(own.n8n, own.simulator.url);
		url = own.n8n.url;
	}
	try {
		process.stdout.write(`Screenshots in ${OUT_DIR}:\n`);
		await capture(url);
	} finally {
		await own?.n8n?.stop();
		await own?.simulator?.close();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`Screenshots failed: ${(error as Error).stack ?? error}\n`);
	process.exitCode = 1;
});
