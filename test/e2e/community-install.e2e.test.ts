/**
 * The package the way users get it: published with `npm publish` to a registry (a local verdaccio), then
 * installed, updated, uninstalled and reinstalled by n8n's own Community Nodes installer, through the REST
 * endpoints behind Settings → Community Nodes, with workflows saved and a trigger active throughout.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import {
	communityInstallEnv,
	communityPackages,
	enableCustomRegistry,
	nodeTypeNames,
	npmCommandsInLog,
	npmCommandsInNpmLogs,
	sessionCall,
	readNodesFolder,
	waitForNodeTypes,
	type CommunityPackage,
} from './harness/community.ts';
import { SECRET_HEADER, registeredSecret, sendDelivery, triggerUrl } from './harness/deliveries.ts';
import { describePage, launchEditorBrowser, openWorkflow, shoot, SETTLE_MS, signIn } from './harness/browser.ts';
import { log } from './harness/process.ts';
import { type Execution, type N8nInstance, nodeOutput, simulatorCredential, startN8n } from './harness/n8n.ts';
import { packTarball } from './harness/package.ts';
import { nextPatch, startRegistry, type LocalRegistry } from './harness/registry.ts';
import { describeEachVersion } from './harness/runtime.ts';
import {
	ACTION_NODE_TYPE,
	PACKAGE_NAME,
	TRIGGER_NODE_NAME,
	TRIGGER_NODE_TYPE,
	campaignCallingNode,
	campaignCallingTriggerNode,
	triggerWorkflow,
	webhookDriven,
	type CredentialRef,
	type WorkflowNode,
} from './harness/workflows.ts';

const CURRENT_VERSION = (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string }).version;
const NEXT_VERSION = nextPatch(CURRENT_VERSION);
const UNRECOGNIZED = /Unrecognized node type/i;
const ACTION_PATH = 'community-install-action';
const SHOTS_DIR = join(process.cwd(), 'test', 'e2e', '.work', 'community-install');

let registry: LocalRegistry;
/** The files `npm pack` puts in the tarball: all that may land in n8n's nodes folder. */
let packedFiles: string[];
let packedUnpackedBytes: number;

beforeAll(async () => {
	registry = await startRegistry();
	const published = await registry.publishWithLaterVersions(process.cwd(), [NEXT_VERSION]);
	expect(published.map((each) => each.version)).toEqual([CURRENT_VERSION, NEXT_VERSION]);
	const packDir = mkdtempSync(join(tmpdir(), 'campaign-calling-pack-'));
	try {
		packedFiles = packTarball(process.cwd(), packDir).files.sort();
	} finally {
		rmSync(packDir, { recursive: true, force: true });
	}
	packedUnpackedBytes = Number(/unpacked size:\s+([\d.]+)\s*kB/i.exec(published[0].output)?.[1] ?? NaN) * 1000;
});

afterAll(async () => {
	await registry?.stop();
});

