/**
 * The example workflows in examples/, as the public API takes them, and the demo's set-up of them in an
 * n8n: shared by `npm run demo`, `npm run screenshots` and the examples e2e test, so all of them import
 * exactly what users import.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO } from '../test/simulator/server.ts';
import type { N8nInstance } from '../test/e2e/harness/n8n.ts';
import { CREDENTIAL_TYPE } from '../test/e2e/harness/workflows.ts';
import type { CredentialRef, WorkflowJson } from '../test/e2e/harness/workflows.ts';

/** The credential name the examples reference; n8n also resolves an unknown id by this name on import. */
export const DEMO_CREDENTIAL_NAME = 'Campaign Calling (demo)';

export const EXAMPLES = {
	newLead: 'new-lead-to-campaign.json',
	callEnded: 'call-ended-log-outcome.json',
	dailyCheck: 'daily-campaign-check.json',
} as const;

export type ExampleFile = (typeof EXAMPLES)[keyof typeof EXAMPLES];

/** The example as stored (repo root = process.cwd(), as for every script here). */
export function readExample(file: ExampleFile): WorkflowJson {
	return JSON.parse(readFileSync(join(process.cwd(), 'examples', file), 'utf8')) as WorkflowJson;
}

/** The example with every Campaign Calling credential reference pointed at `credential`. */
export function loadExample(file: ExampleFile, credential: CredentialRef): WorkflowJson {
	const workflow = readExample(file);
	for (const node of workflow.nodes) {
		if (node.credentials?.[CREDENTIAL_TYPE]) node.credentials[CREDENTIAL_TYPE] = { id: credential.id, name: credential.name };
	}
	return workflow;
}

export interface ImportedExample {
	file: ExampleFile;
	id: string;
	name: string;
	active: boolean;
}

/**
 * The demo's set-up in a running n8n: replaces what an earlier run left (matched by name), creates the
 * credential pointing at the simulator, imports the three examples and activates the trigger example
 * (which registers its call.ended webhook at the simulator).
 */
export async function installExamples(n8n: N8nInstance, simulatorUrl: string): Promise<ImportedExample[]> {
	await removePreviousRun(n8n);
	const created = await n8n.api.createCredential(DEMO_CREDENTIAL_NAME, CREDENTIAL_TYPE, {
		baseUrl: `${simulatorUrl}/`,
		apiKey: DEMO.apiKey,
	});
	const credential = { id: created.id, name: created.name };
	const imported: ImportedExample[] = [];
	for (const file of Object.values(EXAMPLES)) {
		const workflow = await n8n.api.createWorkflow(loadExample(file, credential));
		const active = file === EXAMPLES.callEnded;
		if (active) await n8n.api.activate(workflow.id);
		imported.push({ file, id: workflow.id, name: workflow.name, active });
	}
	return imported;
}

interface Listed {
	id: string;
	name: string;
	type?: string;
}

/** All pages of a public API listing (workflows, credentials). */
async function listAll(n8n: N8nInstance, path: string): Promise<Listed[]> {
	const all: Listed[] = [];
	let cursor: string | undefined;
	do {
		const query = new URLSearchParams({ limit: '250', ...(cursor ? { cursor } : {}) });
		const page = await n8n.api.publicApi<{ data: Listed[]; nextCursor?: string | null }>('GET', `${path}?${query}`);
		if (page.status !== 200) throw new Error(`GET /api/v1${path}: HTTP ${page.status} ${JSON.stringify(page.body)}`);
		all.push(...page.body.data);
		cursor = page.body.nextCursor ?? undefined;
	} while (cursor);
	return all;
}

/** A rerun replaces what the previous run created, so nothing is duplicated. */
async function removePreviousRun(n8n: N8nInstance): Promise<void> {
	const exampleNames = new Set(Object.values(EXAMPLES).map((file) => readExample(file).name));
	for (const workflow of await listAll(n8n, '/workflows')) {
		if (exampleNames.has(workflow.name)) await n8n.api.deleteWorkflow(workflow.id);
	}
	for (const credential of await listAll(n8n, '/credentials')) {
		if (credential.name === DEMO_CREDENTIAL_NAME && credential.type === CREDENTIAL_TYPE) await n8n.api.deleteCredential(credential.id);
	}
	// The harness adds an API key at every start; keep only this run's (listed redacted, ending like it).
	type ApiKey = { id: string; label: string; apiKey: string };
	const keys = await n8n.api.rest<{ data: ApiKey[] | { items: ApiKey[] } }>('GET', '/api-keys');
	const listed = keys.status !== 200 ? [] : Array.isArray(keys.body.data) ? keys.body.data : keys.body.data.items;
	for (const key of listed) {
		const visibleEnd = key.apiKey.replace(/^\*+/, '');
		if (key.label.startsWith('e2e ') && !n8n.apiKey.endsWith(visibleEnd)) await n8n.api.rest('DELETE', `/api-keys/${key.id}`);
	}
}
