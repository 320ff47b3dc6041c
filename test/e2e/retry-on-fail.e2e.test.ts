/**
 * Retry On Fail inside real n8n against the simulator. n8n runs the whole node again when it throws or,
 * under Continue On Fail, when its first output item carries `error`; each try must not send again what
 * an earlier try of the same run already did. Counts: the POSTs the simulator received and the contacts
 * or modules it holds afterwards, per On Error mode.
 */
import { addMappedLeads, leadFields } from '../helpers/actionParameters.ts';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { type Execution, type N8nInstance, simulatorCredential } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { runBetweenOutputs, type OnError } from './harness/onError.ts';
import { campaignCallingNode, type CredentialRef, type WorkflowNode } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const ACTION = 'Campaign Calling';
const MAX_TRIES = 3;

/** The node's Settings → Retry On Fail, as a saved workflow holds it. */
type RetryingNode = WorkflowNode & { retryOnFail: boolean; maxTries: number; waitBetweenTries: number };

interface Counts {
	status: string;
	/** items per output of the action node */
	outputs: number[];
	posts: number;
	/** records the simulator holds that the run added (contacts, or webhook modules) */
	added: number;
}

describeEachVersion('Retry On Fail in n8n %s', (version) => {
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
		console.log(`n8n ${version}, Retry On Fail (Max Tries ${MAX_TRIES}): status; items per output; POSTs received; records added:\n${lines.join('\n')}`);
		await simulator?.close();
	});

	/** The action node with Retry On Fail, between its outputs; runs once and returns the execution. */
	async function run(parameters: Record<string, unknown>, items: unknown[], onError: OnError): Promise<Execution> {
		const action: RetryingNode = {
			...campaignCallingNode(ACTION, parameters, credential),
			onError,
			retryOnFail: true,
			maxTries: MAX_TRIES,
			waitBetweenTries: 10,
		};
		return await runBetweenOutputs(n8n, `retry-on-fail-${++counter}`, action, items);
	}

	/** Runs the case from a freshly seeded simulator; records and returns what n8n and the simulator saw. */
	async function count(label: string, parameters: Record<string, unknown>, items: unknown[], onError: OnError, held: () => number): Promise<Counts> {
		simulator.reset();
		const before = held();
		const execution = await run(parameters, items, onError);
		const main = (execution.data?.resultData.runData[ACTION]?.[0]?.data?.main ?? []) as Array<unknown[] | null>;
		const counts: Counts = {
			status: execution.status,
			outputs: main.map((output) => output?.length ?? 0),
			posts: simulator.requests.filter((request) => request.method === 'POST').length,
			added: held() - before,
		};
		lines.push(`  ${label}, ${onError}: ${counts.status}; outputs [${counts.outputs.join(' / ')}]; ${counts.posts} POSTs; ${counts.added} added`);
		return counts;
	}

	/** The case under both Continue modes, each run before either is checked, so every count is printed. */
	async function eachContinueMode(label: string, parameters: Record<string, unknown>, items: unknown[], held: () => number) {
		return {
			continueRegularOutput: await count(label, parameters, items, 'continueRegularOutput', held),
			continueErrorOutput: await count(label, parameters, items, 'continueErrorOutput', held),
		};
	}

	const contactsHeld = () => simulator.state.contacts.size;
	const modulesHeld = () => simulator.state.webhookModules.size;

	const addContacts = addMappedLeads({ options: { batchSize: 10 }, requestOptions: { maxRetries: 0 } });

	it('Add Contacts, item 0 invalid: the 24 good leads go out once, in 3 batches, not once per try', async () => {
		const items = leadFields(25);
		items[0].phone = 'not a phone';
		// Item 0 fails before any request, and its error item comes first, so n8n tries the node 3 times.
		expect(await eachContinueMode('Add Contacts, item 0 invalid', addContacts, items, contactsHeld)).toEqual({
			continueRegularOutput: { status: 'success', outputs: [25], posts: 3, added: 24 },
			continueErrorOutput: { status: 'success', outputs: [24, 1], posts: 3, added: 24 },
		});
	});

	it('Add Contacts, first batch refused: only the refused batch is sent again, on each of the 3 tries', async () => {
		const items = leadFields(25);
		// Five digits pass the node's check but not the service's (at least 7): batch 0 (items 0-9) is refused whole.
		items[2].phone = '+12345';
		// Try 1 sends batches 0, 1 and 2; tries 2 and 3 send batch 0 only: 5 POSTs, the 15 leads of batches 1 and 2 added once.
		expect(await eachContinueMode('Add Contacts, batch 0 refused', addContacts, items, contactsHeld)).toEqual({
			continueRegularOutput: { status: 'success', outputs: [25], posts: 5, added: 15 },
			continueErrorOutput: { status: 'success', outputs: [15, 10], posts: 5, added: 15 },
		});
	});

	it('Add Contacts, Retry On Fail alone: a try after the node stopped does not send again the batch that went through', async () => {
		const items = leadFields(25);
		items[12].phone = '+12345';
		// Each try: batch 0 (only on try 1), then batch 1, refused, stops the node before batch 2.
		expect(await count('Add Contacts, batch 1 refused', addContacts, items, 'stopWorkflow', contactsHeld)).toEqual({
			status: 'error',
			outputs: [],
			posts: 1 + MAX_TRIES,
			added: 10,
		});
	});

	it('Create Webhook Module, item 0 invalid: each good item creates its module once', async () => {
		const createModule = {
			resource: 'webhookModule',
			operation: 'create',
			eventType: '={{ $json.event }}',
			url: '={{ $json.url }}',
			requestOptions: { maxRetries: 0 },
		};
		const items = [
			{ event: 'no.such.event', url: 'https://crm.example.com/0' },
			{ event: 'call.ended', url: 'https://crm.example.com/1' },
			{ event: 'call.started', url: 'https://crm.example.com/2' },
		];
		expect(await eachContinueMode('Create Webhook Module, item 0 invalid', createModule, items, modulesHeld)).toEqual({
			continueRegularOutput: { status: 'success', outputs: [3], posts: 2, added: 2 },
			continueErrorOutput: { status: 'success', outputs: [2, 1], posts: 2, added: 2 },
		});
	});
});
