/**
 * Issue 61, point 6 (b): n8n writes a workflow's whole static-data column at the end of an execution whose static
 * data changed. Here the execution's copy is read when it starts, and the trigger's module records change in the
 * database while it runs (a republish registers a new module), then the execution ends and writes its copy back.
 *
 * The workflow: the trigger (Timeout 30 s) → a Code node (`Counter`) that counts in `$getWorkflowStaticData('global')`
 * → a Wait of WRITEBACK_WAIT_SECONDS, sleeping inside its execution → a Set node (`Downstream`) with the event's marker.
 * The service delivers event 1; while its execution waits, Timeout becomes 60 s and the workflow is published again
 * (deactivated, saved, activated: on both lines the trigger's delete, checkExists and create run), which registers a
 * second module and stores its record; then the execution ends. What the database holds is read through n8n's REST
 * API (`GET /rest/workflows/:id`, its `staticData`), and the service delivers event 2 through every module it holds.
 *
 * Where n8n does this, in the installed n8n (package `n8n` under $CAMPAIGN_CALLING_CACHE/n8n-<version>/node_modules):
 * - 1.123.81: the static data an execution starts with is read from the database when it starts (one process:
 *   n8n/dist/workflow-runner.js, runMainProcess, `loadStaticData` → WorkflowStaticDataService.getStaticDataById;
 *   queue mode: n8n/dist/scaling/job-processor.js:89-99); at its end the hooks write it back whole when a node changed
 *   it (n8n/dist/execution-lifecycle/execution-lifecycle-hooks.js:252-254 in one process, hookFunctionsSave; :313-315
 *   on a worker, hookFunctionsSaveWorker), through n8n/dist/workflows/workflow-static-data.service.js:47-62
 *   (saveStaticDataById: `UPDATE workflow_entity SET staticData = <the execution's copy>`, no merge, no version check).
 * - 2.41.1: the same (job-processor.js:122-131; execution-lifecycle-hooks.js:423-425 and :496-498;
 *   workflow-static-data.service.js:44-56).
 */
import { createHash, randomUUID } from 'node:crypto';
import { DEMO, type DeliveryResult, type Simulator } from '../../simulator/server.ts';
import { countBy } from './deliveries.ts';
import { callEndedEvent, drainedExecutions, markersRunBy, type ExecutionStore } from './fullQueue.ts';
import { heldModules, publicationSettled, type HeldModule } from './modules.ts';
import type { N8nInstance } from './n8n.ts';
import { log } from './process.ts';
import { SECRET_HEADER } from './deliveries.ts';
import { campaignCallingTriggerNode, chain, node, setNode, workflow, type CredentialRef, type WorkflowJson } from './workflows.ts';

/** Long enough to span the republish (a few seconds), short enough to sleep inside the execution (under 65 s). */
export const WRITEBACK_WAIT_SECONDS = 20;
/** The control publishes nothing meanwhile: its execution only has to write its copy back at its end. */
const CONTROL_WAIT_SECONDS = 5;
const COUNTER_NODE = 'Counter';
const DOWNSTREAM_NODE = 'Downstream';
const DRAIN_TIMEOUT_MS = 3 * 60_000;

/** What the workflow's static data holds at one moment: which of the service's modules it has a record of, and the Code node's counter. */
export interface StaticDataView {
	/** The records under `campaignCallingTrigger:<workflow id>:<node id>`. */
	records: number;
	/** Of the modules the service holds for the trigger's URL, oldest first: `first`, `second`, … for each one recorded. */
	recorded: string[];
	counter: unknown;
}

export interface WritebackCounts {
	/** Event 1: its delivery through the first module (while its execution waits, the workflow is published again). */
	firstDelivery: Array<number | undefined>;
	/** The execution of event 1 when the republish finished: `running` in n8n's database. */
	statusDuringRepublish: string[];
	afterActivation: StaticDataView;
	afterRepublish: StaticDataView;
	/** Once event 1's execution finished. */
	afterExecution: StaticDataView;
	/** n8n restarted on the same folder and port (one process only), when asked. */
	afterRestart?: StaticDataView;
	/** Modules the service holds for the trigger's URL: Timeout of each, oldest first. */
	modules: string[];
	firstEventRuns: number;
	/** Another event sent by the service through every module it holds: after the execution, and after the restart if any. */
	probes: DeliveryProbe[];
	/** Once the probes' executions (which count too) ended. */
	afterProbes: StaticDataView;
	executions: Record<string, number>;
}

