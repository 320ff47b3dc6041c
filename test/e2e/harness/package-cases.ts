/**
 * The package's cases inside a real n8n, against the simulator: every action operation, error envelopes
 * with and without Continue On Fail, the credential's Test button, and the trigger's activation, delivery,
 * verification and Ignore Repeats. Shared by the single-process suite (nodes.e2e) and the queue-mode
 * suite (queue.e2e): call it inside a describe block.
 */
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { addMappedLeads, leadFields } from '../../helpers/actionParameters.ts';
import { settledExecutions } from './deliveries.ts';
import { executionError, nodeOutput, type Execution, type N8nInstance } from './n8n.ts';
import {
	CREDENTIAL_TYPE,
	TRIGGER_NODE_NAME,
	campaignCallingNode,
	campaignCallingTriggerNode,
	splitOutNode,
	triggerWorkflow,
	webhookDriven,
	type CredentialRef,
	type WorkflowNode,
} from './workflows.ts';

const SECRET_HEADER = 'x-campaign-calling-secret';

export interface PackageCaseOptions<T extends N8nInstance> {
	/** Starts the n8n the cases run in (with the package installed), once for the block; stopped after it. */
	start: () => Promise<T>;
	/** Called with every execution a case waited for, e.g. to check which process ran it. */
	checkExecution?: (n8n: T, execution: Execution) => Promise<void> | void;
}