describeEachVersion('Settings → Community Nodes in n8n %s, from a local registry', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let credential: CredentialRef;
	let packages: ReturnType<typeof communityPackages>;
	let actionWorkflowId: string;
	let triggerWorkflowId: string;
	let trigger: WorkflowNode;
	/** The action workflow's answer before the update: the reference for every later run. */
	let referenceOutput: unknown;
	let secretBeforeUpdate: string;
	let moduleIdsBeforeUpdate: string[];
	/** The package's node types the editor listed after the install (the two nodes and the action node's AI tool variant). */
	let packageTypes: string[];
	let npmLogsDir: string;
	const npmLogsRead = new Set<string>();

	beforeAll(async () => {
		simulator = await startSimulator();
		npmLogsDir = mkdtempSync(join(tmpdir(), 'campaign-calling-npm-logs-'));
		// The machine the suite shares may be busy: n8n's first start (migrations) then takes minutes.
		n8n = await startN8n({ version, extraEnv: communityInstallEnv(registry.url, npmLogsDir), readyTimeoutMs: 600_000 });
		await enableCustomRegistry(n8n);
		packages = communityPackages(n8n);
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (npmLogsDir) rmSync(npmLogsDir, { recursive: true, force: true });
	});

	/** The npm commands n8n ran since the log offset: from its own log (2.x), else from npm's debug logs (1.x). */
	const npmCommandsSince = (logMark: number) => {
		const fromNpm = npmCommandsInNpmLogs(npmLogsDir, npmLogsRead);
		const fromN8n = npmCommandsInLog(n8n.logs(), logMark);
		return fromN8n.length > 0 ? { source: "n8n's debug log", commands: fromN8n } : { source: "npm's debug logs of the commands n8n ran", commands: fromNpm };
	};
	const describeCommands = ({ source, commands }: { source: string; commands: string[] }) => `(${source}):\n  ${commands.join('\n  ')}`;

	const modules = () => [...simulator.state.webhookModules.values()].map((owned) => owned.record);
	const listedPackageTypes = async () => [...(await nodeTypeNames(n8n))].filter((name) => name.startsWith(`${PACKAGE_NAME}.`)).sort();
	const moduleCreations = () => simulator.requests.filter((request) => request.method === 'POST' && request.path.startsWith('/v1/modules/'));

	/** The saved action workflow, called through its Webhook: Get Campaign. */
	async function runAction(): Promise<{ status: number; body: unknown }> {
		return await n8n.api.callWebhook(ACTION_PATH, {});
	}

	/** A delivery the way the service sends it: the headers the registered module carries. */
	async function deliverAsModule(eventId: string) {
		const module = modules().find((each) => each.event_type === 'call.ended');
		if (!module) throw new Error('No module is registered for call.ended');
		return await sendDelivery(triggerUrl(n8n, trigger), {
			headers: [['content-type', 'application/json'], ...Object.entries(module.settings.headers as Record<string, string>)],
			body: JSON.stringify({ event_type: 'call.ended', event_id: eventId, data: { contact_id: DEMO.completedContactId } }),
		});
	}

	async function savedNodeVersions(workflowId: string): Promise<Record<string, number>> {
		const response = await sessionCall<{ data: { nodes: Array<{ name: string; typeVersion: number }> } }>(n8n, 'GET', `rest/workflows/${workflowId}`);
		return Object.fromEntries(response.body.data.nodes.map((node) => [node.name, node.typeVersion]));
	}

	it(`install: ${PACKAGE_NAME}@${CURRENT_VERSION} by name and version, no restart, nodes in the editor; only the package on disk`, async () => {
		const logMark = n8n.logs().length;
		const installed = await packages.install(PACKAGE_NAME, CURRENT_VERSION);
		expect(installed.status).toBe(200);
		const appearedMs = await waitForNodeTypes(n8n, [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE], true);
		expect(installed.body.data).toEqual(
			expect.objectContaining({
				packageName: PACKAGE_NAME,
				installedVersion: CURRENT_VERSION,
				// Each node's newest version, a whole number as n8n 1.x's integer column takes it.
				installedNodes: expect.arrayContaining([
					expect.objectContaining({ type: ACTION_NODE_TYPE, latestVersion: 1 }),
					expect.objectContaining({ type: TRIGGER_NODE_TYPE, latestVersion: 2 }),
				]),
			}),
		);
		packageTypes = await listedPackageTypes();
		log(`n8n ${version}: the editor lists ${packageTypes.join(', ')}`);
		const commands = npmCommandsSince(logMark);
		log(`n8n ${version}: install answered in ${installed.ms} ms, node types listed ${appearedMs} ms later; npm commands n8n ran ${describeCommands(commands)}`);
		expect(commands.commands).toEqual([
			// npm's own log writes `--name value` where n8n passed `--name=value`.
			expect.stringMatching(new RegExp(`^npm pack ${PACKAGE_NAME}@${CURRENT_VERSION} .*--registry[ =]${registry.url.slice(0, -1)}`)),
			expect.stringMatching(/^npm install .*--install-strategy[ =]shallow .*--ignore-scripts[ =]true .*--package-lock[ =]false/),
		]);

		const folder = readNodesFolder(n8n.userFolder, PACKAGE_NAME);
		log(`n8n ${version}: nodes folder ${JSON.stringify(folder.entries)}, node_modules ${JSON.stringify(folder.modules)}, ${folder.packageFiles.length} files, ${folder.packageBytes} bytes (${(folder.packageBytes / 1024).toFixed(1)} KiB)`);
		// Only the package: no dependency of its own, no copy of n8n-workflow, nothing npm pack would not ship.
		expect(folder.modules).toEqual([PACKAGE_NAME]);
		expect(folder.packageFiles).toEqual(packedFiles);
		expect(folder.manifest).not.toHaveProperty('devDependencies');
		expect(folder.manifest).not.toHaveProperty('peerDependencies');
		expect(folder.manifest).not.toHaveProperty('optionalDependencies');
		expect(folder.manifest).not.toHaveProperty('dependencies');
		expect(folder.packageBytes).toBeLessThanOrEqual(packedUnpackedBytes);
		expect(folder.ledger?.dependencies).toEqual({ [PACKAGE_NAME]: CURRENT_VERSION });

		credential = await simulatorCredential(n8n.api, simulator.url);
		const getCampaign = campaignCallingNode('Get Campaign', { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId }, credential);
		const action = await n8n.api.createWorkflow(webhookDriven(ACTION_PATH, [getCampaign]));
		actionWorkflowId = action.id;
		await n8n.api.activate(actionWorkflowId);
		const reply = await runAction();
		expect(reply.status).toBe(200);
		referenceOutput = reply.body;
		expect(referenceOutput).toEqual([expect.objectContaining({ id: DEMO.campaignId })]);

		trigger = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: true, repeatKey: 'event_id' });
		const triggerFlow = await n8n.api.createWorkflow(triggerWorkflow('community install: trigger', trigger));
		triggerWorkflowId = triggerFlow.id;
		await n8n.api.activate(triggerWorkflowId);
		expect(moduleCreations()).toHaveLength(1);
		secretBeforeUpdate = registeredSecret(simulator, triggerUrl(n8n, trigger));
		moduleIdsBeforeUpdate = modules().map((module) => String(module.id));
		expect((await deliverAsModule('before-update')).status).toBe(200);
		await n8n.api.waitForExecutions(triggerWorkflowId, 1);
	});

	it(`update: to ${NEXT_VERSION} through the Update call; saved workflows keep versions and output, the active trigger keeps its module and secret`, async () => {
		const list = await packages.list();
		// From a registry other than npmjs no update is offered: n8n runs `npm outdated` without --registry.
		log(`n8n ${version}: before the update the screen lists ${JSON.stringify(list.map((each) => ({ installedVersion: each.installedVersion, updateAvailable: each.updateAvailable ?? null })))}`);
		const versionsBefore = { action: await savedNodeVersions(actionWorkflowId), trigger: await savedNodeVersions(triggerWorkflowId) };
		const creationsBefore = moduleCreations().length;
		const logMark = n8n.logs().length;

		const updated = await packages.update(PACKAGE_NAME, NEXT_VERSION);
		expect(updated.status).toBe(200);
		expect(updated.body.data.installedVersion).toBe(NEXT_VERSION);
		await waitForNodeTypes(n8n, [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE], true);
		const commands = npmCommandsSince(logMark);
		log(`n8n ${version}: update answered in ${updated.ms} ms; npm commands ${describeCommands(commands)}`);
		expect(commands.commands[0]).toMatch(new RegExp(`^npm pack ${PACKAGE_NAME}@${NEXT_VERSION} `));
		expect((await packages.list()).map((each: CommunityPackage) => each.installedVersion)).toEqual([NEXT_VERSION]);
		expect(readNodesFolder(n8n.userFolder, PACKAGE_NAME).ledger?.dependencies).toEqual({ [PACKAGE_NAME]: NEXT_VERSION });
		expect(readNodesFolder(n8n.userFolder, PACKAGE_NAME).modules).toEqual([PACKAGE_NAME]);

		expect({ action: await savedNodeVersions(actionWorkflowId), trigger: await savedNodeVersions(triggerWorkflowId) }).toEqual(versionsBefore);
		const reply = await runAction();
		expect([reply.status, reply.body]).toEqual([200, referenceOutput]);

		// The trigger stays registered: nothing created at the service, the same modules, the same secret.
		expect(moduleCreations()).toHaveLength(creationsBefore);
		expect(modules().map((module) => String(module.id))).toEqual(moduleIdsBeforeUpdate);
		expect(registeredSecret(simulator, triggerUrl(n8n, trigger))).toBe(secretBeforeUpdate);
		const delivered = await deliverAsModule('after-update');
		expect(delivered.status).toBe(200);
		const executions = await n8n.api.waitForExecutions(triggerWorkflowId, 2);
		expect(executions.map((execution) => [execution.status, nodeOutput(execution, TRIGGER_NODE_NAME)[0].event_id])).toEqual([
			['success', 'before-update'],
			['success', 'after-update'],
		]);
		// A forged delivery is still refused after the update.
		const forged = await sendDelivery(triggerUrl(n8n, trigger), {
			headers: [['content-type', 'application/json'], [SECRET_HEADER, 'forged']],
			body: JSON.stringify({ event_type: 'call.ended', event_id: 'forged' }),
		});
		expect(forged.status).toBe(401);

		expect(await listedPackageTypes()).toEqual(packageTypes);
		expect(n8n.logs()).not.toMatch(UNRECOGNIZED);
	});

	it('uninstall: the node types go, saved workflows keep their nodes and show them missing; the service keeps its modules', async () => {
		const logMark = n8n.logs().length;
		const removed = await packages.uninstall(PACKAGE_NAME);
		expect(removed.status).toBe(200);
		await waitForNodeTypes(n8n, [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE], false);
		log(`n8n ${version}: uninstall answered in ${removed.ms} ms; npm commands ${describeCommands(npmCommandsSince(logMark))}`);
		expect(await packages.list()).toEqual([]);
		const folder = readNodesFolder(n8n.userFolder, PACKAGE_NAME);
		expect(folder.modules).toEqual([]);
		// 2.x takes the package off its ledger (<nodes>/package.json); 1.x deletes the folder and leaves the ledger's line.
		expect(folder.ledger?.dependencies ?? {}).toEqual(version === '1.123.81' ? { [PACKAGE_NAME]: NEXT_VERSION } : {});

		// The saved workflows still hold the nodes at their versions; the editor finds no type for them.
		expect(await savedNodeVersions(actionWorkflowId)).toEqual({ Webhook: 2, 'Get Campaign': 1 });
		expect(await savedNodeVersions(triggerWorkflowId)).toEqual({ [TRIGGER_NODE_NAME]: 2 });
		expect(await listedPackageTypes()).toEqual([]);

		const creationsBefore = moduleCreations().length;
		const reply = await runAction();
		const delivered = await deliverAsModule('while-uninstalled');
		log(`n8n ${version}: while uninstalled, the action workflow's webhook answers ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}; a delivery answers ${delivered.status} ${delivered.text.slice(0, 300)}`);
		const failures = (await n8n.api.listExecutions(actionWorkflowId, true)).filter((execution: Execution) => execution.status !== 'success');
		log(`n8n ${version}: failed executions of the action workflow while uninstalled: ${JSON.stringify(failures.map((each) => each.data?.resultData.error?.message ?? each.status))}`);
		expect(reply.status).not.toBe(200);
		// Uninstalling does not deactivate the workflow, so the trigger's delete never runs: the modules stay.
		expect(moduleCreations()).toHaveLength(creationsBefore);
		expect(modules().map((module) => String(module.id))).toEqual(moduleIdsBeforeUpdate);
	});

	it('reinstall: the same saved workflows work again, with the same output, module and secret', async () => {
		const creationsBefore = moduleCreations().length;
		const logMark = n8n.logs().length;
		const reinstalled = await packages.install(PACKAGE_NAME, NEXT_VERSION);
		expect(reinstalled.status).toBe(200);
		await waitForNodeTypes(n8n, [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE], true);
		expect(await listedPackageTypes()).toEqual(packageTypes);
		log(`n8n ${version}: reinstall answered in ${reinstalled.ms} ms; npm commands ${describeCommands(npmCommandsSince(logMark))}`);
		expect(readNodesFolder(n8n.userFolder, PACKAGE_NAME).modules).toEqual([PACKAGE_NAME]);

		const reply = await runAction();
		expect([reply.status, reply.body]).toEqual([200, referenceOutput]);
		const before = (await n8n.api.listExecutions(triggerWorkflowId)).length;
		const delivered = await deliverAsModule('after-reinstall');
		log(`n8n ${version}: after the reinstall a delivery answers ${delivered.status} ${delivered.text.slice(0, 200)}`);
		expect(delivered.status).toBe(200);
		const executions = await n8n.api.waitForExecutions(triggerWorkflowId, before + 1);
		expect(nodeOutput(executions[executions.length - 1], TRIGGER_NODE_NAME)[0].event_id).toBe('after-reinstall');
		expect(moduleCreations()).toHaveLength(creationsBefore);
		expect(registeredSecret(simulator, triggerUrl(n8n, trigger))).toBe(secretBeforeUpdate);
	});

	// The screen itself is checked in the 2.x line, in chromium, as the browser suite does.
	(version === '2.41.1' ? it : it.skip)('the screen in chromium: missing nodes shown, the node panel searched, installed by name, confirmed', async () => {
		expect((await packages.uninstall(PACKAGE_NAME)).status).toBe(200);
		await waitForNodeTypes(n8n, [ACTION_NODE_TYPE, TRIGGER_NODE_TYPE], false);
		const browser = await launchEditorBrowser();
		try {
			const { page } = browser;
			// On a machine the suite shares, the editor's first load can take well over playwright's 30 s.
			page.setDefaultTimeout(180_000);
			page.setDefaultNavigationTimeout(180_000);
			await signIn(page, n8n.url);

			// A saved workflow whose package is gone: n8n marks each such node "Install the package to use this node".
			await openWorkflow(page, n8n.url, actionWorkflowId);
			const missing = page.locator('[data-test-id="node-not-installed"]');
			await missing.first().waitFor();
			expect(await missing.count()).toBe(1);
			await shoot(page, SHOTS_DIR, '1-workflow-with-package-missing.png');

			// The node panel's search: offline, n8n's catalogue of community nodes is not there to suggest the package.
			// It has answered once it lists the node, or says it has no results for the whole query.
			const searchNodes = async () => {
				await page.goto(`${n8n.url}workflow/new`);
				await page.click('[data-test-id="canvas-add-button"]');
				await page.waitForSelector('[data-test-id="node-creator-search-bar"]');
				await page.keyboard.type('Campaign Calling');
				const noResults = page.locator('[data-test-id="node-creator-no-results"]', { hasText: 'Campaign Calling' });
				const listed = page.locator('[data-test-id="node-creator-item-name"]', { hasText: /Campaign Calling/ });
				await noResults.or(listed).first().waitFor();
				return { names: await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts(), noResults: await noResults.isVisible() };
			};
			const beforeInstall = await searchNodes();
			log(`n8n ${version}: the node panel's search for "Campaign Calling" before the install lists ${JSON.stringify(beforeInstall.names)}`);
			await shoot(page, SHOTS_DIR, '2-node-panel-search-before-install.png');
			expect(beforeInstall).toEqual({ names: [], noResults: true });

			// Settings → Community nodes → Install: the package's name (the version after @), the risk box, Install.
			await page.goto(`${n8n.url}settings/community-nodes`);
			const installButton = page.getByRole('button', { name: 'Install a community node' });
			if (!(await installButton.waitFor({ timeout: 60_000 }).then(() => true, () => false))) {
				// Seen once in CI on a loaded machine: the screen never offered its install. Its state goes to the log, then it loads once more.
				log(`n8n ${version}: Settings → Community Nodes offered no install within 60 s; it showed ${await describePage(page)}; n8n lists ${JSON.stringify(await packages.list())}`);
				await shoot(page, SHOTS_DIR, '3-community-nodes-without-install.png');
				await page.reload();
			}
			await installButton.click();
			await page.locator('[data-test-id="package-name-input"] input, input[data-test-id="package-name-input"]').first().fill(`${PACKAGE_NAME}@${NEXT_VERSION}`);
			await page.locator('[data-test-id="user-agreement-checkbox"]').click();
			await shoot(page, SHOTS_DIR, '3-install-dialog.png');
			const installedByScreen = page.waitForResponse((response) => response.request().method() === 'POST' && /\/rest\/community-packages$/.test(response.url()), { timeout: 180_000 });
			await page.click('[data-test-id="install-community-package-button"]');
			const answer = await installedByScreen;
			expect(answer.status()).toBe(200);
			const card = page.locator('[data-test-id="community-package-card"]', { hasText: PACKAGE_NAME });
			await card.waitFor({ timeout: 60_000 });
			await page.waitForTimeout(SETTLE_MS);
			await shoot(page, SHOTS_DIR, '4-installed-package-card.png');
			log(`n8n ${version}: the screen's card reads ${JSON.stringify((await card.innerText()).replace(/\s+/g, ' '))}`);

			// Confirmed: the node panel finds the nodes, and the saved workflow's nodes are no longer marked missing.
			const afterInstall = await searchNodes();
			log(`n8n ${version}: the node panel's search for "Campaign Calling" after the install lists ${JSON.stringify(afterInstall.names)}`);
			await shoot(page, SHOTS_DIR, '5-node-panel-search-after-install.png');
			expect(afterInstall).toEqual({ names: expect.arrayContaining(['Campaign Calling']), noResults: false });
			await openWorkflow(page, n8n.url, actionWorkflowId);
			expect(await page.locator('[data-test-id="node-not-installed"]').count()).toBe(0);
			const reply = await runAction();
			expect([reply.status, reply.body]).toEqual([200, referenceOutput]);
			expect(browser.consoleErrors.filter((error) => UNRECOGNIZED.test(error))).toEqual([]);
		} catch (error) {
			log(`n8n ${version}: the screen test failed on ${await describePage(browser.page)}`);
			throw error;
		} finally {
			await browser.close();
		}
	});
});