export interface DeliveryProbe {
	when: string;
	/** The answer through each module (`first`, `second`, …, oldest first). */
	answers: Record<string, string>;
	/** The same event through each module (one event_id and call_id): how many times it ran downstream. */
	runs: number;
	/** The trigger's log lines about unknown secrets (its 401s to a module it has no record of) meanwhile. */
	unknownSecretLines: number;
}

const UNKNOWN_SECRET = "belongs to none of this node's modules";
const linesWith = (text: string, needle: string) => text.split('\n').filter((line) => line.includes(needle)).length;

/** One event, sent by the service through every module it holds (the same event in each copy); answers and runs counted once n8n drained. */
async function probe(options: WritebackOptions, workflowId: string, url: string, when: string): Promise<DeliveryProbe> {
	const marker = `writeback-probe-${randomUUID()}`;
	const unknownBefore = linesWith(options.n8n().logs(), UNKNOWN_SECRET);
	// Every field the simulator would fill per copy is given, so each module's copy is the same event.
	const results: DeliveryResult[] = await options.simulator.deliverEvent('call.ended', callEndedEvent(marker));
	const modules = heldModules(options.simulator, url);
	const answers = Object.fromEntries(
		modules.map((module, index) => {
			const result = results.find((each) => each.moduleId === module.id);
			return [ordinal(index), result === undefined ? 'not sent' : `${result.status ?? 'none'} after ${result.attempts} attempt(s)`];
		}),
	);
	const drained = await drainedExecutions(options.store(), workflowId, DRAIN_TIMEOUT_MS);
	return {
		when,
		answers,
		runs: markersRunBy(drained.executions, DOWNSTREAM_NODE).filter((each) => each === marker).length,
		unknownSecretLines: linesWith(options.n8n().logs(), UNKNOWN_SECRET) - unknownBefore,
	};
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];
const ordinal = (index: number) => ORDINALS[index] ?? `module ${index + 1}`;

/** trigger (Timeout 30 s) → Counter (Code: counts in the workflow's static data) → Wait → Downstream (the marker). */
export function writebackWorkflow(label: string, credential: CredentialRef, waitSeconds = WRITEBACK_WAIT_SECONDS): WorkflowJson {
	const nodes = [
		campaignCallingTriggerNode(['call.ended'], credential, { timeout: 30 }),
		node(COUNTER_NODE, 'n8n-nodes-base.code', 2, {
			mode: 'runOnceForAllItems',
			jsCode: "const data = $getWorkflowStaticData('global');\ndata.counter = (data.counter ?? 0) + 1;\nreturn $input.all();",
		}),
		node('Wait', 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: waitSeconds, unit: 'seconds' }, { webhookId: randomUUID() }),
		setNode(DOWNSTREAM_NODE, { marker: '={{ $json.data.marker }}' }),
	];
	return workflow(`static-data write-back: ${label}`, nodes, chain(nodes.map((each) => each.name)));
}

const verifierOf = (module: HeldModule) => createHash('sha256').update(module.headers[SECRET_HEADER]).digest('base64url');

/** The workflow's static data as n8n's database holds it (the editor's REST read of the workflow). */
export async function staticDataView(n8n: N8nInstance, workflowId: string, triggerId: string, modules: HeldModule[]): Promise<StaticDataView> {
	const answer = await n8n.api.rest<{ data: { staticData?: Record<string, unknown> | null } }>('GET', `/workflows/${workflowId}`);
	if (answer.status !== 200) throw new Error(`Reading workflow ${workflowId}: HTTP ${answer.status}`);
	const staticData = answer.body.data.staticData ?? {};
	const global = (staticData.global ?? staticData) as Record<string, unknown>;
	const stored = ((global[`campaignCallingTrigger:${workflowId}:${triggerId}`] as { modules?: Record<string, unknown> } | undefined)?.modules ?? {}) as Record<string, unknown>;
	return {
		records: Object.keys(stored).length,
		recorded: modules.flatMap((module, index) => (stored[verifierOf(module)] !== undefined ? [ordinal(index)] : [])),
		counter: global.counter,
	};
}

export interface WritebackOptions {
	/** Read at each step: the n8n may be replaced by a restart. */
	n8n: () => N8nInstance;
	simulator: Simulator;
	credential: CredentialRef;
	/** n8n's own database of executions (sqliteExecutions or postgresExecutions), for the instance now running. */
	store: () => ExecutionStore;
	label: string;
	/** Restarts n8n on the same folder and port after event 1's execution ended (one process). */
	restart?: () => Promise<void>;
	/** Publishes the workflow again with another Timeout while event 1's execution waits; default true. False: the control, nothing changed meanwhile. */
	republish?: boolean;
}

