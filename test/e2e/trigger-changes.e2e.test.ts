/**
 * The trigger after the user changed what its modules were registered for (issue 49), in real n8n, counted
 * at the simulator, which outlives n8n as the service does:
 * - point 1, the account: the trigger given another company's credential, and its credential edited to
 *   another company's key, each followed by an unpublish and a publish; and which of those changes make n8n
 *   run the trigger's hooks (checkExists, create, delete) while the workflow stays published;
 * - point 2, n8n's webhook URL changed across a restart (1.x runs the trigger's hooks at start-up, 2.x does
 *   not until the workflow is published again);
 * - point 3, Timeout changed while the service retries an event through the old module;
 * - point 5, the trigger node renamed, then n8n restarted.
 * Each case logs its counts (modules per company or URL, answers, executions, events run) and the lines the
 * trigger wrote to n8n's log.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { DOWNSTREAM, untilServed } from './harness/deliveries.ts';
import {
	type HeldModule,
	deliverThrough,
	editCredential,
	eventThrough,
	heldModules,
	logLineWith,
	perCompany,
	publicationSettled,
	runsOf,
	triggerLogLines,
} from './harness/modules.ts';
import { createUserFolder, simulatorCredential, startN8n, type N8nInstance } from './harness/n8n.ts';
import { freePort, log } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { sharedN8n } from './harness/shared.ts';
import {
	CREDENTIAL_TYPE,
	TRIGGER_NODE_NAME,
	campaignCallingTriggerNode,
	setNode,
	triggerWorkflow,
	type CredentialRef,
	type WorkflowJson,
	type WorkflowNode,
} from './harness/workflows.ts';

/** n8n's start on a loaded machine can take minutes. */
const READY_TIMEOUT_MS = 300_000;

/** A credential for the simulator at company A (DEMO.apiKey) or B (DEMO.otherApiKey). */
async function companyCredential(n8n: N8nInstance, simulator: Simulator, company: 'A' | 'B', name: string): Promise<CredentialRef> {
	if (company === 'A') return await simulatorCredential(n8n.api, simulator.url, name);
	const created = await n8n.api.createCredential(name, CREDENTIAL_TYPE, { baseUrl: `${simulator.url}/`, apiKey: DEMO.otherApiKey });
	return { id: created.id, name: created.name };
}

/** The same workflow with the trigger's credential replaced. */
function withCredential(definition: WorkflowJson, nodeName: string, credential: CredentialRef): WorkflowJson {
	return {
		...definition,
		nodes: definition.nodes.map((node) => (node.name === nodeName ? { ...node, credentials: { [CREDENTIAL_TYPE]: credential } } : node)),
	};
}

/** A production URL of the trigger on n8n's port, under the given webhook base. */
const productionUrl = (base: string, trigger: WorkflowNode) => `${base}webhook/${trigger.webhookId}/webhook`;

const quoted = (lines: string[]) => (lines.length === 0 ? '(none)' : lines.map((line) => `\n    ${line.trim()}`).join(''));

