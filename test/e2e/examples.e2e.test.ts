/**
 * The example workflows in examples/, imported through n8n's public API as users import them (only the
 * credential id substituted) and run against the simulator: one n8n per version for all of them.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
	DEMO_CREDENTIAL_NAME,
	EXAMPLES,
	HEADER_AUTH_CREDENTIAL_TYPE,
	HUMAN_REVIEW_EXAMPLE,
	MCP_EXAMPLE,
	WEBHOOK_SECRET_CREDENTIAL_NAME,
	WEBHOOK_SECRET_HEADER,
	loadExample,
	newWebhookSecret,
	readExample,
	webhookSecretData,
	type ExampleFile,
} from '../../scripts/examples.ts';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { type Execution, executionError, type N8nInstance, nodeOutput, simulatorCredential } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { assertBuilt } from './harness/package.ts';
import { ACTION_NODE_TYPE, CREDENTIAL_TYPE, node, PACKAGE_NAME, TRIGGER_NODE_TYPE, type CredentialRef, type WorkflowJson } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const SCHEDULE_TYPE = 'n8n-nodes-base.scheduleTrigger';
const WEBHOOK_TYPE = 'n8n-nodes-base.webhook';
const ALL_EXAMPLES: ExampleFile[] = [...Object.values(EXAMPLES), MCP_EXAMPLE, HUMAN_REVIEW_EXAMPLE];
/**
 * n8n's nodes that answer anyone at a public URL unless their Authentication is set (each defaults to None).
 * The package's trigger is not among them: it accepts only deliveries carrying its module's secret.
 */
const AUTHENTICATED_ENTRY_TYPES = [WEBHOOK_TYPE, '@n8n/n8n-nodes-langchain.mcpTrigger', '@n8n/n8n-nodes-langchain.chatTrigger'];

/** The examples that add contacts: each of their Add to Campaign nodes must cap a run's contacts. */
const ADDING_EXAMPLES: ExampleFile[] = [EXAMPLES.newLead, EXAMPLES.callThenAct, MCP_EXAMPLE, HUMAN_REVIEW_EXAMPLE];
const addToCampaignNodes = (file: ExampleFile) => readExample(file).nodes.filter((each) => each.parameters.operation === 'addToCampaign');

/** Every n8n Webhook node of the examples that n8n runs (those in EXAMPLES), with the URL path it answers on. */
const PUBLIC_WEBHOOKS = Object.values(EXAMPLES).flatMap((file) =>
	readExample(file)
		.nodes.filter((each) => each.type === WEBHOOK_TYPE)
		.map((each) => ({ file, node: each.name, path: each.parameters.path as string })),
);

/**
 * n8n has no public "run now" endpoint and the Schedule Trigger fires only at its hour, so the test runs
 * the daily check through a Webhook node standing in for the Schedule Trigger; every other node, and
 * the wiring after the trigger, is the example's own. (The unchanged example is activated separately.)
 */
/**
 * Call, then act on the outcome, with its waits shortened for the test: `secondsBetweenChecks` instead of
 * the shipped 5 minutes (n8n keeps a wait under 65 s in the running execution), and at most `maxChecks`.
 * Every node and connection is the example's own.
 */
function withShortChecks(workflow: WorkflowJson, secondsBetweenChecks: number, maxChecks: number): WorkflowJson {
	const nodes = workflow.nodes.map((each) => {
		if (each.name === 'Wait Between Checks') return { ...each, parameters: { ...each.parameters, amount: secondsBetweenChecks, unit: 'seconds' } };
		if (each.name !== 'Checks Left?') return each;
		const conditions = each.parameters.conditions as { conditions: Array<{ rightValue: unknown }> };
		return {
			...each,
			parameters: { ...each.parameters, conditions: { ...conditions, conditions: conditions.conditions.map((condition) => ({ ...condition, rightValue: maxChecks })) } },
		};
	});
	return { ...workflow, name: `${workflow.name} (short checks for the test)`, nodes };
}

