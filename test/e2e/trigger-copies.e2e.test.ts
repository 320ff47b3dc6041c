/**
 * Issue 66, point 1: a copy of a workflow is not the original. What n8n copies, per line (established in real n8n
 * 2.41.1 and 1.123.81 and in their code; test/e2e/README.md, "Copies of a workflow"): the public API's create and the
 * CLI's import of an exported file without its id keep the node ids and the static data they are given, so a copy
 * carries the original's records under the same trigger node id. (The editor's Duplicate gives new node ids, and
 * only 1.x copies static data with it; the editor's import carries no static data.)
 *
 * Here the original is published, exported with its static data (`n8n export:workflow`), and copied each of those two
 * ways with a new webhook path, as a user would to run it beside the original; the copy is published too. Each
 * workflow runs only the events of its own module, and neither's unpublish names the other's modules (before issue
 * 66 the copy's unpublish listed the original's live module, which the runbook then told the user to have removed).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { DOWNSTREAM } from './harness/deliveries.ts';
import { type HeldModule, deliverThrough, eventThrough, heldModules, logLineWith, runsOf } from './harness/modules.ts';
import { n8nEnv, type N8nInstance } from './harness/n8n.ts';
import { freePort, log, sleep } from './harness/process.ts';
import { N8N_ENTRY, describeEachVersion } from './harness/runtime.ts';
import { sharedN8n } from './harness/shared.ts';
import { CREDENTIAL_TYPE, campaignCallingTriggerNode, setNode, triggerWorkflow, type WorkflowJson } from './harness/workflows.ts';

const execFileAsync = promisify(execFile);

interface ExportedWorkflow extends WorkflowJson {
	id?: string;
	staticData?: Record<string, unknown> | null;
	nodes: Array<WorkflowJson['nodes'][number] & { id?: string; webhookId?: string }>;
}

describeEachVersion('copies of a published workflow, in n8n %s (issue 66, point 1)', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let workDir: string;
	let original: { id: string; url: string; module: HeldModule };

	/**
	 * Runs n8n's CLI against the running instance's database, as an administrator on the same host does. Not
	 * spawnSync: a blocked event loop misses n8n closing an idle pooled connection, and the next call fails on it.
	 */
	async function cli(...args: string[]): Promise<string> {
		const env = await n8nEnv(n8n.runtime, { userFolder: n8n.userFolder, port: await freePort(), editorUrl: n8n.url, webhookUrl: n8n.webhookUrl });
		try {
			return (await execFileAsync(n8n.runtime.nodeBinary, [N8N_ENTRY, ...args], { cwd: n8n.runtime.dir, env, timeout: 180_000 })).stdout;
		} catch (error) {
			const { stdout, stderr } = error as { stdout?: string; stderr?: string };
			throw new Error(`n8n ${args.join(' ')}: ${(error as Error).message}\n${stdout ?? ''}\n${stderr ?? ''}`);
		}
	}

	/** The original as `n8n export:workflow` writes it, static data and all, once n8n has saved the trigger's records. */
	async function exported(): Promise<ExportedWorkflow> {
		// n8n saves static data as the publish ends: export again until the file holds the trigger's records.
		for (let attempt = 1; ; attempt++) {
			const file = join(workDir, `export-${randomUUID()}.json`);
			await cli('export:workflow', `--id=${original.id}`, `--output=${file}`);
			const [workflow] = JSON.parse(readFileSync(file, 'utf8')) as ExportedWorkflow[];
			const keys = Object.keys((workflow.staticData as { global?: Record<string, unknown> } | null)?.global ?? {});
			if (keys.some((key) => key.startsWith('campaignCallingTrigger:'))) return workflow;
			if (attempt === 10) throw new Error(`The original's export holds no trigger records after ${attempt} exports: ${JSON.stringify(workflow.staticData)}`);
			await sleep(1_000);
		}
	}

	/** The exported original with another name and webhook path: what a user changes to run a copy beside it. */
	function asCopy(workflow: ExportedWorkflow, label: string): ExportedWorkflow {
		const { id: _id, ...withoutId } = workflow;
		return {
			...withoutId,
			name: `${label} ${version}`,
			active: false,
			nodes: workflow.nodes.map((node) => (node.type.endsWith('campaignCallingTrigger') ? { ...node, webhookId: randomUUID() } : node)),
		} as ExportedWorkflow;
	}

	beforeAll(async () => {
		simulator = await startSimulator();
		workDir = mkdtempSync(join(tmpdir(), 'campaign-calling-copies-'));
		n8n = await sharedN8n(version);
		const credential = await n8n.api.createCredential(`copies ${version}`, CREDENTIAL_TYPE, { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey });
		const trigger = campaignCallingTriggerNode(['call.ended'], { id: credential.id, name: credential.name }, { repeatKey: 'data.call_id' });
		const { id } = await n8n.api.createWorkflow(triggerWorkflow(`original ${version}`, trigger, [setNode(DOWNSTREAM, { ran: true })]));
		await n8n.api.activate(id);
		const url = `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
		original = { id, url, module: heldModules(simulator, url)[0] };
	});

	afterAll(async () => {
		await simulator?.close();
		if (workDir) rmSync(workDir, { recursive: true, force: true });
	});

	const copyWays: Array<[string, (copy: ExportedWorkflow) => Promise<string>]> = [
		[
			"the public API's create, given the export's node ids and static data",
			async (copy) => {
				const created = await n8n.api.publicApi<{ id: string }>('POST', '/workflows', { name: copy.name, nodes: copy.nodes, connections: copy.connections, settings: copy.settings ?? {}, staticData: copy.staticData });
				expect(created.status).toBe(200);
				return created.body.id;
			},
		],
		[
			"the CLI's import of the exported file without its id",
			async (copy) => {
				// One file a workflow (--separate): 2.41.1 imports a single file without an id only this way.
				const folder = mkdtempSync(join(workDir, 'import-'));
				writeFileSync(join(folder, 'copy.json'), JSON.stringify(copy));
				await cli('import:workflow', '--separate', `--input=${folder}`);
				const listed = await n8n.api.publicApi<{ data: Array<{ id: string; name: string }> }>('GET', `/workflows?name=${encodeURIComponent(copy.name)}`);
				const [imported] = listed.body.data.filter((workflow) => workflow.name === copy.name);
				return imported.id;
			},
		],
	];

	it.each(copyWays)('a copy by %s, published beside the original, runs only its own events, and neither\'s unpublish names the other\'s modules', async (way, makeCopy) => {
		const copy = asCopy(await exported(), `copy by ${way.split(',')[0]}`);
		const copyId = await makeCopy(copy);
		await n8n.api.activate(copyId);
		const copyTrigger = copy.nodes.find((node) => node.type.endsWith('campaignCallingTrigger'));
		const copyUrl = `${n8n.webhookUrl}webhook/${copyTrigger?.webhookId}/webhook`;
		const [copyModule] = heldModules(simulator, copyUrl);

		const [toOriginal, toCopy] = [`original-${randomUUID()}`, `copy-${randomUUID()}`];
		const answers = [(await deliverThrough(original.module, eventThrough(original.module, toOriginal))).status, (await deliverThrough(copyModule, eventThrough(copyModule, toCopy))).status];
		const inOriginal = await runsOf(n8n, original.id, [original.module], [toOriginal, toCopy]);
		const inCopy = await runsOf(n8n, copyId, [copyModule], [toOriginal, toCopy]);

		const since = n8n.logs().length;
		await n8n.api.deactivate(copyId);
		const copyUnpublished = await logLineWith(n8n, since, 'remain registered at the service');
		const observed = {
			modules: { original: heldModules(simulator, original.url).length, copy: heldModules(simulator, copyUrl).length },
			answers,
			runsInOriginal: Object.values(inOriginal.runs),
			runsInCopy: Object.values(inCopy.runs),
			copyUnpublishNamesOriginal: copyUnpublished?.includes(original.module.id),
			copyUnpublishNamesCopy: copyUnpublished?.includes(`${copyModule.id} delivering to ${copyUrl}`),
		};
		log(`n8n ${version}, a copy by ${way}: ${JSON.stringify(observed)}; the copy's unpublish: ${copyUnpublished?.trim() ?? '(no line)'}`);
		expect(observed).toEqual({
			modules: { original: 1, copy: 1 },
			answers: [200, 200],
			runsInOriginal: [1, 0],
			runsInCopy: [0, 1],
			copyUnpublishNamesOriginal: false,
			copyUnpublishNamesCopy: true,
		});
	});

	it("the original's unpublish names only its own module, with the URL it delivers to", async () => {
		const since = n8n.logs().length;
		await n8n.api.deactivate(original.id);
		const line = await logLineWith(n8n, since, 'remain registered at the service');
		log(`n8n ${version}, the original's unpublish: ${line?.trim() ?? '(no line)'}`);
		expect(line).toContain(`1 webhook module(s) remain registered at the service for this node (${original.module.id} delivering to ${original.url})`);
	});
});
