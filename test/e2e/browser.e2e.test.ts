/**
 * The package in n8n 2.41.1's editor, in Debian's chromium (playwright-core), against the simulator:
 * adding the action node from the node panel, every operation's panel, Get Campaign run with Simplify on
 * and off, the webhook-flow list of Update Campaign, the trigger's panel, and the credential's Test
 * against a server that is not the service. Console errors of the editor fail the panel checks (requests
 * to outside hosts are blocked and listed apart). Screenshots go to test/e2e/.work/browser/.
 */
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import {
	addCollectionField,
	chooseOption,
	closeNode,
	ensureChromium,
	executeStep,
	fillParameter,
	isSwitchedOn,
	launchEditorBrowser,
	newWorkflowWithManualTrigger,
	openNode,
	openNodeActions,
	openWorkflow,
	outputFieldNames,
	pickAction,
	shoot,
	SETTLE_MS,
	signIn,
	toggleSwitch,
	type EditorBrowser,
} from './harness/browser.ts';
import { startN8n, type N8nInstance } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { CREDENTIAL_TYPE, campaignCallingTriggerNode, triggerWorkflow, TRIGGER_NODE_NAME } from './harness/workflows.ts';

const BROWSER_SHOTS_DIR = join(process.cwd(), 'test', 'e2e', '.work', 'browser');
const CREDENTIAL_NAME = 'Campaign Calling (simulator)';
/** The simulator's outbound webhook flows of the demo workspace, as the list names them. */
const OUTBOUND_FLOWS = ['Notify sales channel', 'Push call outcomes to CRM'];

/** Every operation, as the panel's Resource and Operation dropdowns name it, with a parameter only it shows. */
const OPERATIONS = [
	{ resource: 'Contact', operation: 'Add to Campaign', parameter: 'inputMode', file: 'contact-add-to-campaign', text: 'Each contact added may be called, and each call may be billed' },
	{ resource: 'Contact', operation: 'Get', parameter: 'contactId', file: 'contact-get' },
	{ resource: 'Campaign', operation: 'Get', parameter: 'simplify', file: 'campaign-get' },
	{ resource: 'Campaign', operation: 'Update', parameter: 'campaignId', file: 'campaign-update', text: 'Only the fields you add are sent' },
	{ resource: 'Webhook Flow', operation: 'Get Many', parameter: 'workspaceId', file: 'webhook-flow-get-many' },
	{ resource: 'Integration', operation: 'Create', parameter: 'integrationType', file: 'integration-create' },
	{ resource: 'Webhook Module', operation: 'Create', parameter: 'eventType', file: 'webhook-module-create' },
];