describeEachVersion('the trigger after its account changed, in n8n %s (issue 49, point 1)', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	const workflowIds: string[] = [];

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await sharedN8n(version);
	});

	afterAll(async () => {
		for (const id of workflowIds) await n8n?.api.deleteWorkflow(id).catch(() => undefined);
		await simulator?.close();
	});

	async function publishedTrigger(label: string, credential: CredentialRef) {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential);
		const definition = triggerWorkflow(`${label} ${version}`, trigger);
		const { id } = await n8n.api.createWorkflow(definition);
		workflowIds.push(id);
		await n8n.api.activate(id);
		const url = productionUrl(n8n.webhookUrl, trigger);
		expect(perCompany(heldModules(simulator, url))).toEqual({ A: 1 });
		return { id, definition, url };
	}

	/** The delete hook's info line (reportModulesKept): it runs when n8n takes the trigger down, before it sets it up again. */
	const deleteHookRuns = () => triggerLogLines(n8n).filter((line) => line.includes('remain registered at the service')).length;
	const deleteHooksSince = (before: number) => deleteHookRuns() - before;

	/**
	 * After the switch to company B and a publish: one event through A's old module and one through B's
	 * (each with its own marker, one attempt each, with the module's own headers), and what ran.
	 */
	async function afterSwitch(label: string, workflowId: string, url: string, since: number) {
		const modules = heldModules(simulator, url);
		const moduleA = modules.find((module) => module.company === 'A') as HeldModule;
		const moduleB = modules.find((module) => module.company === 'B');
		const markerA = `${label}-through-A-${randomUUID()}`;
		const markerB = `${label}-through-B-${randomUUID()}`;
		const throughA = (await deliverThrough(moduleA, eventThrough(moduleA, markerA))).status;
		const throughB = moduleB ? (await deliverThrough(moduleB, eventThrough(moduleB, markerB))).status : 'no module at B';
		const { executions, runs } = await runsOf(n8n, workflowId, moduleB ? [moduleB, moduleA] : [moduleA], [markerA, markerB]);
		// Inside A's module's retry window (3 minutes at the defaults) its deliveries still run: nothing refused yet.
		const refusal = await logLineWith(n8n, since, `refused a delivery through webhook module ${moduleA.id}`, 1_000);
		const registration = moduleB ? await logLineWith(n8n, since, `registered webhook module ${moduleB.id}`) : undefined;
		const observed = {
			modules: perCompany(modules),
			throughA,
			throughB,
			runs: { throughA: runs[markerA], throughB: runs[markerB] },
			refusal,
			registration,
		};
		log(
			`n8n ${version}, account switch ${label}: modules per company at the trigger's URL ${JSON.stringify(observed.modules)}; ` +
				`delivery through A's module ${moduleA.id}: ${throughA}, through B's module ${moduleB?.id ?? '(none)'}: ${throughB}; ` +
				`events run: through A ${observed.runs.throughA}, through B ${observed.runs.throughB} (executions of the workflow ${executions}); ` +
				`the trigger's log lines since the switch: ${quoted(triggerLogLines(n8n, since))}`,
		);
		const expected = {
			modules: { A: 1, B: 1 },
			throughA: 200,
			throughB: 200,
			runs: { throughA: 1, throughB: 1 },
			refusal: undefined,
			registration: expect.stringContaining(`registered webhook module ${moduleB?.id} for call.ended delivering to ${moduleB?.url} (Timeout 30 s, Retry Limit 3); earlier module(s) for this event: ${moduleA.id}`),
		};
		return { observed, expected };
	}

	it("(a) the trigger given company B's credential, then unpublished and published: a module registered at B; a delivery through A's old module inside its retry window runs once (issue 61), one through B's module runs once; n8n's log names both modules", async () => {
		const credentialA = await companyCredential(n8n, simulator, 'A', `switch (a) company A ${version}`);
		const credentialB = await companyCredential(n8n, simulator, 'B', `switch (a) company B ${version}`);
		const { id, definition, url } = await publishedTrigger('account switch (a)', credentialA);
		const since = n8n.logs().length;

		await n8n.api.deactivate(id);
		expect((await n8n.api.publicApi('PUT', `/workflows/${id}`, withCredential(definition, TRIGGER_NODE_NAME, credentialB))).status).toBe(200);
		await n8n.api.activate(id);

		const { observed, expected } = await afterSwitch('(a) another credential', id, url, since);
		expect(observed).toEqual(expected);
	});

	it("(b) the trigger's credential edited to company B's key, then unpublished and published: a module registered at B; a delivery through A's old module inside its retry window runs once (issue 61), one through B's module runs once; n8n's log names both modules", async () => {
		const credential = await companyCredential(n8n, simulator, 'A', `switch (b) edited ${version}`);
		const { id, url } = await publishedTrigger('account switch (b)', credential);
		const since = n8n.logs().length;

		await n8n.api.deactivate(id);
		await editCredential(n8n, credential, { baseUrl: `${simulator.url}/`, apiKey: DEMO.otherApiKey });
		await n8n.api.activate(id);

		const { observed, expected } = await afterSwitch('(b) the same credential edited', id, url, since);
		expect(observed).toEqual(expected);
	});

	it("while the workflow stays published: a credential edited to company B's key runs none of the trigger's hooks (nothing registered, no delete) and its module's deliveries still run (issue 61); publishing it again unchanged runs none either; the workflow saved with company B's credential runs them (delete, then checkExists and create: a module at B)", async () => {
		// The credential edited alone: n8n neither republishes nor reactivates anything.
		const edited = await companyCredential(n8n, simulator, 'A', `hooks: edited ${version}`);
		const first = await publishedTrigger('hooks: credential edited while published', edited);
		const deletesBeforeEdit = deleteHookRuns();
		await editCredential(n8n, edited, { baseUrl: `${simulator.url}/`, apiKey: DEMO.otherApiKey });
		const publicationAfterEdit = await publicationSettled(n8n, first.id);
		const [moduleA] = heldModules(simulator, first.url);
		// Answered and run: a module's own secret authenticates its deliveries whatever the credential says now (issue 61).
		const deliveryAfterEdit = (await deliverThrough(moduleA, eventThrough(moduleA, `hooks-edited-${randomUUID()}`))).status;
		const afterEdit = {
			modules: perCompany(heldModules(simulator, first.url)),
			deleteHookRuns: deleteHooksSince(deletesBeforeEdit),
			publication: publicationAfterEdit,
			deliveryThroughA: deliveryAfterEdit,
		};
		// Published again without a change, as the refusal's advice reads: 2.x's publication finds no trigger whose
		// registration changed (same version, webhook still stored), 1.x returns at once for the active version.
		await n8n.api.activate(first.id);
		const afterPublishAgain = { modules: perCompany(heldModules(simulator, first.url)), deleteHookRuns: deleteHooksSince(deletesBeforeEdit) };

		// The workflow saved with another credential while published: 2.x's public API PUT publishes the saved
		// version again (publishIfActive defaults to true), 1.x's takes the workflow down and activates it again.
		const credentialA = await companyCredential(n8n, simulator, 'A', `hooks: saved company A ${version}`);
		const credentialB = await companyCredential(n8n, simulator, 'B', `hooks: saved company B ${version}`);
		const second = await publishedTrigger('hooks: saved with another credential while published', credentialA);
		const deletesBeforeSave = deleteHookRuns();
		expect((await n8n.api.publicApi('PUT', `/workflows/${second.id}`, withCredential(second.definition, TRIGGER_NODE_NAME, credentialB))).status).toBe(200);
		const publicationAfterSave = await publicationSettled(n8n, second.id);
		const afterSave = {
			modules: perCompany(heldModules(simulator, second.url)),
			deleteHookRuns: deleteHooksSince(deletesBeforeSave),
			publication: publicationAfterSave,
		};

		log(
			`n8n ${version}, while published: the credential edited to company B's key: ${JSON.stringify(afterEdit)}; ` +
				`then published again unchanged: ${JSON.stringify(afterPublishAgain)}; ` +
				`the workflow saved with company B's credential: ${JSON.stringify(afterSave)} ` +
				`(modules per company at the trigger's URL; delete-hook runs from n8n's log; 2.x's publication status, none on 1.x)`,
		);
		const published = version.startsWith('2.') ? 'published' : undefined;
		expect({ afterEdit, afterPublishAgain, afterSave }).toEqual({
			afterEdit: { modules: { A: 1 }, deleteHookRuns: 0, publication: published, deliveryThroughA: 200 },
			afterPublishAgain: { modules: { A: 1 }, deleteHookRuns: 0 },
			afterSave: { modules: { A: 1, B: 1 }, deleteHookRuns: 1, publication: published },
		});
	});
});

