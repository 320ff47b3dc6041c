/**
 * `npm run screenshots`: signs in to the editor with Debian's chromium (through playwright-core, with the
 * browser test's helpers in test/e2e/harness/browser.ts) and saves PNGs of the package's nodes into
 * docs/screenshots/, for the README. Uses a running `npm run demo` (N8N_PORT, default 5678) when there is
 * one (with SIMULATOR_URL, its simulator's address, for the trigger's output); otherwise starts its own
 * n8n and simulator with the examples, and stops them. Installs chromium
 * when it is missing and we are root (as the browser test does).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
	addCollectionField,
	chooseOption,
	ensureChromium,
	executeStep,
	fillParameter,
	launchEditorBrowser,
	newWorkflowWithManualTrigger,
	openNode,
	openNodeActions,
	openWorkflowByName,
	pickAction,
	SETTLE_MS,
	shoot,
	signIn,
} from '../test/e2e/harness/browser.ts';
import { BROWSER_ID, OWNER, startN8n } from '../test/e2e/harness/n8n.ts';
import type { N8nInstance } from '../test/e2e/harness/n8n.ts';
import { DEMO, startSimulator } from '../test/simulator/server.ts';
import type { Simulator } from '../test/simulator/server.ts';
import { EXAMPLES, HUMAN_REVIEW_EXAMPLE, installExamples, MCP_EXAMPLE, newWebhookSecret, readExample } from './examples.ts';

const OUT_DIR = join(process.cwd(), 'docs', 'screenshots');

const NEW_LEAD = readExample(EXAMPLES.newLead).name;
const CALL_ENDED = readExample(EXAMPLES.callEnded).name;
const CALL_THEN_ACT = readExample(EXAMPLES.callThenAct).name;
const MCP_TOOLS = readExample(MCP_EXAMPLE).name;
const HUMAN_REVIEW = readExample(HUMAN_REVIEW_EXAMPLE).name;

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

async function picture(page: Page, file: string): Promise<void> {
	process.stdout.write(`  ${await shoot(page, OUT_DIR, file)}\n`);
}

/**
 * A call.ended event received by the trigger: "Execute step" listens for a test event, the simulator
 * sends one to the modules that registered (its own shape: the service's interface shows none), and
 * the output shows the item in the JSON view.
 */
async function triggerOutput(page: Page, url: string, simulatorUrl: string): Promise<void> {
	await openWorkflowByName(page, url, CALL_ENDED);
	await openNode(page, 'Call Ended');
	const listening = page.waitForResponse((response) => response.request().method() === 'POST' && /\/rest\/workflows\/[^/]+\/run$/.test(response.url()));
	await page.click('[data-test-id="ndv"] [data-test-id="node-execute-button"]');
	await listening;
	const delivered = await fetch(`${simulatorUrl}/__sim/deliver`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ event_type: 'call.ended' }),
	});
	if (!delivered.ok) throw new Error(`The simulator did not deliver call.ended: HTTP ${delivered.status}`);
	const output = page.locator('[data-test-id="output-panel"]');
	await output.locator('[data-test-id="node-run-status-success"]').first().waitFor();
	await output.locator('[data-test-id="radio-button-json"]').click();
	await page.waitForTimeout(SETTLE_MS);
	await picture(page, 'trigger-output.png');
	await page.keyboard.press('Escape');
}