export function packageCases<T extends N8nInstance>(options: PackageCaseOptions<T>): void {
	let n8n: T;
	let simulator: Simulator;
	let credential: CredentialRef;
	let credentialData: Record<string, unknown>;
	let counter = 0;

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await options.start();
		credentialData = { baseUrl: `${simulator.url}/`, apiKey: DEMO.apiKey };
		const created = await n8n.api.createCredential('Campaign Calling (simulator)', CREDENTIAL_TYPE, credentialData);
		credential = { id: created.id, name: created.name };
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
	});

	beforeEach(() => simulator.reset());

	/** Creates and activates a webhook-driven workflow, calls it once, and cleans it up. */
	async function runThrough(nodes: WorkflowNode[], body: unknown) {
		const path = `case-${++counter}`;
		const workflow = await n8n.api.createWorkflow(webhookDriven(path, nodes));
		try {
			await n8n.api.activate(workflow.id);
			const reply = await n8n.api.callWebhook(path, body);
			const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
			await options.checkExecution?.(n8n, execution);
			return { reply, execution };
		} finally {
			await n8n.api.deleteWorkflow(workflow.id);
		}
	}

	const action = (parameters: Record<string, unknown>, extra: Partial<WorkflowNode> = {}) => ({
		...campaignCallingNode('Campaign Calling', parameters, credential),
		...extra,
	});

	it('Contact → Add to Campaign batches 250 leads into 3 requests and pairs every output item', async () => {
		const leads = leadFields(250);
		const { reply, execution } = await runThrough([splitOutNode('Leads', 'body.leads'), action(addMappedLeads())], { leads });
		expect(execution.status).toBe('success');
		const posts = simulator.requests.filter((request) => request.path.startsWith('/compaign/v1/contacts/addToCampaign/'));
		expect(posts.map((request) => (request.body as unknown[]).length)).toEqual([100, 100, 50]);
		expect(posts[0].headers.authorization).toBe(`Bearer ${DEMO.apiKey}`);
		const output = reply.body as Array<Record<string, any>>;
		expect(output).toHaveLength(250);
		expect(output[3].contact).toEqual({ firstname: 'Lead3', lastname: 'Doe', phone_number: '+14155550003' });
		expect(output[3].result.campaign_id).toBe(DEMO.campaignId);
	});

	it('Contact → Add to Campaign with expressions beyond {{ $json.x }} gets what n8n itself evaluates', async () => {
		const leads = [
			{ first: '  Ada ', last: 'Lovelace', n: 1, phone: '+1 415 555 0101' },
			{ last: 'Nobody', n: 2, phone: '+1 415 555 0102' },
			{ first: 'Grace', last: 'Hopper', n: 3, phone: '+1 415 555 0103' },
		];
		const { execution } = await runThrough(
			[
				splitOutNode('Leads', 'body.leads'),
				action(
					{
						resource: 'contact',
						operation: 'addToCampaign',
						campaignId: DEMO.campaignId,
						// Evaluated together in one pass; the second item's .trim() fails and is left to n8n.
						firstName: '={{ $json.first.trim() }}',
						// A template with text around it: evaluated by n8n field by field.
						lastName: '={{ $json.last }}-{{ $json.n }}',
						phoneNumber: "={{ $json.phone.replace(/ /g, '') }}",
						additionalFields: { metadata: '={{ JSON.stringify({ rank: $json.n * 2 }) }}' },
					},
					{ onError: 'continueRegularOutput' },
				),
			],
			{ leads },
		);
		expect(execution.status).toBe('success');
		const output = nodeOutput(execution, 'Campaign Calling') as Array<Record<string, any>>;
		expect(output).toHaveLength(3);
		expect(output[0].contact).toEqual({ firstname: 'Ada', lastname: 'Lovelace-1', phone_number: '+14155550101', metadata: { rank: 2 } });
		expect(output[1]).toEqual(expect.objectContaining({ error: expect.any(String) }));
		expect(output[2].contact).toEqual({ firstname: 'Grace', lastname: 'Hopper-3', phone_number: '+14155550103', metadata: { rank: 6 } });
	});

	it('Contact → Add to Campaign in Auto-Map mode reads each item\'s own fields', async () => {
		const { reply } = await runThrough(
			[splitOutNode('Leads', 'body.leads'), action({ resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' })],
			{ leads: [{ first_name: 'Ada', lastName: 'Lovelace', phone: '(415) 555-0100', metadata: { email: 'ada@example.com' } }] },
		);
		expect((reply.body as Array<Record<string, any>>)[0].contact).toEqual({
			firstname: 'Ada',
			lastname: 'Lovelace',
			phone_number: '(415) 555-0100',
			metadata: { email: 'ada@example.com' },
		});
	});

	it('Contact → Get returns the contact with its last call', async () => {
		const { reply } = await runThrough([action({ resource: 'contact', operation: 'get', contactId: '={{ $json.body.id }}' })], {
			id: DEMO.completedContactId,
		});
		expect(reply.body).toEqual([expect.objectContaining({ id: DEMO.completedContactId, last_call_status: 'completed' })]);
	});

	it('Campaign → Get and Update', async () => {
		const got = await runThrough([action({ resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId })], {});
		expect(got.reply.body).toEqual([expect.objectContaining({ id: DEMO.campaignId })]);

		const updated = await runThrough(
			[
				action({
					resource: 'campaign',
					operation: 'update',
					campaignId: DEMO.campaignId,
					updateFields: { name: 'Spring follow-up', daysOfWeek: '1,2,3', contactsListTags: 'hot, warm' },
				}),
			],
			{},
		);
		expect(updated.execution.status).toBe('success');
		const sent = simulator.requests.find((request) => request.path.startsWith('/v1/campaigns/update/'));
		expect(sent?.body).toEqual({ name: 'Spring follow-up', days_of_week: [1, 2, 3], contacts_list_tags: ['hot', 'warm'] });
	});

	it('Webhook Flow → Get Many returns one item per flow, within Limit', async () => {
		const { reply } = await runThrough([action({ resource: 'webhookFlow', operation: 'getAll', workspaceId: 'default', limit: 1 })], {});
		expect(reply.body).toEqual([expect.objectContaining({ id: DEMO.outboundFlowId })]);
		expect(simulator.requests[0].query).toEqual({ workspaceId: 'default' });
	});

	it('Integration → Create and Webhook Module → Create send the contract\'s bodies', async () => {
		const headers = { header: [{ name: 'X-Api-Key', value: 'abc' }] };
		const integration = await runThrough(
			[action({ resource: 'integration', operation: 'create', integrationType: 'slack', url: 'https://hooks.example.com/a', options: { headers, timeout: 10, retryLimit: 1 } })],
			{},
		);
		expect(integration.reply.body).toEqual([expect.objectContaining({ type: 'slack', status: 'active' })]);
		const module = await runThrough(
			[action({ resource: 'webhookModule', operation: 'create', eventType: 'call.ended', url: 'https://hooks.example.com/b', options: { method: 'PUT' } })],
			{},
		);
		expect(module.reply.body).toEqual([expect.objectContaining({ event_type: 'call.ended' })]);
		const bodies = simulator.requests.filter((request) => request.path.startsWith('/v1/modules/')).map((request) => request.body);
		expect(bodies).toEqual([
			{ type: 'slack', settings: { webhook_method: 'POST', url: 'https://hooks.example.com/a', headers: { 'X-Api-Key': 'abc' }, timeout: 10, retry_limit: 1 } },
			{ event_type: 'call.ended', settings: { method: 'PUT', url: 'https://hooks.example.com/b', headers: {}, timeout: 30, retry_limit: 3 } },
		]);
	});

	it('an error envelope fails the node with the operation named, and the key nowhere', async () => {
		const { execution } = await runThrough([action({ resource: 'contact', operation: 'get', contactId: DEMO.otherContactId })], {});
		expect(execution.status).toBe('error');
		const error = executionError(execution);
		expect(error?.message).toMatch(/^Get Contact failed: the service answered status "error"/);
		expect(JSON.stringify(execution)).not.toContain(DEMO.apiKey);
	});

	it('Continue On Fail turns the error envelope into an error item and lets the other items through', async () => {
		const { reply, execution } = await runThrough(
			[
				splitOutNode('Ids', 'body.ids'),
				action({ resource: 'contact', operation: 'get', contactId: '={{ $json.id }}' }, { onError: 'continueRegularOutput' }),
			],
			{ ids: [{ id: DEMO.completedContactId }, { id: DEMO.otherContactId }, { id: DEMO.noAnswerContactId }] },
		);
		expect(execution.status).toBe('success');
		const output = reply.body as Array<Record<string, unknown>>;
		expect(output.map((item) => item.id ?? 'error')).toEqual([DEMO.completedContactId, 'error', DEMO.noAnswerContactId]);
		expect(output[1].error).toMatch(/^Get Contact failed/);
		const paired = (execution.data?.resultData.runData['Campaign Calling'][0].data?.main?.[0] ?? []) as Array<{ pairedItem?: unknown }>;
		expect(paired.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('the credential\'s Test button passes with a good key and fails with a bad one', async () => {
		const good = await n8n.api.testCredential({ id: credential.id, name: credential.name, type: CREDENTIAL_TYPE, data: credentialData });
		expect(good.status).toBe('OK');
		const bad = await n8n.api.testCredential({
			id: credential.id,
			name: credential.name,
			type: CREDENTIAL_TYPE,
			data: { ...credentialData, apiKey: 'not-a-real-key' },
		});
		expect(bad.status).toBe('Error');
		expect(bad.message).toMatch(/refused this API key/);
		expect(bad.message).not.toContain('not-a-real-key');
	});

	describe('the trigger', () => {
		it('runs the workflow on each delivery, and acknowledges it', async () => {
			const trigger = campaignCallingTriggerNode(['call.ended'], credential);
			const workflow = await n8n.api.createWorkflow(triggerWorkflow('e2e trigger', trigger));
			try {
				await n8n.api.activate(workflow.id);
				const delivered = await simulator.deliverEvent('call.ended', { data: { contact_id: DEMO.completedContactId } });
				expect(delivered).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
				// The sender gets the trigger's acknowledgement, as a module's own delivery would.
				const module = [...simulator.state.webhookModules.values()].map((owned) => owned.record)[0];
				const direct = await fetch(`${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...(module.settings.headers as Record<string, string>) },
					body: JSON.stringify({ event_type: 'call.ended', data: { contact_id: DEMO.completedContactId } }),
				});
				expect([direct.status, await direct.json()]).toEqual([200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }]);
				const executions = await n8n.api.waitForExecutions(workflow.id, 2);
				for (const execution of executions) {
					await options.checkExecution?.(n8n, execution);
					expect(nodeOutput(execution, TRIGGER_NODE_NAME)).toEqual([expect.objectContaining({ event_type: 'call.ended' })]);
				}
			} finally {
				await n8n.api.deleteWorkflow(workflow.id);
			}
		});

		it('with Ignore Repeats, a repeated event is acknowledged and starts nothing, whichever n8n process takes it', async () => {
			const trigger = campaignCallingTriggerNode(['call.ended'], credential, { ignoreRepeats: true, repeatKey: 'event_id' });
			const workflow = await n8n.api.createWorkflow(triggerWorkflow('e2e trigger repeats', trigger));
			try {
				await n8n.api.activate(workflow.id);
				const delivered = await simulator.deliverEvent('call.ended', { event_id: 'event-1' });
				expect(delivered).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
				const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
				await options.checkExecution?.(n8n, execution);

				// The service's retry of that event, to the process serving the webhook URL and (in queue
				// mode) to the main as well: the key was kept in the database, not in one process.
				const module = [...simulator.state.webhookModules.values()].map((owned) => owned.record)[0];
				for (const base of new Set([n8n.webhookUrl, n8n.url])) {
					const again = await fetch(`${base}webhook/${trigger.webhookId}/webhook`, {
						method: 'POST',
						headers: { 'content-type': 'application/json', ...(module.settings.headers as Record<string, string>) },
						body: JSON.stringify({ event_type: 'call.ended', event_id: 'event-1', data: {} }),
					});
					expect([again.status, await again.json()]).toEqual([200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
				}

				await simulator.deliverEvent('call.ended', { event_id: 'event-2' });
				// The process that took event-1 learned from its answer that n8n's store holds the key, so
				// its repeat there starts nothing; a process that did not take it (queue mode's main, when the
				// webhook process took it) starts a short execution in which the trigger finds the key in
				// n8n's store and passes nothing on. So: events in exactly two executions, at most one more.
				const executions = await settledExecutions(n8n, workflow.id, 120_000);
				const passedOn = executions
					.filter((each) => nodeOutput(each, TRIGGER_NODE_NAME).length > 0)
					.sort((a, b) => Number(a.id) - Number(b.id));
				expect(passedOn.map((each) => nodeOutput(each, TRIGGER_NODE_NAME).map((item) => item.event_id))).toEqual([['event-1'], ['event-2']]);
				await options.checkExecution?.(n8n, passedOn[1]);
				expect(executions.filter((each) => each.status !== 'success')).toEqual([]);
				expect(executions.length).toBeLessThanOrEqual(2 + 1);
			} finally {
				await n8n.api.deleteWorkflow(workflow.id);
			}
		});

		it('registers one module per event, runs on a delivery, refuses forgeries, and re-activates without duplicates', async () => {
			const trigger = campaignCallingTriggerNode(['call.ended', 'campaign.completed'], credential);
			const workflow = await n8n.api.createWorkflow(triggerWorkflow('e2e trigger', trigger));
			const webhookUrl = `${n8n.webhookUrl}webhook/${trigger.webhookId}/webhook`;
			const modules = () => [...simulator.state.webhookModules.values()].map((owned) => owned.record);
			try {
				await n8n.api.activate(workflow.id);
				expect(modules().map((module) => module.event_type).sort()).toEqual(['call.ended', 'campaign.completed']);
				expect(new Set(modules().map((module) => module.settings.url))).toEqual(new Set([webhookUrl]));

				const delivered = await simulator.deliverEvent('call.ended', { data: { contact_id: DEMO.completedContactId } });
				expect(delivered).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
				const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
				await options.checkExecution?.(n8n, execution);
				expect(nodeOutput(execution, TRIGGER_NODE_NAME)).toEqual([
					expect.objectContaining({ event_type: 'call.ended', data: expect.objectContaining({ contact_id: DEMO.completedContactId }) }),
				]);

				const forged = await fetch(webhookUrl, {
					method: 'POST',
					headers: { 'content-type': 'application/json', [SECRET_HEADER]: 'forged' },
					body: JSON.stringify({ event_type: 'call.ended' }),
				});
				expect(forged.status).toBe(401);
				const unsigned = await fetch(webhookUrl, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ event_type: 'call.ended' }),
				});
				expect(unsigned.status).toBe(401);

				await n8n.api.deactivate(workflow.id);
				await n8n.api.activate(workflow.id);
				expect(modules()).toHaveLength(2);

				await simulator.deliverEvent('campaign.completed', { data: { campaign_id: DEMO.campaignId } });
				const executions = await n8n.api.waitForExecutions(workflow.id, 2);
				expect(executions).toHaveLength(2);
				await options.checkExecution?.(n8n, executions[1]);
				// The forgeries started nothing, not even an execution still running.
				expect(await n8n.api.listExecutions(workflow.id)).toHaveLength(2);
			} finally {
				await n8n.api.deleteWorkflow(workflow.id);
			}
		});
	});
}