function withWebhookInsteadOfSchedule(workflow: WorkflowJson, path: string): WorkflowJson {
	const schedule = workflow.nodes.find((each) => each.type === SCHEDULE_TYPE);
	if (!schedule) throw new Error(`${workflow.name} has no Schedule Trigger`);
	const standIn = node(
		'Run Check Now',
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
		{ webhookId: randomUUID(), position: schedule.position },
	);
	const { [schedule.name]: fromSchedule, ...otherConnections } = workflow.connections;
	return {
		...workflow,
		name: `${workflow.name} (webhook-driven for the test)`,
		nodes: workflow.nodes.map((each) => (each === schedule ? standIn : each)),
		connections: { ...otherConnections, [standIn.name]: fromSchedule },
	};
}

/**
 * The newest version of each of the package's node types, read from the built nodes' descriptions (the
 * files package.json's n8n block names), so a version added to a node raises the bar here by itself.
 */
function newestNodeVersions(): Map<string, number> {
	const root = process.cwd();
	assertBuilt(root);
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { n8n: { nodes: string[] } };
	const load = createRequire(join(root, 'package.json'));
	const newest = new Map<string, number>();
	for (const file of manifest.n8n.nodes) {
		for (const exported of Object.values(load(join(root, file)) as Record<string, new () => unknown>)) {
			const { description } = new exported() as { description: { name: string; version: number | number[] } };
			newest.set(`${PACKAGE_NAME}.${description.name}`, Math.max(...[description.version].flat()));
		}
	}
	return newest;
}

