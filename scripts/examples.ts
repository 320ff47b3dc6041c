/**
 * The example workflows in examples/, as the public API takes them, and the demo's set-up of them in an
 * n8n: shared by `npm run demo`, `npm run screenshots` and the examples e2e test, so all of them import
 * exactly what users import.
 */
import { randomBytes } from 'node:crypto';
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
	callThenAct: 'call-then-act-on-outcome.json',
	callEndedForCampaign: 'call-ended-for-campaign.json',
} as const;

/**
 * The MCP example (the action node's tools behind n8n's MCP Server Trigger): imported and published by the
 * demo like the others, but kept out of EXAMPLES, whose files use only core nodes and ours.
 */
export const MCP_EXAMPLE = 'mcp-campaign-tools.json' as const;
/**
 * The demo's bearer credential for the MCP trigger. Its token is the demo's own random secret (the one the
 * Webhook nodes' Header Auth takes), never a value written here: the MCP tools add contacts to campaigns.
 */
export const MCP_BEARER_CREDENTIAL_NAME = 'MCP bearer token (demo)';
const BEARER_CREDENTIAL_TYPE = 'httpBearerAuth';
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';

/**
 * n8n 2.x's human review of an agent's Add to Campaign tool, through n8n's Chat. The demo imports it
 * unpublished, with a placeholder OpenAI credential: it needs a real model to run.
 */
export const HUMAN_REVIEW_EXAMPLE = 'agent-human-review.json' as const;
export const OPENAI_PLACEHOLDER_CREDENTIAL_NAME = 'OpenAI account';
const OPENAI_CREDENTIAL_TYPE = 'openAiApi';

/**
 * The Header Auth credential the examples' public Webhook nodes ask for: a request without its header is
 * refused before the workflow runs, so no one who merely finds the URL can add contacts (billed calls).
 */
export const WEBHOOK_SECRET_CREDENTIAL_NAME = 'Lead webhook secret (demo)';
export const HEADER_AUTH_CREDENTIAL_TYPE = 'httpHeaderAuth';
/** The header the demo's Header Auth credential names; users choose their own in the credential. */
export const WEBHOOK_SECRET_HEADER = 'X-Webhook-Secret';

/** A new random value for the Header Auth credential (256 bits), never a fixed, published one. */
export function newWebhookSecret(): string {
	return randomBytes(32).toString('base64url');
}

/** The Header Auth credential's data: the header to send and the value it must carry. */
export function webhookSecretData(secret: string): { name: string; value: string } {
	return { name: WEBHOOK_SECRET_HEADER, value: secret };
}

export type ExampleFile = (typeof EXAMPLES)[keyof typeof EXAMPLES] | typeof MCP_EXAMPLE | typeof HUMAN_REVIEW_EXAMPLE;

/** The example as stored (repo root = process.cwd(), as for every script here). */
export function readExample(file: ExampleFile): WorkflowJson {
	return JSON.parse(readFileSync(join(process.cwd(), 'examples', file), 'utf8')) as WorkflowJson;
}

/**
 * The example with every Campaign Calling credential reference pointed at `credential` (and the MCP trigger's
 * bearer credential at `bearer`, when given).
 */
export function loadExample(file: ExampleFile, credential: CredentialRef, others: Record<string, CredentialRef> = {}): WorkflowJson {
	const workflow = readExample(file);
	for (const node of workflow.nodes) {
		for (const [type, reference] of Object.entries({ ...others, [CREDENTIAL_TYPE]: credential })) {
			if (node.credentials?.[type]) node.credentials[type] = { id: reference.id, name: reference.name };
		}
	}
	return workflow;
}

/** The MCP example's trigger path: its production URL is `<webhook URL>mcp/<path>`. */
export function mcpExamplePath(): string {
	const trigger = readExample(MCP_EXAMPLE).nodes.find((node) => node.type === MCP_TRIGGER_TYPE);
	if (typeof trigger?.parameters.path !== 'string') throw new Error(`${MCP_EXAMPLE} has no MCP Server Trigger with a path`);
	return trigger.parameters.path;
}

export interface ImportedExample {
	file: ExampleFile;
	id: string;
	name: string;
	active: boolean;
	/** Found from an earlier run and left as it was (with whatever the user changed in it). */
	kept: boolean;
}

