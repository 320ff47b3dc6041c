/**
 * Where failed items go, per node Settings → On Error, inside real n8n against the simulator: Get Contact
 * with an invalid and a refused ID, an Add Contacts batch the service refuses, a run over Max Contacts
 * per Run, and a Batch Size out of range. Under "Continue (using error output)" every failed item goes
 * to n8n's error output, and under either Continue mode a refused run gives one error item per input
 * item. Counts come from n8n's own run data of the node (its outputs) and of the nodes wired after each
 * output.
 */
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import { addMappedLeads, leadFields } from '../helpers/actionParameters.ts';
import { type Execution, executionError, type N8nInstance, simulatorCredential } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { runBetweenOutputs, type OnError } from './harness/onError.ts';
import { campaignCallingNode, type CredentialRef, type WorkflowNode } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const MODES: OnError[] = ['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'];
const ACTION = 'Campaign Calling';

interface Item {
	json: Record<string, unknown>;
	pairedItem?: { item: number };
}

/** What one run did: n8n's status, items per output of the node, items reaching the node after each output, requests sent. */
interface Outcome {
	status: string;
	outputs: number[];
	reached: { Sent: number; Failed: number };
	requests: number;
	error?: string;
}

describeEachVersion('error items per On Error mode in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let credential: CredentialRef;
	let counter = 0;
	const lines: string[] = [];

	beforeAll(async () => {
		simulator = await startSimulator();
		// A generous wait for readiness: the machine is shared with other n8n instances.
		n8n = await sharedN8n(version);
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		console.log(`n8n ${version}: items per output (output 0 / error output), items reaching the next node, requests sent:\n${lines.join('\n')}`);
		await simulator?.close();
	});

	/** The action node between its outputs (harness/onError.ts), from a freshly seeded simulator; returns the execution. */
	async function run(parameters: Record<string, unknown>, items: unknown[], onError: OnError) {
		simulator.reset();
		const action: WorkflowNode = { ...campaignCallingNode(ACTION, parameters, credential), onError };
		return await runBetweenOutputs(n8n, `error-output-${++counter}`, action, items);
	}

	const nodeItems = (execution: Execution, name: string): Item[][] =>
		((execution.data?.resultData.runData[name]?.[0]?.data?.main ?? []) as Array<Item[] | null>).map((items) => items ?? []);

	function outcome(execution: Execution): Outcome {
		const reached = (name: string) => nodeItems(execution, name)[0]?.length ?? 0;
		const result: Outcome = {
			status: execution.status,
			outputs: nodeItems(execution, ACTION).map((items) => items.length),
			reached: { Sent: reached('Sent'), Failed: reached('Failed') },
			requests: simulator.requests.length,
		};
		const error = executionError(execution)?.message;
		if (error !== undefined) result.error = error;
		return result;
	}

	/** Runs the case in each mode; prints and returns the outcome per mode, and each mode's execution. */
	async function eachMode(label: string, parameters: Record<string, unknown>, items: unknown[]) {
		const outcomes = {} as Record<OnError, Outcome>;
		const executions = {} as Record<OnError, Execution>;
		for (const mode of MODES) {
			executions[mode] = await run(parameters, items, mode);
			outcomes[mode] = outcome(executions[mode]);
			const { status, outputs, reached, requests, error } = outcomes[mode];
			lines.push(
				`  ${label} (${items.length} items), ${mode}: ${status}; outputs [${outputs.join(' / ')}]; Sent ${reached.Sent}, Failed ${reached.Failed}; ${requests} requests${error ? `; error: ${error}` : ''}`,
			);
		}
		return { outcomes, executions };
	}

	/** Each item's input item and error text, in output order. */
	const errorsByItem = (items: Item[]) => items.map((item) => [item.pairedItem?.item, item.json.error]);

	const getContact = { resource: 'contact', operation: 'get', contactId: '={{ $json.id }}', simplify: false, requestOptions: { maxRetries: 0 } };
	const contactIds = [{ id: DEMO.completedContactId }, { id: 'not-a-uuid' }, { id: DEMO.otherContactId }, { id: DEMO.noAnswerContactId }];

	const addContacts = (options: Record<string, unknown>) => addMappedLeads({ options, requestOptions: { maxRetries: 0 } });

	it('Get Contact: failed items leave on the error output, paired and with their input fields, only with "Continue (using error output)"', async () => {
		const { outcomes, executions } = await eachMode('Get Contact', getContact, contactIds);
		expect(outcomes).toEqual({
			stopWorkflow: {
				status: 'error',
				outputs: [],
				reached: { Sent: 0, Failed: 0 },
				requests: 0,
				error: 'Contact ID must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got "not-a-uuid" [item 1]',
			},
			continueRegularOutput: { status: 'success', outputs: [4], reached: { Sent: 4, Failed: 0 }, requests: 3 },
			continueErrorOutput: { status: 'success', outputs: [2, 2], reached: { Sent: 2, Failed: 2 }, requests: 3 },
		});
		const [success, errors] = nodeItems(executions.continueErrorOutput, ACTION);
		expect(success.map((item) => item.json.id)).toEqual([DEMO.completedContactId, DEMO.noAnswerContactId]);
		expect(success.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 3 }]);
		expect(errors.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
		// n8n adds the input item's fields (id) to what the node put there.
		expect(errors[1].json).toEqual({
			id: DEMO.otherContactId,
			error: 'Get Contact failed: the service answered status "error" (error)',
			message: expect.stringContaining('Check the Contact ID'),
		});
		// Continue (regular output): the error and its hint, on output 0.
		const regular = nodeItems(executions.continueRegularOutput, ACTION)[0];
		expect(regular[2].json).toEqual({ error: 'Get Contact failed: the service answered status "error" (error)', errorDescription: expect.any(String) });
	});

	it('Add Contacts: a refused batch fails exactly its items, on the error output with "Continue (using error output)"', async () => {
		const items = leadFields(25);
		// Five digits pass the node's check but not the service's (at least 7): batch 1 (items 10-19) is refused whole.
		items[12].phone = '+12345';
		const { outcomes, executions } = await eachMode('Add Contacts, batch 2 of 3 refused', addContacts({ batchSize: 10 }), items);
		expect(outcomes).toEqual({
			stopWorkflow: {
				status: 'error',
				outputs: [],
				reached: { Sent: 0, Failed: 0 },
				// The first batch went through; the run stopped at the refused one and sent no third.
				requests: 2,
				error: 'Add to Campaign failed: the service answered status "error" (error)',
			},
			continueRegularOutput: { status: 'success', outputs: [25], reached: { Sent: 25, Failed: 0 }, requests: 3 },
			continueErrorOutput: { status: 'success', outputs: [15, 10], reached: { Sent: 15, Failed: 10 }, requests: 3 },
		});
		const [success, errors] = nodeItems(executions.continueErrorOutput, ACTION);
		expect(errors.map((item) => item.pairedItem?.item)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
		expect(success.map((item) => item.pairedItem?.item)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24]);
		expect(errors[1].json).toEqual({
			...leadFields(25)[11],
			error: 'Add to Campaign failed: the service answered status "error" (error)',
			message: expect.stringContaining('Check the Campaign ID and the contacts of this batch'),
		});
		expect(success.every((item) => item.json.added === 1)).toBe(true);
	});

	it('Add Contacts over Max Contacts per Run: nothing sent, and an error item per lead under either Continue mode', async () => {
		const reason = 'Max Contacts per Run is 2, but this run would add 3 contacts; nothing was sent [item 0]';
		const { outcomes, executions } = await eachMode('Add Contacts over the cap', addContacts({ maxContactsPerRun: 2 }), leadFields(3));
		expect(outcomes).toEqual({
			stopWorkflow: { status: 'error', outputs: [], reached: { Sent: 0, Failed: 0 }, requests: 0, error: reason },
			continueRegularOutput: { status: 'success', outputs: [3], reached: { Sent: 3, Failed: 0 }, requests: 0 },
			continueErrorOutput: { status: 'success', outputs: [0, 3], reached: { Sent: 0, Failed: 3 }, requests: 0 },
		});
		const regular = nodeItems(executions.continueRegularOutput, ACTION)[0];
		expect(regular.map((item) => item.json.error)).toEqual([reason, reason, reason]);
		expect(regular[0].json).toEqual(expect.objectContaining({ campaignId: DEMO.campaignId, errorDescription: expect.stringContaining('Raise Options') }));
		expect(errorsByItem(nodeItems(executions.continueErrorOutput, ACTION)[1])).toEqual([
			[0, reason],
			[1, reason],
			[2, reason],
		]);
	});

	it('Add Contacts with Batch Size 0 from an expression: the run is refused before any item is read, every lead failing with that reason', async () => {
		const reason = 'Batch Size must be a whole number from 1 to 1000, got 0 [item 0]';
		const items = leadFields(3);
		// Item 0 is invalid on its own too: the run's reason comes first, as for bad Request Options.
		items[0].phone = 'not a phone';
		const { outcomes, executions } = await eachMode('Add Contacts, Batch Size 0', addContacts({ batchSize: '={{ 0 }}' }), items);
		expect(outcomes).toEqual({
			stopWorkflow: { status: 'error', outputs: [], reached: { Sent: 0, Failed: 0 }, requests: 0, error: reason },
			continueRegularOutput: { status: 'success', outputs: [3], reached: { Sent: 3, Failed: 0 }, requests: 0 },
			continueErrorOutput: { status: 'success', outputs: [0, 3], reached: { Sent: 0, Failed: 3 }, requests: 0 },
		});
		const everyLead = [0, 1, 2].map((item) => [item, reason]);
		expect(errorsByItem(nodeItems(executions.continueRegularOutput, ACTION)[0])).toEqual(everyLead);
		expect(errorsByItem(nodeItems(executions.continueErrorOutput, ACTION)[1])).toEqual(everyLead);
	});
});