describeEachVersion("the trigger after n8n's webhook URL changed across a restart, in n8n %s (issue 49, point 2)", (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let userFolder: string;

	beforeAll(async () => {
		simulator = await startSimulator();
		userFolder = createUserFolder(`webhook-url-${version}`);
		n8n = await startN8n({ version, userFolder, port: await freePort(), withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS });
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (userFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	});

	/** The service's delivery of one event through every module it holds for `call.ended` (one body per module, as it builds them). */
	async function deliveredThroughEach(marker: string, urls: { old: string; new: string }) {
		const results = await simulator.deliverEvent('call.ended', { data: { contact_id: DEMO.completedContactId, marker } });
		const statusAt = (url: string) => results.find((result) => result.url === url)?.status ?? 'no module';
		return { throughOld: statusAt(urls.old), throughNew: statusAt(urls.new) };
	}

	const title = version.startsWith('1.')
		? 'n8n restarted with its webhook URL at localhost instead of 127.0.0.1 runs the hooks at start-up: a module for the new URL; the old module still delivers inside its retry window (issue 61), and an event the service sends through both runs once (Repeat Key)'
		: 'n8n restarted with its webhook URL at localhost instead of 127.0.0.1 runs no hook: no new module, the old module still delivers (200, runs) with a warning to publish again; published again unchanged, still no module; once unpublished and published, a module for the new URL, the old one still delivering inside its retry window (issue 61), and an event sent through both runs once (Repeat Key)';

	it(title, async () => {
		const credential = await simulatorCredential(n8n.api, simulator.url);
		// The service gives each copy of an event its own event_id: the marker names the event, as data.call_id would.
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, { repeatKey: 'data.marker' });
		const definition = triggerWorkflow(`webhook URL change ${version}`, trigger);
		const { id } = await n8n.api.createWorkflow(definition);
		await n8n.api.activate(id);
		const { port } = n8n;
		const urls = { old: productionUrl(`http://127.0.0.1:${port}/`, trigger), new: productionUrl(`http://localhost:${port}/`, trigger) };
		const [oldModule] = heldModules(simulator, urls.old);
		expect(heldModules(simulator).map((module) => module.url)).toEqual([urls.old]);

		const since = n8n.logs().length;
		await n8n.stop();
		n8n = await startN8n({
			version,
			userFolder,
			port,
			readyTimeoutMs: READY_TIMEOUT_MS,
			extraEnv: { [n8n.runtime.webhookUrlVariable]: `http://localhost:${port}/` },
		});
		await untilServed(urls.old);
		// 1.x activates its active workflows at start-up, running the trigger's hooks, and logs each once done.
		if (version.startsWith('1.')) {
			const activated = await logLineWith(n8n, since, `Activated workflow "${definition.name}" (ID: ${id})`, 120_000);
			expect(activated).toBeDefined();
		}
		const modulesAfterRestart = { old: heldModules(simulator, urls.old).length, new: heldModules(simulator, urls.new).length };

		if (version.startsWith('1.')) {
			const newModule = heldModules(simulator, urls.new).at(-1);
			const marker = `url-change-both-${randomUUID()}`;
			const delivered = await deliveredThroughEach(marker, urls);
			const { executions, runs } = await runsOf(n8n, id, [newModule, oldModule].filter((module) => module !== undefined), [marker]);
			const refusal = await logLineWith(n8n, since, `refused a delivery through webhook module ${oldModule.id}`, 1_000);
			const observed = { modulesAfterRestart, ...delivered, runs: runs[marker], refusal };
			log(
				`n8n ${version}, webhook URL 127.0.0.1 → localhost, restarted: modules per URL ${JSON.stringify(modulesAfterRestart)}; ` +
					`one event through both: old module ${oldModule.id} ${delivered.throughOld}, new module ${newModule?.id ?? '(none)'} ${delivered.throughNew}; ` +
					`runs of the event ${runs[marker]} (executions of the workflow ${executions}); the trigger's log lines since the restart: ${quoted(triggerLogLines(n8n, since))}`,
			);
			expect(observed).toEqual({ modulesAfterRestart: { old: 1, new: 1 }, throughOld: 200, throughNew: 200, runs: 1, refusal: undefined });
			return;
		}

		// 2.x: nothing ran at start-up; the old module still reaches this n8n.
		const markerBefore = `url-change-old-only-${randomUUID()}`;
		const deliveredBefore = await deliveredThroughEach(markerBefore, urls);
		const before = await runsOf(n8n, id, [oldModule], [markerBefore]);
		const publishAgain = await logLineWith(n8n, since, 'publish the workflow again');
		// Published again while published, with nothing changed: 2.x's publication sets up no trigger (same version, webhook stored).
		await n8n.api.activate(id);
		const modulesAfterPublishAgain = { old: heldModules(simulator, urls.old).length, new: heldModules(simulator, urls.new).length };
		const sinceRepublish = n8n.logs().length;

		await n8n.api.deactivate(id);
		await n8n.api.activate(id);
		const modulesAfterRepublish = { old: heldModules(simulator, urls.old).length, new: heldModules(simulator, urls.new).length };
		const newModule = heldModules(simulator, urls.new).at(-1);
		const markerAfter = `url-change-both-${randomUUID()}`;
		const deliveredAfter = await deliveredThroughEach(markerAfter, urls);
		const after = await runsOf(n8n, id, [newModule, oldModule].filter((module) => module !== undefined), [markerAfter]);
		const refusal = await logLineWith(n8n, sinceRepublish, `refused a delivery through webhook module ${oldModule.id}`, 1_000);

		const observed = {
			afterRestart: { modules: modulesAfterRestart, throughOld: deliveredBefore.throughOld, runs: before.runs[markerBefore], publishAgain },
			afterPublishAgainUnchanged: { modules: modulesAfterPublishAgain },
			afterRepublish: { modules: modulesAfterRepublish, ...deliveredAfter, runs: after.runs[markerAfter], refusal },
		};
		log(
			`n8n ${version}, webhook URL 127.0.0.1 → localhost, restarted: modules per URL ${JSON.stringify(modulesAfterRestart)}; ` +
				`an event through the old module ${oldModule.id}: ${deliveredBefore.throughOld}, runs ${before.runs[markerBefore]}; ` +
				`published again unchanged: modules per URL ${JSON.stringify(modulesAfterPublishAgain)}; ` +
				`unpublished and published: modules per URL ${JSON.stringify(modulesAfterRepublish)}; one event through both: old ${deliveredAfter.throughOld}, ` +
				`new module ${newModule?.id ?? '(none)'} ${deliveredAfter.throughNew}, runs ${after.runs[markerAfter]} (executions of the workflow ${after.executions}); ` +
				`the trigger's log lines since the restart: ${quoted(triggerLogLines(n8n, since))}`,
		);
		expect(observed).toEqual({
			afterRestart: {
				modules: { old: 1, new: 0 },
				throughOld: 200,
				runs: 1,
				publishAgain: expect.stringContaining(
					`accepted a delivery through webhook module ${oldModule.id} (call.ended), registered for the earlier webhook URL ${urls.old}: publish the workflow again (on n8n 2.x unpublish, then publish; on n8n 1.x deactivate, then activate) to register a module for the current webhook URL ${urls.new}`,
				),
			},
			afterPublishAgainUnchanged: { modules: { old: 1, new: 0 } },
			afterRepublish: { modules: { old: 1, new: 1 }, throughOld: 200, throughNew: 200, runs: 1, refusal: undefined },
		});
	});
});

