/**
 * The webhook modules the simulator holds (per company, per webhook URL), deliveries sent through one of
 * them with its own headers, as the service sends them, and what the trigger wrote to n8n's log. For the
 * cases where what a module was registered for (account, webhook URL, settings, node) changed since.
 */
import { randomUUID } from 'node:crypto';
import { DEMO, type Simulator } from '../../simulator/server.ts';
import { countBy, executionsBeforeMarker, itemsOf, sendDelivery, settleMarker, type DeliveryAnswer } from './deliveries.ts';
import type { N8nInstance } from './n8n.ts';
import { sleep } from './process.ts';
import { CREDENTIAL_TYPE, TRIGGER_NODE_NAME, type CredentialRef } from './workflows.ts';

/** The simulator's two companies as the cases name them: A holds DEMO.apiKey, B DEMO.otherApiKey. */
export type Company = 'A' | 'B';

export interface HeldModule {
	id: string;
	company: Company;
	event: string;
	url: string;
	timeout: number;
	retryLimit: number;
	/** The headers the service sends with each delivery: the trigger's secret among them. */
	headers: Record<string, string>;
}

/** The modules the simulator holds, oldest first; only those delivering to `url` when given. */
export function heldModules(simulator: Simulator, url?: string): HeldModule[] {
	return [...simulator.state.webhookModules.values()]
		.filter(({ record }) => url === undefined || record.settings.url === url)
		.map(({ companyId, record }) => ({
			id: record.id,
			company: companyId === DEMO.otherCompanyId ? 'B' : 'A',
			event: record.event_type,
			url: record.settings.url,
			timeout: record.settings.timeout,
			retryLimit: record.settings.retry_limit,
			headers: record.settings.headers,
		}));
}

/** How many modules each company holds, e.g. `{ A: 1, B: 1 }`. */
export const perCompany = (modules: HeldModule[]) => countBy(modules, (module) => module.company);

/** A `call.ended` event of the module's company carrying `marker`, as the service would send it. */
export function eventThrough(module: HeldModule, marker: string): Record<string, unknown> {
	return {
		event_type: module.event,
		event_id: randomUUID(),
		occurred_at: new Date().toISOString(),
		company_id: module.company === 'B' ? DEMO.otherCompanyId : DEMO.companyId,
		data: { marker, call_id: randomUUID() },
	};
}

/** One attempt of a delivery through `module`: to its URL, with its own headers and a JSON body. */
export async function deliverThrough(module: HeldModule, body: unknown): Promise<DeliveryAnswer> {
	return await sendDelivery(module.url, {
		headers: [['content-type', 'application/json'], ...Object.entries(module.headers)],
		body: JSON.stringify(body),
	});
}

/** The trigger's `data.marker` values in an execution's output of `nodeName`. */
const markersIn = (execution: Parameters<typeof itemsOf>[0], nodeName: string) =>
	itemsOf(execution, nodeName).map((item) => (item.data as { marker?: unknown } | undefined)?.marker);

/**
 * How often each marker ran, once n8n has handled every delivery answered so far: a settle event is sent
 * through the first of `modules` that accepts it (executionsBeforeMarker), and the workflow's other
 * executions are read. `executions` counts them all (settle events left out).
 */
export async function runsOf(
	n8n: N8nInstance,
	workflowId: string,
	modules: HeldModule[],
	markers: string[],
	nodeName = TRIGGER_NODE_NAME,
): Promise<{ executions: number; runs: Record<string, number> }> {
	const refused: string[] = [];
	for (const module of modules) {
		const marker = settleMarker();
		const answer = await deliverThrough(module, eventThrough(module, marker));
		if (answer.status !== 200) {
			refused.push(`${module.id}: ${answer.status}`);
			continue;
		}
		const executions = await executionsBeforeMarker(n8n, workflowId, marker);
		const seen = executions.flatMap((execution) => markersIn(execution, nodeName));
		return { executions: executions.length, runs: Object.fromEntries(markers.map((each) => [each, seen.filter((run) => run === each).length])) };
	}
	throw new Error(`No module accepted a settle delivery (${refused.join(', ') || 'no module given'}): cannot tell when n8n has handled the deliveries`);
}

/** The lines the package's trigger wrote to n8n's log after the first `since` characters. */
export function triggerLogLines(n8n: N8nInstance, since = 0): string[] {
	return n8n
		.logs()
		.slice(since)
		.split('\n')
		.filter((line) => line.includes('Campaign Calling Trigger'));
}

/**
 * The first line of n8n's log after `since` characters that has `text`, polled until `timeoutMs`
 * (n8n writes a warning a moment after the answer it goes with); undefined when none came.
 */
export async function logLineWith(n8n: N8nInstance, since: number, text: string, timeoutMs = 10_000): Promise<string | undefined> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const line = n8n
			.logs()
			.slice(since)
			.split('\n')
			.find((each) => each.includes(text));
		if (line !== undefined || Date.now() > deadline) return line;
		await sleep(250);
	}
}

/**
 * Saves new data in a credential, as its dialog's Save does. n8n 2.x's public API has
 * `PATCH /api/v1/credentials/:id` (data replaced unless isPartialData); 1.x's has no update, so there it
 * is the editor's `PATCH /rest/credentials/:id` (data replaced, redacted values taken from the old data).
 */
export async function editCredential(n8n: N8nInstance, credential: CredentialRef, data: Record<string, unknown>): Promise<void> {
	const schema = await n8n.api.publicApi<{ properties?: Record<string, unknown> }>('GET', `/credentials/schema/${CREDENTIAL_TYPE}`);
	const complete = schema.body.properties?.allowedHttpRequestDomains ? { allowedHttpRequestDomains: 'all', ...data } : data;
	const answer = n8n.version.startsWith('2.')
		? await n8n.api.publicApi('PATCH', `/credentials/${credential.id}`, { data: complete })
		: await n8n.api.rest('PATCH', `/credentials/${credential.id}`, { name: credential.name, type: CREDENTIAL_TYPE, data: complete });
	if (answer.status !== 200) throw new Error(`Editing credential ${credential.id}: HTTP ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
}

/** n8n 2.x publishes through an outbox after its API answered: waits until the workflow's publication settled. 1.x has none. */
export async function publicationSettled(n8n: N8nInstance, workflowId: string, timeoutMs = 60_000): Promise<string | undefined> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const answer = await n8n.api.rest<{ data: { status: string } }>('GET', `/workflows/${workflowId}/publication-status`);
		if (answer.status === 404) return undefined;
		const status = answer.body.data?.status;
		if (status !== 'in_progress') return status;
		if (Date.now() > deadline) throw new Error(`Publishing workflow ${workflowId} did not settle within ${timeoutMs / 1000} s`);
		await sleep(200);
	}
}