/** The whole case: activate, deliver event 1, republish with another Timeout while it waits, let it end, read, deliver event 2. */
export async function writebackAcrossRepublish(options: WritebackOptions): Promise<WritebackCounts> {
	const { simulator, credential, label } = options;
	const n8n = options.n8n;
	simulator.reset();
	const definition = writebackWorkflow(label, credential, options.republish === false ? CONTROL_WAIT_SECONDS : WRITEBACK_WAIT_SECONDS);
	const trigger = definition.nodes[0];
	const { id } = await n8n().api.createWorkflow(definition);
	await n8n().api.activate(id);
	await publicationSettled(n8n(), id);
	const url = `${n8n().webhookUrl}webhook/${trigger.webhookId}/webhook`;
	const view = async () => await staticDataView(n8n(), id, trigger.id, heldModules(simulator, url));
	const afterActivation = await view();

	const firstMarker = `writeback-1-${randomUUID()}`;
	const firstDelivery = (await simulator.deliverEvent('call.ended', { data: { contact_id: DEMO.completedContactId, marker: firstMarker } })).map(
		(result) => result.status,
	);

	if (options.republish !== false) {
		// Timeout 30 → 60, published again while event 1's execution waits: the trigger registers a second module.
		await n8n().api.deactivate(id);
		const changed = {
			...definition,
			nodes: definition.nodes.map((each) => (each.id === trigger.id ? { ...each, parameters: { ...each.parameters, options: { timeout: 60 } } } : each)),
		};
		const saved = await n8n().api.publicApi('PUT', `/workflows/${id}`, changed);
		if (saved.status !== 200) throw new Error(`Saving workflow ${id}: HTTP ${saved.status} ${JSON.stringify(saved.body).slice(0, 300)}`);
		await n8n().api.activate(id);
		await publicationSettled(n8n(), id);
	}
	const statusDuringRepublish = (await options.store()(id)).map((execution) => execution.status);
	const afterRepublish = await view();

	await drainedExecutions(options.store(), id, DRAIN_TIMEOUT_MS);
	const afterExecution = await view();

	const probes: DeliveryProbe[] = [await probe(options, id, url, 'after the execution')];
	let afterRestart: StaticDataView | undefined;
	if (options.restart) {
		await options.restart();
		afterRestart = await view();
		probes.push(await probe(options, id, url, 'after a restart of n8n'));
	}
	const all = await drainedExecutions(options.store(), id, DRAIN_TIMEOUT_MS);
	const afterProbes = await view();
	await n8n().api.deactivate(id);
	const counts: WritebackCounts = {
		firstDelivery,
		statusDuringRepublish,
		afterActivation,
		afterRepublish,
		afterExecution,
		...(afterRestart ? { afterRestart } : {}),
		modules: heldModules(simulator, url).map((module) => `timeout ${module.timeout}`),
		firstEventRuns: markersRunBy(all.executions, DOWNSTREAM_NODE).filter((marker) => marker === firstMarker).length,
		probes,
		afterProbes,
		executions: countBy(all.executions, (execution) => execution.status),
	};
	log(`static-data write-back, n8n ${n8n().version}, ${label}: ${JSON.stringify(counts)}`);
	return counts;
}

/**
 * The control: nothing published while the execution waits. The trigger's record stays beside the Code node's counter,
 * and the next event runs once; `counterAfterProbes` is what n8n's copy lets the counter reach after two executions.
 */
export async function expectRecordKeptWithoutRepublish(options: Omit<WritebackOptions, 'republish' | 'restart'>, counterAfterProbes: number): Promise<void> {
	const counts = await writebackAcrossRepublish({ ...options, label: `${options.label}, control`, republish: false });
	expect(counts.firstDelivery).toEqual([200]);
	expect(counts.firstEventRuns).toBe(1);
	expect({ afterExecution: counts.afterExecution, modules: counts.modules, probes: counts.probes }).toEqual({
		afterExecution: { records: 1, recorded: ['first'], counter: 1 },
		modules: ['timeout 30'],
		probes: [{ when: 'after the execution', answers: { first: '200 after 1 attempt(s)' }, runs: 1, unknownSecretLines: 0 }],
	});
	expect(counts.afterProbes).toEqual({ records: 1, recorded: ['first'], counter: counterAfterProbes });
}
