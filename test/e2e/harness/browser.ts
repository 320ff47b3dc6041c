/**
 * The n8n editor in Debian's chromium, driven by playwright-core: installing chromium when missing,
 * a disposable headless browser that records console errors, signing in, and the few editor moves the
 * browser test and `npm run screenshots` share (opening a workflow, a node's panel, taking a picture).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { OWNER } from './n8n.ts';
import { CHROMIUM, CHROMIUM_NEED, ensureDebianPackages } from './system.ts';

export { CHROMIUM };

/** Quiet, offline, disposable: no GPU, QUIC, updates, sync or first-run screens (headless comes from playwright). */
export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
export const VIEWPORT = { width: 1440, height: 900 };
/** What the canvas and panels need to finish their animations before a picture or the next click. */
export const SETTLE_MS = 800;

/** Debian's chromium (CHROMIUM_PATH names another), installed first when missing and we are root with apt-get. */
export async function ensureChromium(): Promise<string> {
	await ensureDebianPackages([CHROMIUM_NEED]);
	return CHROMIUM;
}

export interface EditorBrowser {
	context: BrowserContext;
	page: Page;
	/**
	 * Console errors and uncaught page errors so far, oldest first; a test may empty it between steps.
	 * Failures to load the outside addresses blocked below are left out (they are in `blockedRequests`).
	 */
	consoleErrors: string[];
	/** Requests the editor made to hosts other than loopback, which the browser refused to send. */
	blockedRequests: string[];
	/** Closes the browser and removes its profile. */
	close(): Promise<void>;
}

/** A headless chromium with a new, empty profile, which it removes on close. */
export async function launchEditorBrowser(): Promise<EditorBrowser> {
	const executablePath = await ensureChromium();
	const profile = mkdtempSync(join(tmpdir(), 'campaign-calling-chromium-'));
	let context: BrowserContext;
	try {
		context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS, viewport: VIEWPORT });
	} catch (error) {
		rmSync(profile, { recursive: true, force: true });
		throw error;
	}
	// Nothing leaves the machine: the editor itself looks packages up on the npm registry, for example.
	const blockedRequests: string[] = [];
	await context.route(
		(address) => !isLoopback(address),
		async (route) => {
			blockedRequests.push(route.request().url());
			await route.abort('blockedbyclient');
		},
	);
	const page = context.pages()[0] ?? (await context.newPage());
	const consoleErrors: string[] = [];
	page.on('console', (message) => {
		if (message.type() !== 'error') return;
		const source = message.location().url;
		if (/^Failed to load resource/.test(message.text()) && source && !isLoopback(new URL(source))) return;
		consoleErrors.push(`console: ${message.text()}${source ? ` (${source})` : ''}`);
	});
	page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
	return {
		context,
		page,
		consoleErrors,
		blockedRequests,
		async close() {
			await context.close();
			rmSync(profile, { recursive: true, force: true });
		},
	};
}

function isLoopback(address: URL): boolean {
	return ['127.0.0.1', 'localhost', '[::1]'].includes(address.hostname) || ['data:', 'blob:', 'about:'].includes(address.protocol);
}

/** Signs in to the editor at `url` as the harness's owner. */
export async function signIn(page: Page, url: string): Promise<void> {
	await page.goto(`${url}signin`);
	await page.fill('#emailOrLdapLoginId', OWNER.email);
	await page.fill('#password', OWNER.password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL((address) => !address.pathname.includes('signin'));
}

/** Opens a workflow from the overview by its name, as a user would. */
export async function openWorkflowByName(page: Page, url: string, name: string): Promise<void> {
	await page.goto(`${url}home/workflows`);
	await page.getByText(name, { exact: true }).first().click();
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.waitForTimeout(SETTLE_MS);
}

/** Opens a workflow by its id. */
export async function openWorkflow(page: Page, url: string, id: string): Promise<void> {
	await page.goto(`${url}workflow/${id}`);
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.waitForTimeout(SETTLE_MS);
}

/** Opens a node's panel (NDV) from the canvas. */
export async function openNode(page: Page, nodeName: string): Promise<void> {
	await page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).dblclick();
	await page.waitForSelector('[data-test-id="ndv"] [data-test-id="node-parameters"]');
	await page.waitForTimeout(SETTLE_MS);
}

/** Closes the open node panel, back to the canvas. */
export async function closeNode(page: Page): Promise<void> {
	await page.click('[data-test-id="ndv-close-button"]');
	await page.waitForSelector('[data-test-id="ndv"] [data-test-id="node-parameters"]', { state: 'detached' });
}

/** Saves a PNG of the page into `dir` (created when missing) and returns its path. */
export async function shoot(page: Page, dir: string, file: string): Promise<string> {
	mkdirSync(dir, { recursive: true });
	const path = join(dir, file);
	await page.screenshot({ path });
	return path;
}