async function capture(url: string, simulatorUrl: string | undefined): Promise<void> {
	const browser = await launchEditorBrowser();
	const { page } = browser;
	// The editor's first load (its bundle compiled and cached by n8n) can take more than playwright's
	// 30 s on a busy machine; a picture is worth the wait.
	page.setDefaultTimeout(180_000);
	try {
		await signIn(page, url);

		// The node panel: searching "Campaign Calling" after a trigger, then the action node's operations.
		await openWorkflowByName(page, url, NEW_LEAD);
		await page.click('[data-test-id="node-creator-plus-button"]');
		await page.waitForSelector('[data-test-id="node-creator-search-bar"]');
		await page.keyboard.type('Campaign Calling');
		await page.waitForSelector('[data-test-id="node-creator-item-name"]');
		await page.waitForTimeout(SETTLE_MS);
		await picture(page, 'node-panel-search.png');
		await page.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Campaign Calling$/ }).first().click();
		await page.getByText('Add to campaign').first().waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await picture(page, 'node-panel-actions.png');
		await page.keyboard.press('Escape');

		// A filled-in Add to Campaign step, under its notice that added contacts may be called and billed.
		await openWorkflowByName(page, url, NEW_LEAD);
		await openNode(page, 'Add to Campaign');
		await picture(page, 'add-contacts-step.png');

		// The credential dialog as a new user first sees it: Base URL with its hint, API Key.
		await page.goto(`${url}home/credentials/create`);
		await page.waitForSelector('[data-test-id="new-credential-type-select"]');
		await page.keyboard.type('Campaign Calling');
		await page.locator('[data-test-id="new-credential-type-select-option"]', { hasText: 'Campaign Calling API' }).first().click();
		await page.click('[data-test-id="new-credential-type-button"]');
		await page.locator('[data-test-id="editCredential-modal"] [data-test-id="parameter-input-baseUrl"]').waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await picture(page, 'credential-dialog.png');
		await page.keyboard.press('Escape');

		// Call, then act on the outcome: the example's canvas.
		await openWorkflowByName(page, url, CALL_THEN_ACT);
		await picture(page, 'call-then-act-on-outcome.png');

		// The trigger's event picker, opened.
		await openWorkflowByName(page, url, CALL_ENDED);
		await openNode(page, 'Call Ended');
		await page.click('[data-test-id="parameter-input-events"]');
		await page.getByText('Call: Started').first().waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await picture(page, 'trigger-event-picker.png');
		await page.keyboard.press('Escape');

		if (simulatorUrl) await triggerOutput(page, url, simulatorUrl);
		else process.stdout.write('  trigger-output.png left as it is: set SIMULATOR_URL to the running demo\'s simulator address\n');

		// The MCP example: three tools behind the MCP Server Trigger, and the human review step on an agent's tool.
		await openWorkflowByName(page, url, MCP_TOOLS);
		await picture(page, 'mcp-campaign-tools.png');
		await openWorkflowByName(page, url, HUMAN_REVIEW);
		await picture(page, 'agent-human-review.png');
		await openNode(page, 'Human Review');
		await picture(page, 'agent-human-review-step.png');

		// A new Get Campaign step run with Simplify (on for new nodes), then Update Campaign's webhook-flow list.
		await newWorkflowWithManualTrigger(page, url);
		await openNodeActions(page, 'Campaign Calling', 'Campaign Calling');
		await pickAction(page, 'Get campaign');
		await fillParameter(page, 'campaignId', DEMO.campaignId);
		await executeStep(page);
		await picture(page, 'get-campaign-simplified.png');
		await chooseOption(page, 'operation', 'Update');
		await addCollectionField(page, 'Webhook Flow');
		await page.locator('[data-test-id="ndv"] [data-test-id="resource-locator-webhookId"] [data-test-id="rlc-input"]').click();
		await page.locator('[data-test-id="rlc-item"]').filter({ visible: true }).first().waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await picture(page, 'update-campaign-webhook-flow-list.png');
	} finally {
		await browser.close();
	}
}

async function main(): Promise<void> {
	await ensureChromium();
	let url = await runningDemo();
	let simulatorUrl = process.env.SIMULATOR_URL;
	let own: { n8n?: N8nInstance; simulator?: Simulator } | undefined;
	if (url) {
		process.stdout.write(`Using the running demo at ${url}\n`);
	} else {
		process.stdout.write('No demo running: starting an n8n of its own (run `npm run build` first)\n');
		own = {};
		own.simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
		own.n8n = await startN8n({ version: '2.41.1', withPackage: true, readyTimeoutMs: 600_000 });
		await installExamples(own.n8n, own.simulator.url, newWebhookSecret());
		url = own.n8n.url;
		simulatorUrl = own.simulator.url;
	}
	try {
		process.stdout.write(`Screenshots in ${OUT_DIR}:\n`);
		await capture(url, simulatorUrl);
	} finally {
		await own?.n8n?.stop();
		await own?.simulator?.close();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`Screenshots failed: ${(error as Error).stack ?? error}\n`);
	process.exitCode = 1;
});