describeEachVersion('the trigger after its Timeout changed, while the service retries an event through the old module, in n8n %s (issue 49, point 3)', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let workflowId: string | undefined;

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await sharedN8n(version);
	});

	afterAll(async () => {
		if (workflowId) await n8n?.api.deleteWorkflow(workflowId).catch(() => undefined);
		await simulator?.close();
	});

	it('Timeout 30 → 90, unpublished and published: an event whose first attempt got 404 during the republish is retried through the old module only, answered 200 and run once; the same event through the new module is answered as a repeat and not run again', async () => {
		const credential = await simulatorCredential(n8n.api, simulator.url, `timeout change ${version}`);
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, { timeout: 30 });
		const definition = triggerWorkflow(`timeout change, retry through the old module ${version}`, trigger);
		const { id } = await n8n.api.createWorkflow(definition);
		workflowId = id;
		const url = productionUrl(n8n.webhookUrl, trigger);
		await n8n.api.activate(id);
		const since = n8n.logs().length;
		await n8n.api.deactivate(id);
		const [oldModule] = heldModules(simulator, url);

		const changed = {
			...definition,
			nodes: definition.nodes.map((node) => (node.name === trigger.name ? { ...node, parameters: { ...node.parameters, options: { timeout: 90 } } } : node)),
		};
		expect((await n8n.api.publicApi('PUT', `/workflows/${id}`, changed)).status).toBe(200);
		// The service sends an event while the workflow is unpublished: n8n answers 404, and the service retries it through the same module.
		const marker = `timeout-change-${randomUUID()}`;
		const event = eventThrough(oldModule, marker);
		const firstAttempt = (await deliverThrough(oldModule, event)).status;
		await n8n.api.activate(id);
		const modules = heldModules(simulator, url);
		const newModule = modules.find((module) => module.timeout === 90);

		const retry = (await deliverThrough(oldModule, event)).status;
		const settleThrough = [newModule, oldModule].filter((module) => module !== undefined);
		const afterRetry = await runsOf(n8n, id, settleThrough, [marker]);
		const throughNew = newModule ? await deliverThrough(newModule, event) : undefined;
		const afterBoth = await runsOf(n8n, id, settleThrough, [marker]);

		const observed = {
			modules: modules.map((module) => `timeout ${module.timeout} retry_limit ${module.retryLimit}`),
			firstAttempt,
			retryThroughOld: retry,
			runsAfterRetry: afterRetry.runs[marker],
			throughNew: throughNew && { status: throughNew.status, body: JSON.parse(throughNew.text) as unknown },
			runsAfterBoth: afterBoth.runs[marker],
		};
		log(
			`n8n ${version}, Timeout 30 → 90 with the event retried through the old module ${oldModule.id}: ${JSON.stringify(observed)} ` +
				`(executions of the workflow ${afterBoth.executions}); the trigger's log lines since: ${quoted(triggerLogLines(n8n, since))}`,
		);
		expect(observed).toEqual({
			modules: ['timeout 30 retry_limit 3', 'timeout 90 retry_limit 3'],
			firstAttempt: 404,
			retryThroughOld: 200,
			runsAfterRetry: 1,
			throughNew: { status: 200, body: { status: 'ok', received: 1, accepted: 0, repeats: 1 } },
			runsAfterBoth: 1,
		});
	});
});