/** Polls `probe` until it returns something, for up to `timeoutMs`. */
async function until<T>(probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = probe();
		if (found !== undefined) return found;
		if (Date.now() > deadline) throw new Error(`nothing found within ${timeoutMs / 1000} s`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

describe('the example files', () => {
	it("use the newest version of each of the package's nodes, and between them show every node", () => {
		const newest = newestNodeVersions();
		expect([...newest.keys()].sort()).toEqual([ACTION_NODE_TYPE, TRIGGER_NODE_TYPE].sort());
		// An AI tool's type is the action node's with "Tool" appended; it shares the action node's versions.
		const nodeTypeOf = (type: string) => (newest.has(type.replace(/Tool$/, '')) ? type.replace(/Tool$/, '') : type);
		const used = [...Object.values(EXAMPLES), MCP_EXAMPLE, HUMAN_REVIEW_EXAMPLE].flatMap((file) =>
			readExample(file)
				.nodes.filter((each) => newest.has(nodeTypeOf(each.type)))
				.map((each) => ({ file, node: each.name, type: nodeTypeOf(each.type), typeVersion: each.typeVersion })),
		);
		expect(used).toEqual(used.map((each) => ({ ...each, typeVersion: newest.get(each.type) })));
		expect(new Set(used.map((each) => each.type))).toEqual(new Set(newest.keys()));
	});


	// Issue 66, point 1: every import of a shipped example would otherwise share its nodes' ids; n8n gives each imported node one.
	it('carry no node ids, so that no two imports of one example share a node id', () => {
		const withIds = [...Object.values(EXAMPLES), MCP_EXAMPLE, HUMAN_REVIEW_EXAMPLE].flatMap((file) =>
			readExample(file)
				.nodes.filter((each) => (each as { id?: unknown }).id !== undefined)
				.map((each) => `${file}: ${each.name}`),
		);
		expect(withIds).toEqual([]);
	});

	it('call-then-act-on-outcome, as shipped, checks every 5 minutes (a wait n8n stores, holding no slot), at most 12 times', () => {
		const shipped = readExample(EXAMPLES.callThenAct);
		const wait = shipped.nodes.find((each) => each.name === 'Wait Between Checks');
		const checksLeft = shipped.nodes.find((each) => each.name === 'Checks Left?');
		expect(wait?.parameters).toEqual(expect.objectContaining({ resume: 'timeInterval', amount: 5, unit: 'minutes' }));
		expect((checksLeft?.parameters.conditions as { conditions: Array<{ rightValue: unknown }> }).conditions.map((each) => each.rightValue)).toEqual([12]);
	});

	it.each(Object.values(EXAMPLES))('%s uses only core nodes and ours, its credentials by the demo\'s names, and explains itself', (file) => {
		const workflow = readExample(file);
		const demoNames: Record<string, string> = { [CREDENTIAL_TYPE]: DEMO_CREDENTIAL_NAME, [HEADER_AUTH_CREDENTIAL_TYPE]: WEBHOOK_SECRET_CREDENTIAL_NAME };
		for (const each of workflow.nodes) {
			expect([ACTION_NODE_TYPE, TRIGGER_NODE_TYPE].includes(each.type) || each.type.startsWith('n8n-nodes-base.')).toBe(true);
			for (const [type, reference] of Object.entries(each.credentials ?? {})) {
				expect({ type, name: reference.name }).toEqual({ type, name: demoNames[type] });
			}
		}
		expect(workflow.nodes.filter((each) => each.type === 'n8n-nodes-base.stickyNote')).toHaveLength(1);
		// Every connection joins nodes of the workflow.
		const names = new Set(workflow.nodes.map((each) => each.name));
		for (const [from, { main }] of Object.entries(workflow.connections)) {
			expect(names.has(from)).toBe(true);
			for (const target of main.flat()) expect(names.has(target.node)).toBe(true);
		}
	});

	it.each(ALL_EXAMPLES)('%s: every n8n node that answers at a public URL asks for authentication', (file) => {
		const entries = readExample(file).nodes.filter((each) => AUTHENTICATED_ENTRY_TYPES.includes(each.type));
		for (const each of entries) {
			const authentication = each.parameters.authentication;
			expect({ node: each.name, authenticates: typeof authentication === 'string' && authentication !== 'none' }).toEqual({ node: each.name, authenticates: true });
		}
		for (const webhook of entries.filter((entry) => entry.type === WEBHOOK_TYPE)) {
			expect({ node: webhook.name, authentication: webhook.parameters.authentication, credential: webhook.credentials?.[HEADER_AUTH_CREDENTIAL_TYPE]?.name }).toEqual({
				node: webhook.name,
				authentication: 'headerAuth',
				credential: WEBHOOK_SECRET_CREDENTIAL_NAME,
			});
		}
	});

	it.each(ADDING_EXAMPLES)('%s: every Add to Campaign (its contacts come from outside) caps the contacts one run adds', (file) => {
		const caps = addToCampaignNodes(file).map((each) => ({
			node: each.name,
			maxContactsPerRun: (each.parameters.options as { maxContactsPerRun?: unknown } | undefined)?.maxContactsPerRun,
		}));
		expect(caps).not.toEqual([]);
		expect(caps).toEqual(caps.map(({ node }) => ({ node, maxContactsPerRun: 1 })));
	});

	it('the other examples hold no Add to Campaign', () => {
		const others = ALL_EXAMPLES.filter((file) => !ADDING_EXAMPLES.includes(file));
		expect(others.map((file) => ({ file, addToCampaign: addToCampaignNodes(file).map((each) => each.name) }))).toEqual(
			others.map((file) => ({ file, addToCampaign: [] })),
		);
	});
});

describeEachVersion('the examples in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let credential: CredentialRef;
	let headerCredential: CredentialRef;
	/** This run's Header Auth secret: what a form or CRM that may post leads sends. */
	const webhookSecret = newWebhookSecret();
	const withSecret = { headers: { [WEBHOOK_SECRET_HEADER]: webhookSecret } };

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await sharedN8n(version);
		credential = await simulatorCredential(n8n.api, simulator.url, DEMO_CREDENTIAL_NAME);
		const created = await n8n.api.createCredential(WEBHOOK_SECRET_CREDENTIAL_NAME, HEADER_AUTH_CREDENTIAL_TYPE, webhookSecretData(webhookSecret));
		headerCredential = { id: created.id, name: created.name };
	});

	/** The example as users import it, with this run's credentials. */
	const load = (file: ExampleFile) => loadExample(file, credential, { [HEADER_AUTH_CREDENTIAL_TYPE]: headerCredential });

	afterAll(async () => {
		await simulator?.close();
	});

	beforeEach(() => simulator.reset());

	/** Imports the workflow, runs `body` with it, and deletes it again (also when the body fails). */
	async function withImported<T>(workflow: WorkflowJson, body: (workflowId: string) => Promise<T>): Promise<T> {
		const created = await n8n.api.createWorkflow(workflow);
		try {
			return await body(created.id);
		} finally {
			await n8n.api.deleteWorkflow(created.id);
		}
	}

	function succeeded(execution: Execution): Execution {
		expect({ status: execution.status, error: executionError(execution) }).toEqual({ status: 'success', error: undefined });
		return execution;
	}

	it('knows every node type and version the examples use', async () => {
		// A versioned node type is listed once per group of versions (Set 1-2, Set 3.x): merge them.
		const known = new Map<string, number[]>();
		for (const type of await n8n.api.nodeTypes()) known.set(type.name, [...(known.get(type.name) ?? []), type.version].flat());
		for (const file of Object.values(EXAMPLES)) {
			for (const each of readExample(file).nodes) {
				expect({ file, type: each.type, known: known.get(each.type)?.includes(each.typeVersion) }).toEqual({
					file,
					type: each.type,
					known: true,
				});
			}
		}
	});

	describe.each(PUBLIC_WEBHOOKS)('$file, Webhook node $node', ({ file, path }) => {
		const intruder = { first_name: 'Mallory', last_name: 'Anonymous', phone: '+14155550188', email: 'mallory@example.com', company: 'Nobody' };
		const sender = { first_name: 'Grace', last_name: 'Hopper', phone: '+14155550199', email: 'grace@example.com', company: 'Navy' };
		const storedPhones = (phone: string) => [...simulator.state.contacts.values()].filter((contact) => contact.phone_number === phone);

		it('refuses a POST without the secret header, or with a wrong one (403), and nothing reaches the service', async () => {
			// Call-then-act's run ends after its first check here, instead of checking for an hour.
			const workflow = file === EXAMPLES.callThenAct ? withShortChecks(load(file), 1, 1) : load(file);
			await withImported(workflow, async (workflowId) => {
				await n8n.api.activate(workflowId);

				const withoutHeader = await n8n.api.callWebhook(path, intruder);
				const wrongHeader = await n8n.api.callWebhook(path, intruder, { headers: { [WEBHOOK_SECRET_HEADER]: `${webhookSecret}x` } });

				expect([withoutHeader.status, wrongHeader.status]).toEqual([403, 403]);
				expect(simulator.requests).toEqual([]);

				// Then the sender that has the secret: n8n answers it after the refused ones, and only its run happened.
				const accepted = await n8n.api.callWebhook(path, sender, withSecret);
				expect(accepted.status).toBe(200);
				const executions = await n8n.api.waitForExecutions(workflowId, 1, 60_000);
				expect(executions).toHaveLength(1);
				succeeded(executions[0]);
				expect(storedPhones(sender.phone)).toHaveLength(1);
				expect(storedPhones(intruder.phone)).toEqual([]);
				expect(simulator.requests.filter((request) => JSON.stringify(request.body ?? null).includes(intruder.last_name))).toEqual([]);
			});
		});
	});

	it("call-ended-log-outcome: its trigger refuses a delivery without its module's secret (401), and nothing reaches the service", async () => {
		const trigger = readExample(EXAMPLES.callEnded).nodes.find((each) => each.type === TRIGGER_NODE_TYPE);
		if (!trigger?.webhookId) throw new Error(`${EXAMPLES.callEnded} has no trigger with a webhookId`);
		await withImported(load(EXAMPLES.callEnded), async (workflowId) => {
			await n8n.api.activate(workflowId);
			const afterActivation = simulator.requests.length;
			const contactId = [...simulator.state.contacts.keys()][0];

			const forged = await n8n.api.callWebhook(`${trigger.webhookId}/webhook`, { event_type: 'call.ended', data: { contact_id: contactId } });

			expect(forged.status).toBe(401);
			expect(simulator.requests.slice(afterActivation)).toEqual([]);
			// A call the service reports runs it: the forged delivery started no execution before it.
			await simulator.playCall();
			const executions = await n8n.api.waitForExecutions(workflowId, 1);
			expect(executions).toHaveLength(1);
			succeeded(executions[0]);
		});
	});

	it('new-lead-to-campaign: a lead posted to its webhook lands in the demo campaign', async () => {
		const lead = { first_name: 'Margaret', last_name: 'Hamilton', phone: '(415) 555-0177', email: 'margaret@example.com', company: 'Apollo Labs' };
		await withImported(load(EXAMPLES.newLead), async (workflowId) => {
			await n8n.api.activate(workflowId);

			const reply = await n8n.api.callWebhook('new-lead', lead, withSecret);

			expect(reply.status).toBe(200);
			expect(reply.body).toEqual(expect.objectContaining({ campaignId: DEMO.campaignId, added: 1 }));
			const stored = [...simulator.state.contacts.values()].filter((contact) => contact.phone_number === '+14155550177');
			expect(stored).toEqual([
				expect.objectContaining({
					firstname: 'Margaret',
					lastname: 'Hamilton',
					campaign_id: DEMO.campaignId,
					metadata: { email: 'margaret@example.com', company_name: 'Apollo Labs', source: 'web form' },
				}),
			]);
			expect(simulator.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
				`POST /compaign/v1/contacts/addToCampaign/${DEMO.campaignId}`,
			]);
			succeeded((await n8n.api.waitForExecutions(workflowId, 1))[0]);
		});
	});

	it('call-ended-log-outcome: a played call runs it, and its last node holds the contact\'s call outcome', async () => {
		await withImported(load(EXAMPLES.callEnded), async (workflowId) => {
			await n8n.api.activate(workflowId);
			const modules = [...simulator.state.webhookModules.values()].map((owned) => owned.record.event_type);
			expect(modules).toEqual(['call.ended']);

			const call = await simulator.playCall();

			expect(call.ended).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
			const [execution] = await n8n.api.waitForExecutions(workflowId, 1);
			succeeded(execution);
			const lastNode = execution.data?.resultData.lastNodeExecuted;
			expect(lastNode).toBe('Call Outcome');
			expect(nodeOutput(execution, lastNode as string)).toEqual([
				{
					name: `${call.contact.firstname} ${call.contact.lastname}`,
					phone: call.contact.phone_number,
					last_call_status: call.contact.last_call_status,
					duration: call.contact.last_call_duration,
					feedback: call.contact.last_call_feedback,
				},
			]);
			expect(call.contact.last_call_status).toBe('completed');
		});
	});

	describe('call-then-act-on-outcome', () => {
		const lead = { first_name: 'Katherine', last_name: 'Johnson', phone: '+14155550166' };

		/** Activates the example with short checks, posts the lead, and returns the contact the service stored for it. */
		async function postLead(workflowId: string) {
			await n8n.api.activate(workflowId);
			const reply = await n8n.api.callWebhook('call-then-act', lead, withSecret);
			expect(reply.status).toBe(200);
			const contact = await until(() => [...simulator.state.contacts.values()].find((each) => each.phone_number === lead.phone));
			expect(contact).toEqual(expect.objectContaining({ firstname: 'Katherine', campaign_id: DEMO.campaignId, last_call_status: null }));
			return contact;
		}

		const checksOf = (contactId: string) => simulator.requests.filter((request) => request.method === 'GET' && request.path === `/contacts/${contactId}`).length;

		it('adds the lead, checks until its call ended, and ends in Follow Up with the outcome read after the call', async () => {
			await withImported(withShortChecks(load(EXAMPLES.callThenAct), 1, 60), async (workflowId) => {
				const contact = await postLead(workflowId);
				// The call is placed only after a check found no outcome yet: the workflow waited and checked again.
				await until(() => checksOf(contact.id) >= 1 || undefined);
				const call = await simulator.playCall({ contactId: contact.id });

				const [execution] = await n8n.api.waitForExecutions(workflowId, 1, 120_000);
				succeeded(execution);
				const ran = execution.data?.resultData.runData ?? {};
				expect(execution.data?.resultData.lastNodeExecuted).toBe('Follow Up');
				expect(ran['Checks Left?']?.length).toBeGreaterThanOrEqual(1);
				expect(ran['Get Contact']?.length).toBe(checksOf(contact.id));
				expect(Object.keys(ran)).not.toContain('Not Completed');
				expect(Object.keys(ran)).not.toContain('No Outcome Yet');
				expect(nodeOutput(execution, 'Follow Up')).toEqual([
					{
						name: 'Katherine Johnson',
						phone: lead.phone,
						last_call_status: 'completed',
						last_call_at: call.contact.last_call_at,
						last_call_feedback: call.contact.last_call_feedback,
					},
				]);
			});
		});

		it('sends an outcome other than completed to Not Completed', async () => {
			await withImported(withShortChecks(load(EXAMPLES.callThenAct), 1, 60), async (workflowId) => {
				const contact = await postLead(workflowId);
				await until(() => checksOf(contact.id) >= 1 || undefined);
				Object.assign(simulator.state.contacts.get(contact.id) ?? {}, { last_call_status: 'no-answer', last_call_at: new Date().toISOString(), last_call_feedback: null });

				const [execution] = await n8n.api.waitForExecutions(workflowId, 1, 120_000);
				succeeded(execution);
				expect(execution.data?.resultData.lastNodeExecuted).toBe('Not Completed');
				expect(nodeOutput(execution, 'Not Completed')).toEqual([
					expect.objectContaining({ name: 'Katherine Johnson', last_call_status: 'no-answer', last_call_feedback: '' }),
				]);
			});
		});

		it('against a service whose Add to Campaign answer holds no contact id: fails at once, before any wait, saying what to do', async () => {
			// The simulator answers Add to Campaign `data: null` (its null-data fault): an answer without an id.
			simulator.injectFault({ kind: 'null-data', method: 'POST', path: '/compaign/v1/contacts/addToCampaign/', times: 1 });
			await withImported(withShortChecks(load(EXAMPLES.callThenAct), 1, 3), async (workflowId) => {
				await n8n.api.activate(workflowId);
				const posted = Date.now();
				const reply = await n8n.api.callWebhook('call-then-act', lead, withSecret);
				expect(reply.status).toBe(200);

				const [execution] = await n8n.api.waitForExecutions(workflowId, 1, 60_000);
				const ran = Object.keys(execution.data?.resultData.runData ?? {});
				log(`n8n ${version}: call-then-act without a contact id: ${execution.status} after ${((Date.now() - posted) / 1000).toFixed(1)} s, at ${execution.data?.resultData.lastNodeExecuted}: ${executionError(execution)?.message}`);
				expect(execution.status).toBe('error');
				expect(execution.data?.resultData.lastNodeExecuted).toBe('No Contact ID');
				expect(executionError(execution)?.message).toMatch(/^Add to Campaign's answer holds no contact id \(result\.id\), so this workflow cannot read the contact's call outcome; nothing waits\. .* Campaign Calling Trigger on Call: Ended .* call-ended-for-campaign\.json/);
				expect(ran).not.toContain('Wait Between Checks');
				expect(simulator.requests.map((request) => request.method)).toEqual(['POST']);
			});
		});

		it('stops after its last check when no call ended, in No Outcome Yet', async () => {
			await withImported(withShortChecks(load(EXAMPLES.callThenAct), 1, 3), async (workflowId) => {
				const contact = await postLead(workflowId);

				const [execution] = await n8n.api.waitForExecutions(workflowId, 1, 120_000);
				succeeded(execution);
				expect(execution.data?.resultData.lastNodeExecuted).toBe('No Outcome Yet');
				expect(checksOf(contact.id)).toBe(3);
				expect(nodeOutput(execution, 'No Outcome Yet')).toEqual([{ name: 'Katherine Johnson', phone: lead.phone, last_call_status: '' }]);
			});
		});
	});

	describe('call-ended-for-campaign (no contact id needed)', () => {
		it('a call of its campaign runs it to Follow Up with the outcome the event carries; a call outside the campaign goes no further than This Campaign?', async () => {
			await withImported(load(EXAMPLES.callEndedForCampaign), async (workflowId) => {
				await n8n.api.activate(workflowId);

				const call = await simulator.playCall({ campaignId: DEMO.campaignId });
				const [inCampaign] = await n8n.api.waitForExecutions(workflowId, 1);
				succeeded(inCampaign);
				expect(inCampaign.data?.resultData.lastNodeExecuted).toBe('Follow Up');
				expect(nodeOutput(inCampaign, 'Follow Up')).toEqual([
					expect.objectContaining({ phone: call.contact.phone_number, status: 'completed', duration: call.contact.last_call_duration, feedback: call.contact.last_call_feedback }),
				]);

				await simulator.playCall({ contactId: DEMO.unassignedContactId });
				const outside = succeeded((await n8n.api.waitForExecutions(workflowId, 2))[1]);
				expect(Object.keys(outside.data?.resultData.runData ?? {}).sort()).toEqual(['Call Ended', 'This Campaign?']);
				// The workflow reads no contact: no request reaches the service after activation.
				expect(simulator.requests.filter((request) => request.method === 'GET')).toEqual([]);
			});
		});
	});

	it('daily-campaign-check: activates as shipped, and routes an active campaign on track and a paused or slow one to Flag Campaign', async () => {
		// The example as shipped: n8n accepts its Schedule Trigger (it would fire at 8:00 only).
		await withImported(load(EXAMPLES.dailyCheck), async (workflowId) => {
			await n8n.api.activate(workflowId);
			expect((await n8n.api.publicApi<{ active: boolean }>('GET', `/workflows/${workflowId}`)).body.active).toBe(true);
		});

		const campaign = simulator.state.campaigns.get(DEMO.campaignId)?.record;
		if (!campaign) throw new Error('the demo campaign is missing');
		await withImported(withWebhookInsteadOfSchedule(load(EXAMPLES.dailyCheck), 'daily-check'), async (workflowId) => {
			await n8n.api.activate(workflowId);
			const runCheck = async (runs: number) => {
				const reply = await n8n.api.callWebhook('daily-check', {});
				expect(reply.status).toBe(200);
				const execution = succeeded((await n8n.api.waitForExecutions(workflowId, runs))[runs - 1]);
				const ran = Object.keys(execution.data?.resultData.runData ?? {});
				return { ran, execution };
			};

			// Seeded: active, call_progress 35.
			const onTrack = await runCheck(1);
			expect(onTrack.ran).toContain('On Track');
			expect(onTrack.ran).not.toContain('Flag Campaign');

			campaign.status = 'paused';
			const paused = await runCheck(2);
			expect(paused.ran).not.toContain('On Track');
			expect(nodeOutput(paused.execution, 'Flag Campaign')).toEqual([
				{ campaign: `${campaign.name} (${DEMO.campaignId})`, status: 'paused', call_progress: 35, alert: 'The campaign is paused, not active.' },
			]);

			campaign.status = 'active';
			campaign.call_progress = 5;
			const slow = await runCheck(3);
			expect(slow.ran).not.toContain('On Track');
			expect(nodeOutput(slow.execution, 'Flag Campaign')).toEqual([
				expect.objectContaining({ status: 'active', call_progress: 5, alert: 'Only 5% of the calls are made.' }),
			]);
		});
	});
});