/** What the page shows, for a failure's log: its address and the start of its visible text. */
export async function describePage(page: Page, characters = 1_500): Promise<string> {
	const text = await page
		.locator('body')
		.innerText({ timeout: 5_000 })
		.catch((error: Error) => `(no text: ${error.message.split('\n')[0]})`);
	return `${page.url()}: ${JSON.stringify(text.replace(/\s+/g, ' ').slice(0, characters))}`;
}

/** A new workflow in the editor whose first node is a Manual Trigger, added as a user adds it. */
export async function newWorkflowWithManualTrigger(page: Page, url: string): Promise<void> {
	await page.goto(`${url}workflow/new`);
	await page.click('[data-test-id="canvas-add-button"]');
	await page.waitForSelector('[data-test-id="node-creator-search-bar"]');
	await page.keyboard.type('Manual Trigger');
	await page.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Trigger manually$/ }).first().click();
	await page.waitForSelector('[data-test-id="canvas-node"]');
	await page.waitForTimeout(SETTLE_MS);
}

/**
 * Opens the node panel from the last node's output plus, searches `search` and picks the node named
 * `nodeName`, leaving its list of actions open (the panel then shows `node-creator-item-name` entries).
 */
export async function openNodeActions(page: Page, search: string, nodeName: string): Promise<void> {
	await page.locator('[data-test-id="canvas-handle-plus"]').last().click();
	await page.waitForSelector('[data-test-id="node-creator-search-bar"]');
	await page.keyboard.type(search);
	await page.locator('[data-test-id="node-creator-item-name"]', { hasText: new RegExp(`^${nodeName}$`) }).first().click();
	await page.waitForTimeout(SETTLE_MS);
}

/** Picks an action from the open list of a node's actions; the new node's panel opens. */
export async function pickAction(page: Page, action: string): Promise<void> {
	await page.locator('[data-test-id="node-creator-item-name"]', { hasText: action }).first().click();
	await page.waitForSelector('[data-test-id="ndv"] [data-test-id="node-parameters"]');
	await page.waitForTimeout(SETTLE_MS);
}

/** Chooses `label` in the open panel's options parameter `name` (e.g. resource, operation). */
export async function chooseOption(page: Page, name: string, label: string): Promise<void> {
	await page.click(`[data-test-id="ndv"] [data-test-id="parameter-input-${name}"]`);
	// An option shows its name and, for operations, a description under it: match the name exactly.
	await page
		.locator('[data-test-id="parameter-input-item"]')
		.filter({ visible: true })
		.filter({ has: page.getByText(label, { exact: true }) })
		.first()
		.click();
	await page.waitForTimeout(SETTLE_MS);
}

/** Adds the field `label` of the open panel's collection (e.g. Update Fields → Webhook Flow). */
export async function addCollectionField(page: Page, label: string): Promise<void> {
	await page.locator('[data-test-id="ndv"] [data-test-id="collection-parameter-add"]').first().click();
	await page
		.locator('[data-test-id="collection-parameter-option"]', { hasText: new RegExp(`^${escapeRegExp(label)}$`) })
		.filter({ visible: true })
		.first()
		.click();
	await page.waitForTimeout(SETTLE_MS);
}

/** Fills a text parameter of the open panel. */
export async function fillParameter(page: Page, name: string, value: string): Promise<void> {
	await page.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${name}"] input`).first().fill(value);
}

/** Whether the open panel's boolean parameter is switched on. */
export async function isSwitchedOn(page: Page, name: string): Promise<boolean> {
	return await page.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${name}"] .el-switch`).evaluate((element) => element.classList.contains('is-checked'));
}

export async function toggleSwitch(page: Page, name: string): Promise<void> {
	await page.click(`[data-test-id="ndv"] [data-test-id="parameter-input-${name}"] .el-switch`);
	await page.waitForTimeout(SETTLE_MS / 2);
}

/** Runs the open panel's node ("Execute step") and waits for its output, in the Table view. */
export async function executeStep(page: Page): Promise<void> {
	const output = page.locator('[data-test-id="output-panel"]');
	const status = output.locator('[data-test-id="node-run-status-success"], [data-test-id="node-run-status-danger"]').first();
	const hadOutput = (await status.count()) > 0;
	const started = page.waitForResponse((response) => response.request().method() === 'POST' && /\/rest\/workflows\/[^/]+\/run$/.test(response.url()));
	await page.click('[data-test-id="ndv"] [data-test-id="node-execute-button"]');
	await started;
	// On a rerun the previous output stays until the new run's result arrives (pushed after the answer
	// above), when the panel clears it for a moment: wait for that, or a stale output would be read.
	if (hadOutput) await status.waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
	await status.waitFor();
	await output.locator('[data-test-id="radio-button-table"]').click();
	await page.waitForTimeout(SETTLE_MS);
}

/** The column headers of the output's Table view: the top-level fields of the items, in order. */
export async function outputFieldNames(page: Page): Promise<string[]> {
	const headers = await page.locator('[data-test-id="output-panel"] [data-test-id="ndv-data-container"] table thead th').allInnerTexts();
	return headers.map((header) => header.trim()).filter((header) => header !== '');
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