describeEachVersion('the trigger after its node was renamed and n8n restarted, in n8n %s (issue 49, point 5)', (version) => {
	const FORMER_NAME = 'Calls Before Rename';
	let simulator: Simulator;
	let n8n: N8nInstance;
	let userFolder: string;

	beforeAll(async () => {
		simulator = await startSimulator();
		userFolder = createUserFolder(`node-rename-${version}`);
		n8n = await startN8n({ version, userFolder, port: await freePort(), withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS });
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (userFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	});

	it('activated, unpublished, the node renamed, n8n restarted on the same database, published again: no new module registered; a delivery through the original module is answered 200 and runs once', async () => {
		const credential = await simulatorCredential(n8n.api, simulator.url);
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, {}, FORMER_NAME);
		const definition = triggerWorkflow(`node rename ${version}`, trigger, [setNode(DOWNSTREAM, { ran: true })]);
		const { id } = await n8n.api.createWorkflow(definition);
		await n8n.api.activate(id);
		await n8n.api.deactivate(id);
		const url = productionUrl(n8n.webhookUrl, trigger);
		const [original] = heldModules(simulator, url);
		expect(heldModules(simulator, url)).toHaveLength(1);

		// Renamed as the editor does: the node's name, and the connections keyed by it.
		const renamed: WorkflowJson = {
			...definition,
			nodes: definition.nodes.map((node) => (node.name === FORMER_NAME ? { ...node, name: TRIGGER_NODE_NAME } : node)),
			connections: { [TRIGGER_NODE_NAME]: definition.connections[FORMER_NAME] },
		};
		expect((await n8n.api.publicApi('PUT', `/workflows/${id}`, renamed)).status).toBe(200);
		const since = n8n.logs().length;
		const { port } = n8n;
		await n8n.stop();
		n8n = await startN8n({ version, userFolder, port, readyTimeoutMs: READY_TIMEOUT_MS });
		await n8n.api.activate(id);

		const modules = heldModules(simulator, url);
		const marker = `node-rename-${randomUUID()}`;
		const throughOriginal = (await deliverThrough(original, eventThrough(original, marker))).status;
		const { executions, runs } = await runsOf(n8n, id, [...modules].reverse(), [marker]);
		const observed = { modules: modules.length, throughOriginal, runs: runs[marker] };
		log(
			`n8n ${version}, node renamed "${FORMER_NAME}" → "${TRIGGER_NODE_NAME}", n8n restarted, published again: modules at the trigger's URL ${modules.length} ` +
				`(${modules.map((module) => module.id).join(', ')}); delivery through the original module ${original.id}: ${throughOriginal}; ` +
				`runs ${runs[marker]} (executions of the workflow ${executions}); the trigger's log lines since the restart: ${quoted(triggerLogLines(n8n, since))}`,
		);
		expect(observed).toEqual({ modules: 1, throughOriginal: 200, runs: 1 });
	});
});