// The editor is checked in the 2.x line only; E2E_N8N_VERSIONS without it skips the suite, saying so.
describeEachVersion('the editor in chromium, n8n %s', () => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let browser: EditorBrowser;
	let credential: { id: string; name: string };
	const shots: string[] = [];
	const picture = async (file: string) => shots.push(await shoot(browser.page, BROWSER_SHOTS_DIR, file));

	beforeAll(async () => {
		await ensureChromium();
		simulator = await startSimulator({ host: '127.0.0.1', port: 0 });
		n8n = await startN8n({ version: '2.41.1', withPackage: true });
		credential = await n8n.api.createCredential(CREDENTIAL_NAME, CREDENTIAL_TYPE, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
		browser = await launchEditorBrowser();
		await signIn(browser.page, n8n.url);
		// The sign-in page's own check of the session (401 before signing in) is not the package's.
		browser.consoleErrors.length = 0;
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		await simulator?.close();
		if (browser?.blockedRequests.length) log(`browser test: outside requests blocked: ${[...new Set(browser.blockedRequests)].join(', ')}`);
		if (shots.length) log(`browser test: screenshots:\n  ${shots.join('\n  ')}`);
	});

	it('adds the action node from the node panel, its credential preselected', async () => {
		const { page } = browser;
		await newWorkflowWithManualTrigger(page, n8n.url);
		await openNodeActions(page, 'Campaign Calling', 'Campaign Calling');
		await picture('node-panel-actions.png');
		await pickAction(page, 'Get campaign');

		await expect(page.locator('[data-test-id="ndv"] [data-test-id="node-credentials-select"] input').inputValue()).resolves.toBe(CREDENTIAL_NAME);
		await picture('get-campaign-panel.png');
		expect(browser.consoleErrors).toEqual([]);
	});

	it("opens every operation's panel with no console errors", async () => {
		const { page } = browser;
		for (const each of OPERATIONS) {
			await chooseOption(page, 'resource', each.resource);
			await chooseOption(page, 'operation', each.operation);
			await page.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${each.parameter}"]`).first().waitFor();
			if (each.text) await page.locator('[data-test-id="ndv"]').getByText(each.text).first().waitFor();
			await picture(`operation-${each.file}.png`);
		}
		expect(browser.consoleErrors).toEqual([]);
	});

	it('executes Get Campaign with Simplify on (id and name first, at most 10 fields), then off (the full record)', async () => {
		const { page } = browser;
		await chooseOption(page, 'resource', 'Campaign');
		await chooseOption(page, 'operation', 'Get');
		await fillParameter(page, 'campaignId', DEMO.campaignId);
		// Simplify is on by default.
		expect(await isSwitchedOn(page, 'simplify')).toBe(true);

		await executeStep(page);
		const simplified = await outputFieldNames(page);
		await picture('get-campaign-simplified.png');
		expect(simplified.slice(0, 2)).toEqual(['id', 'name']);
		expect(simplified.length).toBeLessThanOrEqual(10);

		await toggleSwitch(page, 'simplify');
		expect(await isSwitchedOn(page, 'simplify')).toBe(false);
		await executeStep(page);
		const full = await outputFieldNames(page);
		await picture('get-campaign-full.png');
		expect(full.length).toBeGreaterThan(10);
		expect(full).toEqual(expect.arrayContaining([...simplified, 'contacts_list_source_metadata', 'webhook_mapping_variables']));
		expect(browser.consoleErrors).toEqual([]);
	});

	it("lists the simulator's webhook flows in Update Campaign → Webhook Flow, searchable by name", async () => {
		const { page } = browser;
		await chooseOption(page, 'resource', 'Campaign');
		await chooseOption(page, 'operation', 'Update');
		await addCollectionField(page, 'Webhook Flow');
		await page.locator('[data-test-id="ndv"] [data-test-id="resource-locator-webhookId"] [data-test-id="rlc-input"]').click();
		const items = page.locator('[data-test-id="rlc-item"]').filter({ visible: true });
		expect(await settledTexts(items, OUTBOUND_FLOWS)).toEqual(OUTBOUND_FLOWS);
		await picture('update-campaign-webhook-flow-list.png');

		// The search box has the focus; the list asks the node again with the filter.
		await page.keyboard.type('sales');
		expect(await settledTexts(items, ['Notify sales channel'])).toEqual(['Notify sales channel']);
		await picture('update-campaign-webhook-flow-search.png');
		await page.keyboard.press('Escape');
		expect(browser.consoleErrors).toEqual([]);
	});

	it("opens the trigger's panel: the notice about modules left at the service, and the event picker", async () => {
		const { page } = browser;
		await closeNode(page);
		const trigger = campaignCallingTriggerNode(['call.ended'], { id: credential.id, name: credential.name });
		const { id } = await n8n.api.createWorkflow(triggerWorkflow('Browser test: trigger', trigger));
		await openWorkflow(page, n8n.url, id);
		await openNode(page, TRIGGER_NODE_NAME);

		await expect(page.locator('[data-test-id="ndv"]').innerText()).resolves.toContain('Listen for test event');
		await expect(page.locator('[data-test-id="ndv"]').innerText()).resolves.toContain('Trigger On');
		await picture('trigger-panel.png');
		await page.click('[data-test-id="ndv"] [data-test-id="parameter-input-events"]');
		await page.getByText('Call: Started').first().waitFor();
		await page.waitForTimeout(SETTLE_MS);
		await picture('trigger-event-picker.png');
		await page.keyboard.press('Escape');
		expect(browser.consoleErrors).toEqual([]);
	});

	it("fails the credential's Test against a server that is not the service (n8n's own address), and passes it against the service", async () => {
		const { page } = browser;
		await page.goto(`${n8n.url}home/credentials/create`);
		await page.waitForSelector('[data-test-id="new-credential-type-select"]');
		await page.keyboard.type('Campaign Calling');
		await page.locator('[data-test-id="new-credential-type-select-option"]', { hasText: 'Campaign Calling API' }).first().click();
		await page.click('[data-test-id="new-credential-type-button"]');
		const modal = page.locator('[data-test-id="editCredential-modal"]');
		// Where the Base URL is typed, the dialog says what form it takes.
		await modal.getByText('Without /v1 at the end, for example https://api.example.com').waitFor();
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(n8n.url);
		await modal.locator('[data-test-id="parameter-input-apiKey"] input').fill(DEMO.apiKey);
		// Saving runs the Test.
		await modal.locator('[data-test-id="credential-save-button"]').click();

		await modal.getByText('Couldn’t connect with these settings').waitFor();
		expect(await modal.locator('[data-test-id="credentials-config-container-test-success"]').isVisible()).toBe(false);
		await modal.getByText('More details').click();
		const failure = modal.getByText(/^The Base URL answered GET \/v1\/webhooks/);
		await failure.waitFor();
		log(`browser test: the credential Test's message for n8n's own address: ${await failure.innerText()}`);
		await picture('credential-test-wrong-server.png');

		// Control: the same form with the service's address passes, so the failure above is about the server.
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(simulator.url);
		await modal.locator('[data-test-id="credential-save-button"]').click();
		await modal.locator('[data-test-id="credentials-config-container-test-success"]').waitFor();
		await picture('credential-test-service.png');
		expect(browser.consoleErrors).toEqual([]);
	});
}, ['2.41.1']);

/** The locator's texts, sorted, once they equal `expected` or after 15 s (whatever they are then). */
async function settledTexts(locator: Locator, expected: string[]): Promise<string[]> {
	const deadline = Date.now() + 15_000;
	let texts: string[] = [];
	do {
		texts = (await locator.allInnerTexts()).map((text) => text.trim()).sort();
		if (JSON.stringify(texts) === JSON.stringify([...expected].sort())) break;
		await new Promise((resolve) => setTimeout(resolve, 250));
	} while (Date.now() < deadline);
	return texts;
}