/**
 * The demo's set-up in a running n8n. A first run creates the credential pointing at the simulator (and the
 * Webhook nodes' Header Auth credential, the MCP trigger's bearer credential and a placeholder OpenAI one),
 * imports the five examples, the MCP example and the human review example, and activates the trigger example
 * (which registers its call.ended webhook at the simulator) and the MCP example. Later runs keep what is
 * there, a user's edits included: they import only examples that are missing (matched by name), point the
 * credential at this run's simulator and set the Header Auth and bearer credentials to `demoSecret`.
 */
export async function installExamples(n8n: N8nInstance, simulatorUrl: string, demoSecret: string): Promise<ImportedExample[]> {
	await removeOlderApiKeys(n8n);
	const credential = await upsertCredential(n8n, DEMO_CREDENTIAL_NAME, CREDENTIAL_TYPE, { baseUrl: `${simulatorUrl}/`, apiKey: DEMO.apiKey });
	const others = {
		[HEADER_AUTH_CREDENTIAL_TYPE]: await upsertCredential(n8n, WEBHOOK_SECRET_CREDENTIAL_NAME, HEADER_AUTH_CREDENTIAL_TYPE, webhookSecretData(demoSecret)),
		[BEARER_CREDENTIAL_TYPE]: await upsertCredential(n8n, MCP_BEARER_CREDENTIAL_NAME, BEARER_CREDENTIAL_TYPE, { token: demoSecret }),
		[OPENAI_CREDENTIAL_TYPE]: await keptCredential(n8n, OPENAI_PLACEHOLDER_CREDENTIAL_NAME, OPENAI_CREDENTIAL_TYPE, { apiKey: 'replace-with-your-key' }),
	};
	const existing = await listAll(n8n, '/workflows');
	const imported: ImportedExample[] = [];
	for (const file of [...Object.values(EXAMPLES), MCP_EXAMPLE, HUMAN_REVIEW_EXAMPLE] as ExampleFile[]) {
		const example = loadExample(file, credential, others);
		const kept = existing.find((workflow) => workflow.name === example.name);
		if (kept) {
			imported.push({ file, id: kept.id, name: kept.name, active: kept.active === true, kept: true });
			continue;
		}
		const workflow = await n8n.api.createWorkflow(example);
		const active = file === EXAMPLES.callEnded || file === MCP_EXAMPLE;
		if (active) await n8n.api.activate(workflow.id);
		imported.push({ file, id: workflow.id, name: workflow.name, active, kept: false });
	}
	return imported;
}

/**
 * A credential the demo sets on every run: created on the first, updated after (the simulator has a new port
 * each run; the webhook secret is the one the demo prints).
 */
async function upsertCredential(n8n: N8nInstance, name: string, type: string, data: Record<string, unknown>): Promise<CredentialRef> {
	const found = (await listAll(n8n, '/credentials')).find((credential) => credential.name === name && credential.type === type);
	if (!found) {
		const created = await n8n.api.createCredential(name, type, data);
		return { id: created.id, name: created.name };
	}
	const updated = await n8n.api.rest('PATCH', `/credentials/${found.id}`, { name, type, data });
	if (updated.status !== 200) throw new Error(`Updating the credential "${name}": HTTP ${updated.status} ${JSON.stringify(updated.body)}`);
	return { id: found.id, name: found.name };
}

/** A credential the examples use besides ours (the MCP bearer token, the model's), created on the first run and kept after. */
async function keptCredential(n8n: N8nInstance, name: string, type: string, data: Record<string, unknown>): Promise<CredentialRef> {
	const found = (await listAll(n8n, '/credentials')).find((credential) => credential.name === name && credential.type === type);
	if (found) return { id: found.id, name: found.name };
	const created = await n8n.api.createCredential(name, type, data);
	return { id: created.id, name: created.name };
}

interface Listed {
	id: string;
	name: string;
	type?: string;
	active?: boolean;
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

/** The harness adds an API key at every start: keep only this run's, so reruns do not pile them up. */
async function removeOlderApiKeys(n8n: N8nInstance): Promise<void> {
	// Listed redacted: this run's is the one that ends like ours.
	type ApiKey = { id: string; label: string; apiKey: string };
	const keys = await n8n.api.rest<{ data: ApiKey[] | { items: ApiKey[] } }>('GET', '/api-keys');
	const listed = keys.status !== 200 ? [] : Array.isArray(keys.body.data) ? keys.body.data : keys.body.data.items;
	for (const key of listed) {
		const visibleEnd = key.apiKey.replace(/^\*+/, '');
		if (key.label.startsWith('e2e ') && !n8n.apiKey.endsWith(visibleEnd)) await n8n.api.rest('DELETE', `/api-keys/${key.id}`);
	}
}
