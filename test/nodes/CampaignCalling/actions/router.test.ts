import type { INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { runActionNode, runActionNodeExpectingError, triesOf } from '../../../helpers/n8nContext.ts';
import { addMappedLeads, leadFields } from '../../../helpers/actionParameters.ts';
import { DEMO, sendJson, startScriptedServer, useSimulator, withoutRetries } from '../../../helpers/kit.ts';

const sim = useSimulator();
const addPath = (id: string) => `/compaign/v1/contacts/addToCampaign/${id}`;

function leads(count: number, campaignOf: (index: number) => string = () => DEMO.campaignId) {
	return leadFields(count).map((fields, i) => ({ json: { ...fields, campaign: campaignOf(i) } }));
}

const addContacts = (extra: Record<string, unknown> = {}) => addMappedLeads({ campaignId: '={{ $json.campaign }}', ...extra });

/** Every output item points at an input item, and each input item is covered exactly `per` times. */
function expectPairedOncePerItem(output: INodeExecutionData[], itemCount: number) {
	expect(output.map((item) => item.pairedItem)).toEqual(Array.from({ length: itemCount }, (_, item) => ({ item })));
}

describe('router: per-item operations', () => {
	const contactItems = [
		{ json: { id: DEMO.completedContactId } },
		{ json: { id: 'not-a-uuid' } },
		{ json: { id: DEMO.otherContactId } },
		{ json: { id: DEMO.noAnswerContactId } },
	];
	const getContact = { resource: 'contact', operation: 'get', contactId: '={{ $json.id }}', requestOptions: { maxRetries: 0 } };

	it('with Continue On Fail, turns each failure into an error item in its place and runs the other items', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: contactItems, parameters: getContact, continueOnFail: true });
		expect(output).toHaveLength(4);
		expectPairedOncePerItem(output, 4);
		expect(output[0].json.id).toBe(DEMO.completedContactId);
		expect(output[1].json).toEqual({
			error: 'Contact ID must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got "not-a-uuid" [item 1]',
			errorDescription: expect.stringContaining('Use the id of a contact'),
		});
		expect(output[2].json).toEqual({
			error: 'Get Contact failed: the service answered status "error" (error)',
			errorDescription: expect.stringContaining('Check the Contact ID'),
		});
		expect(output[3].json.id).toBe(DEMO.noAnswerContactId);
		// The invalid item was never sent; the others were, once each.
		expect(sim.requests().map((request) => request.path)).toEqual([
			`/contacts/${DEMO.completedContactId}`,
			`/contacts/${DEMO.otherContactId}`,
			`/contacts/${DEMO.noAnswerContactId}`,
		]);
	});

	it('without Continue On Fail, checks every item before the first request', async () => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), items: contactItems, parameters: getContact });
		expect(error.message).toBe('Contact ID must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got "not-a-uuid" [item 1]');
		expect(error.context?.itemIndex).toBe(1);
		expect(sim.requests()).toHaveLength(0);
	});

	it('without Continue On Fail, stops at the first failed request with the transport\'s NodeApiError', async () => {
		const items = [contactItems[0], contactItems[2], contactItems[3]];
		const error = await runActionNodeExpectingError({ credentials: sim.credentials(), items, parameters: getContact });
		expect(error.message).toBe('Get Contact failed: the service answered status "error" (error)');
		// The transport's own error reaches n8n, not a wrapper around it.
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.context?.itemIndex).toBe(1);
		expect(sim.requests()).toHaveLength(2);
	});

	it('pairs every item of a listing with the input item that asked for it', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: {} }, { json: {} }],
			parameters: { resource: 'webhookFlow', operation: 'getAll', returnAll: true },
		});
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }, { item: 1 }]);
	});

	it('answers no input items with no output and no request', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: [], parameters: getContact });
		expect(output).toEqual([]);
		expect(sim.requests()).toHaveLength(0);
	});

	it('reads no parameter for no input items: a bad Request Options value fails no empty run', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: [], parameters: { ...getContact, requestOptions: { maxRetries: 11 } } });
		expect(output).toEqual([]);
	});

	it('refuses an operation it does not know', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: { resource: 'contact', operation: 'delete' },
		});
		expect(error.message).toBe('The operation "delete" of "contact" is not supported');
		expect(sim.requests()).toHaveLength(0);
	});

	it('refuses bad Request Options for the whole run: without Continue On Fail it throws and sends nothing', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: { ...getContact, contactId: DEMO.completedContactId, requestOptions: { maxRetries: 11 } },
		});
		expect(error.message).toBe('Request Options → Max Retries must be a whole number from 0 to 10, got 11 [item 0]');
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('router: batched operation (Add to Campaign)', () => {
	it('sends 250 items at batch size 100 in exactly 3 requests', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: leads(250), parameters: addContacts({ options: { batchSize: 100 } }) });
		expect(sim.requests().map((request) => (request.body as unknown[]).length)).toEqual([100, 100, 50]);
		expect(output).toHaveLength(250);
		expectPairedOncePerItem(output, 250);
		expect(output.map((item) => item.json.batch)).toEqual(Array.from({ length: 250 }, (_, i) => Math.floor(i / 100)));
	});

	it('groups interleaved items per campaign, in input order', async () => {
		const items = leads(10, (i) => (i % 2 === 0 ? DEMO.campaignId : DEMO.secondCampaignId));
		const output = await runActionNode({ credentials: sim.credentials(), items, parameters: addContacts({ options: { batchSize: 3 } }) });
		const sent = sim.requests().map((request) => [
			request.path,
			(request.body as Array<{ firstname: string }>).map((contact) => contact.firstname),
		]);
		expect(sent).toEqual([
			[addPath(DEMO.campaignId), ['Lead0', 'Lead2', 'Lead4']],
			[addPath(DEMO.secondCampaignId), ['Lead1', 'Lead3', 'Lead5']],
			[addPath(DEMO.campaignId), ['Lead6', 'Lead8']],
			[addPath(DEMO.secondCampaignId), ['Lead7', 'Lead9']],
		]);
		expectPairedOncePerItem(output, 10);
		expect(output.map((item) => item.json.batch)).toEqual([0, 1, 0, 1, 0, 1, 2, 3, 2, 3]);
		expect(output.map((item) => (item.json.result as { campaign_id: string }).campaign_id)).toEqual(
			items.map((item) => item.json.campaign),
		);
		expect(output.map((item) => (item.json.result as { firstname: string }).firstname)).toEqual(items.map((item) => item.json.first));
	});

	it('sends up to 1000 contacts in one request at batch size 1000', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: leads(1000), parameters: addContacts({ options: { batchSize: 1000 } }) });
		expect(sim.requests()).toHaveLength(1);
		expect((sim.requests()[0].body as unknown[]).length).toBe(1000);
		expect(output).toHaveLength(1000);
	});

	it.each([0, 1001, 2.5])('refuses batch size %p before any request; with Continue On Fail every item fails with the reason', async (batchSize) => {
		const reason = `Batch Size must be a whole number from 1 to 1000, got ${batchSize} [item 0]`;
		const run = { credentials: sim.credentials(), items: leads(2), parameters: addContacts({ options: { batchSize } }) };
		expect((await runActionNodeExpectingError(run)).message).toBe(reason);
		const output = await runActionNode({ ...run, continueOnFail: true });
		expectPairedOncePerItem(output, 2);
		expect(output.map((item) => item.json.error)).toEqual([reason, reason]);
		expect(sim.requests()).toHaveLength(0);
	});

	it('reads Batch Size before any item, as Request Options: an item invalid on its own fails with the run\'s reason too', async () => {
		const reason = 'Batch Size must be a whole number from 1 to 1000, got 0 [item 0]';
		const items = leads(2);
		items[0].json.phone = 'not a phone';
		const run = { credentials: sim.credentials(), items, parameters: addContacts({ options: { batchSize: 0 } }) };
		expect((await runActionNodeExpectingError(run)).message).toBe(reason);
		const output = await runActionNode({ ...run, continueOnFail: true });
		expect(output.map((item) => item.json)).toEqual([{ error: reason }, { error: reason }]);
		expect(sim.requests()).toHaveLength(0);
	});

	it('with Continue On Fail, a refused batch gives error items for exactly the items of that batch', async () => {
		const items = leads(250);
		// Five digits pass the node's check but not the service's (at least 7): batch 1 is refused whole.
		items[150].json.phone = '+12345';
		const output = await runActionNode({
			credentials: sim.credentials(),
			items,
			parameters: addContacts({ requestOptions: { maxRetries: 0 } }),
			continueOnFail: true,
		});
		expect(sim.requests()).toHaveLength(3);
		expect(output).toHaveLength(250);
		expectPairedOncePerItem(output, 250);
		const failed = output.flatMap((item, index) => ('error' in item.json ? [index] : []));
		expect(failed).toEqual(Array.from({ length: 100 }, (_, i) => 100 + i));
		expect(output[120].json).toEqual({
			error: 'Add to Campaign failed: the service answered status "error" (error)',
			errorDescription: expect.stringContaining('Check the Campaign ID and the contacts of this batch'),
			campaignId: DEMO.campaignId,
			contact: { firstname: 'Lead120', lastname: 'Doe', phone_number: '+14155550120' },
		});
		expect(output[99].json.result).toEqual(expect.objectContaining({ firstname: 'Lead99' }));
		expect(output[200].json.result).toEqual(expect.objectContaining({ firstname: 'Lead200' }));
		const stored = [...sim.simulator.state.contacts.values()].filter((contact) => contact.lastname === 'Doe');
		expect(stored).toHaveLength(150);
	});

	it('with Continue On Fail, keeps the contacts of a failed JSON-mode item', async () => {
		sim.simulator.injectFault({ kind: 'error-envelope', path: DEMO.secondCampaignId });
		const contacts = [
			{ firstname: 'A', lastname: 'B', phone_number: '+14155550001' },
			{ firstname: 'C', lastname: 'D', phone_number: '+14155550002' },
		];
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { campaign: DEMO.campaignId } }, { json: { campaign: DEMO.secondCampaignId } }],
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: '={{ $json.campaign }}',
				inputMode: 'json',
				contactsJson: JSON.stringify(contacts),
				requestOptions: { maxRetries: 0 },
			},
			continueOnFail: true,
		});
		expect(output[0].json.added).toBe(2);
		expect(output[1].json).toEqual(
			expect.objectContaining({ error: expect.stringMatching(/^Add to Campaign failed/), campaignId: DEMO.secondCampaignId, contacts }),
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('an item whose contacts fill two refused batches keeps the first batch\'s error', async () => {
		sim.simulator.injectFault({ kind: 'http-403', path: '/compaign/' });
		sim.simulator.injectFault({ kind: 'http-401', path: '/compaign/' });
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: [{ json: { campaign: DEMO.campaignId } }],
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: '={{ $json.campaign }}',
				inputMode: 'json',
				contactsJson: JSON.stringify(leadFields(2).map((lead) => ({ firstname: lead.first, lastname: lead.last, phone_number: lead.phone }))),
				options: { batchSize: 1 },
				requestOptions: { maxRetries: 0 },
			},
			continueOnFail: true,
		});
		expect(sim.requests('/compaign/')).toHaveLength(2);
		expect(output).toHaveLength(1);
		expect(output[0].json.error).toEqual(expect.stringContaining('HTTP 403'));
	});

	it('with Continue On Fail, an invalid item becomes an error item and the others are sent', async () => {
		const items = leads(3);
		items[1].json.phone = 'n/a';
		const output = await runActionNode({ credentials: sim.credentials(), items, parameters: addContacts(), continueOnFail: true });
		expect(sim.requests()).toHaveLength(1);
		expect((sim.requests()[0].body as Array<{ firstname: string }>).map((contact) => contact.firstname)).toEqual(['Lead0', 'Lead2']);
		expectPairedOncePerItem(output, 3);
		expect(output[1].json.error).toBe('Phone Number (phone_number) may hold only digits, spaces, + - . ( ), got "n/a" [item 1]');
		expect(output[0].json.batch).toBe(0);
		expect(output[2].json.batch).toBe(0);
	});

	it('without Continue On Fail, stops at the first refused batch and sends no further batch', async () => {
		sim.simulator.injectFault({ kind: 'http-500', method: 'POST' });
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			items: leads(30),
			parameters: addContacts({ options: { batchSize: 10 } }),
		});
		expect(error.message).toBe('Add to Campaign failed: the service answered HTTP 500 Internal Server Error (internal server error)');
		// A write is not repeated after a 500, and the later batches never start.
		expect(sim.requests()).toHaveLength(1);
	});

	describe('Requests in Parallel', () => {
		/**
		 * Holds every request until no new one has come for a number of event-loop turns (the node has
		 * sent all it will before an answer comes back), then answers the held ones; counts the most in
		 * flight. Turns of the event loop, not time, so a slow machine only makes it slower.
		 */
		async function countingServer() {
			let inFlight = 0;
			let maxInFlight = 0;
			let arrivals = 0;
			let held: Array<() => void> = [];
			const quietTurns = async () => {
				for (let seen = arrivals, turns = 0; turns < 50; turns++) {
					await new Promise((resolve) => setImmediate(resolve));
					if (arrivals !== seen) return false;
				}
				return true;
			};
			const server = await startScriptedServer(async (request, response) => {
				inFlight++;
				arrivals++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				await new Promise<void>((release) => held.push(release));
				inFlight--;
				sendJson(response, 200, { status: 'ok', message: 'ok', data: request.body });
			});
			const releaseWhenQuiet = async (): Promise<void> => {
				while (!closed) {
					if ((await quietTurns()) && held.length > 0) {
						const releasing = held;
						held = [];
						for (const release of releasing) release();
					}
				}
			};
			let closed = false;
			const releasing = releaseWhenQuiet();
			return {
				server,
				maxInFlight: () => maxInFlight,
				close: async () => {
					closed = true;
					await releasing;
					await server.close();
				},
			};
		}

		it.each([
			[1, 1],
			[3, 3],
			[5, 5],
		])('with %i, keeps at most %i batches in flight', async (parallelRequests, expected) => {
			const { server, maxInFlight, close } = await countingServer();
			try {
				const output = await runActionNode({
					credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
					items: leads(12),
					parameters: addContacts({ options: { batchSize: 2, parallelRequests }, requestOptions: { maxRetries: 0 } }),
				});
				expect(server.requests).toHaveLength(6);
				expect(maxInFlight()).toBe(expected);
				expectPairedOncePerItem(output, 12);
				// Each item still gets the answer to its own contact, whatever order batches finish in.
				expect(output.map((item) => (item.json.result as { firstname: string }).firstname)).toEqual(
					leads(12).map((item) => item.json.first),
				);
			} finally {
				await close();
			}
		});

		it.each([0, 6])('refuses %i before any request', async (parallelRequests) => {
			const error = await runActionNodeExpectingError({
				credentials: sim.credentials(),
				items: leads(2),
				parameters: addContacts({ options: { parallelRequests } }),
			});
			expect(error.message).toBe(`Requests in Parallel must be a whole number from 1 to 5, got ${parallelRequests} [item 0]`);
			expect(sim.requests()).toHaveLength(0);
		});

		it('starts no batch after a failure and, without Continue On Fail, throws the first failure once the batches in flight settled', async () => {
			let answered = 0;
			const server = await startScriptedServer(async (request, response) => {
				await new Promise((resolve) => setImmediate(resolve));
				const [contact] = request.body as Array<{ firstname: string }>;
				answered++;
				sendJson(response, 200, { status: 'error', message: `refused ${contact.firstname}` });
			});
			try {
				const error = await runActionNodeExpectingError({
					credentials: { baseUrl: server.url, apiKey: DEMO.apiKey },
					items: leads(5),
					parameters: addContacts({ options: { batchSize: 1, parallelRequests: 2 }, requestOptions: { maxRetries: 0 } }),
				});
				expect(error.message).toBe(`Add to Campaign failed: the service answered status "error" (refused ${leads(1)[0].json.first})`);
				expect(server.requests).toHaveLength(2);
				expect(answered).toBe(2);
			} finally {
				await server.close();
			}
		});

		it('with Continue On Fail and parallel batches, fails only the items of the refused batch', async () => {
			const items = leads(9, (i) => (i < 3 ? DEMO.campaignId : i < 6 ? DEMO.otherCampaignId : DEMO.secondCampaignId));
			const output = await runActionNode({
				credentials: sim.credentials(),
				items,
				parameters: withoutRetries(addContacts({ options: { batchSize: 3, parallelRequests: 3 } })),
				continueOnFail: true,
			});
			expect(sim.requests()).toHaveLength(3);
			expectPairedOncePerItem(output, 9);
			expect(output.map((item) => ('error' in item.json ? 'error' : 'ok'))).toEqual([
				'ok', 'ok', 'ok', 'error', 'error', 'error', 'ok', 'ok', 'ok',
			]);
			expect(output[4].json.campaignId).toBe(DEMO.otherCampaignId);
		});
	});
});

/**
 * n8n moves an item to the error output only when its json is `error` alone or `error` and `message`
 * (n8n-core 1.123.81 handleNodeErrorOutput; 2.41.1 also allows `details`): the stricter rule of the two.
 */
const goesToErrorOutput = (item: INodeExecutionData) => {
	const keys = Object.keys(item.json).sort();
	return !!item.json.error && (keys.join() === 'error' || (keys.join() === 'error,message' && !!item.json.message));
};

describe('router: error items by On Error mode', () => {
	const contactItems = [
		{ json: { id: DEMO.completedContactId } },
		{ json: { id: 'not-a-uuid' } },
		{ json: { id: DEMO.otherContactId } },
	];
	const getContact = { resource: 'contact', operation: 'get', contactId: '={{ $json.id }}', requestOptions: { maxRetries: 0 } };

	it('Continue (using error output): every failed item is shaped for the error output, paired, and successes are not', async () => {
		const output = await runActionNode({
			credentials: sim.credentials(),
			items: contactItems,
			parameters: getContact,
			onError: 'continueErrorOutput',
		});
		expectPairedOncePerItem(output, 3);
		expect(output.map(goesToErrorOutput)).toEqual([false, true, true]);
		expect(output[1].json).toEqual({
			error: 'Contact ID must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got "not-a-uuid" [item 1]',
			message: expect.stringContaining('Use the id of a contact'),
		});
		expect(output[2].json).toEqual({
			error: 'Get Contact failed: the service answered status "error" (error)',
			message: expect.stringContaining('Check the Contact ID'),
		});
		expect(output[0].json.id).toBe(DEMO.completedContactId);
	});

	it('Continue (regular output): each failed item becomes an error item with its hint, on the success output, paired', async () => {
		const output = await runActionNode({ credentials: sim.credentials(), items: contactItems, parameters: getContact, onError: 'continueRegularOutput' });
		expectPairedOncePerItem(output, 3);
		expect(output[1].json).toEqual({ error: expect.stringMatching(/^Contact ID must be a UUID/), errorDescription: expect.any(String) });
		expect(output[2].json).toEqual({ error: expect.stringMatching(/^Get Contact failed/), errorDescription: expect.any(String) });
		expect(output.map(goesToErrorOutput)).toEqual([false, false, false]);
	});

	it('Continue (using error output): a refused Add to Campaign batch fails exactly its items, each with the reason and what to check', async () => {
		const items = leads(25);
		// Five digits pass the node's check but not the service's: the second batch of 10 is refused whole.
		items[12].json.phone = '+12345';
		const output = await runActionNode({
			credentials: sim.credentials(),
			items,
			parameters: addContacts({ options: { batchSize: 10 }, requestOptions: { maxRetries: 0 } }),
			onError: 'continueErrorOutput',
		});
		expect(sim.requests()).toHaveLength(3);
		expectPairedOncePerItem(output, 25);
		expect(output.flatMap((item, index) => (goesToErrorOutput(item) ? [index] : []))).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
		expect(output[11].json).toEqual({
			error: 'Add to Campaign failed: the service answered status "error" (error)',
			message: expect.stringContaining('Check the Campaign ID and the contacts of this batch'),
		});
		expect(output[20].json.added).toBe(1);
	});

	describe.each(['continueRegularOutput', 'continueErrorOutput'] as const)('a refusal of the whole run under %s', (onError) => {
		it('Max Contacts per Run: an error item per input item with the reason and its contact, and nothing sent', async () => {
			const items = leads(3);
			items[1].json.phone = 'n/a';
			const output = await runActionNode({
				credentials: sim.credentials(),
				items: [...items, ...leads(3).slice(0, 2)],
				parameters: addContacts({ options: { maxContactsPerRun: 3 } }),
				onError,
				});
			expect(sim.requests()).toHaveLength(0);
			expectPairedOncePerItem(output, 5);
			const reason = 'Max Contacts per Run is 3, but this run would add 4 contacts; nothing was sent [item 0]';
			const errors = output.map((item) => item.json.error);
			// The invalid item keeps its own error; the four valid ones carry the cap.
			expect(errors).toEqual([reason, expect.stringMatching(/^Phone Number .* \[item 1\]$/), reason, reason, reason]);
			if (onError === 'continueRegularOutput') {
				// As every error item of this mode: the contact it would have sent, and what to do.
				expect(output[2].json).toEqual({
					error: reason,
					campaignId: DEMO.campaignId,
					contact: { firstname: 'Lead2', lastname: 'Doe', phone_number: '+14155550002' },
					errorDescription: expect.stringContaining('Raise Options → Max Contacts per Run'),
				});
			} else {
				expect(output[2].json).toEqual({ error: reason, message: expect.stringContaining('Raise Options → Max Contacts per Run') });
			}
			expect(output.every(goesToErrorOutput)).toBe(onError === 'continueErrorOutput');
		});

		it('bad Request Options: an error item per input item, and nothing sent', async () => {
			const output = await runActionNode({
				credentials: sim.credentials(),
				items: contactItems,
				parameters: { ...getContact, requestOptions: { maxRetries: 11 } },
				onError,
				});
			expect(sim.requests()).toHaveLength(0);
			expectPairedOncePerItem(output, 3);
			// No hint comes with this refusal, so both shapes are the bare error (which n8n's error output takes).
			for (const item of output) expect(item.json).toEqual({ error: 'Request Options → Max Retries must be a whole number from 0 to 10, got 11 [item 0]' });
		});
	});

	it('without Continue On Fail stops a refused run with the same error', async () => {
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			items: leads(3),
			parameters: addContacts({ options: { maxContactsPerRun: 2 } }),
		});
		expect(error.message).toBe('Max Contacts per Run is 2, but this run would add 3 contacts; nothing was sent [item 0]');
		expect(sim.requests()).toHaveLength(0);
	});
});

describe('router: Retry On Fail (n8n runs the node again; what succeeded is not sent again)', () => {
	const TRIES = 3;
	/** Runs the node TRIES times over one run's execute data, as n8n does; returns each try's output or error. */
	async function runTries(options: Parameters<typeof triesOf>[0]) {
		const runTry = triesOf({ retryOnFail: true, ...options });
		const outcomes: Array<INodeExecutionData[] | Error> = [];
		for (let i = 0; i < TRIES; i++) outcomes.push(await runTry().catch((error: Error) => error));
		return outcomes;
	}
	const posts = () => sim.requests('/compaign/').length;
	const addedLeads = () => [...sim.simulator.state.contacts.values()].filter((contact) => contact.lastname === 'Doe').length;

	it('a refused batch is sent again on each try; the batches that went through are not', async () => {
		const items = leads(25);
		// Too short for the service (at least 7 digits): batch 0 (items 0-9) is refused on every try.
		items[2].json.phone = '+12345';
		const outcomes = await runTries({
			credentials: sim.credentials(),
			items,
			parameters: withoutRetries(addContacts({ options: { batchSize: 10 } })),
			continueOnFail: true,
		});
		// Try 1 sends batches 0, 1, 2; tries 2 and 3 send batch 0 only.
		expect(posts()).toBe(3 + (TRIES - 1));
		expect(addedLeads()).toBe(15);
		// Every try gives the output one run without retries gives: the same items, pairing and errors.
		const [first, ...later] = outcomes as INodeExecutionData[][];
		for (const output of later) expect(output).toEqual(first);
		expectPairedOncePerItem(first, 25);
		expect(first.slice(0, 10).every((item) => typeof item.json.error === 'string')).toBe(true);
		expect(first.slice(10).map((item) => item.json.batch)).toEqual([...Array(10).fill(1), ...Array(5).fill(2)]);
	});

	it('an invalid item 0 (the error item n8n retries on) sends the other items\' batches once', async () => {
		const items = leads(25);
		items[0].json.phone = 'not a phone';
		const outcomes = await runTries({
			credentials: sim.credentials(),
			items,
			parameters: withoutRetries(addContacts({ options: { batchSize: 10 } })),
			continueOnFail: true,
		});
		expect(posts()).toBe(3);
		expect(addedLeads()).toBe(24);
		const [first, ...later] = outcomes as INodeExecutionData[][];
		for (const output of later) expect(output).toEqual(first);
		expect(first[0].json.error).toEqual(expect.stringContaining('[item 0]'));
	});

	it('without Continue On Fail, a try after the node stopped sends only from the refused batch on', async () => {
		const items = leads(25);
		items[12].json.phone = '+12345';
		const outcomes = await runTries({ credentials: sim.credentials(), items, parameters: withoutRetries(addContacts({ options: { batchSize: 10 } })) });
		expect(outcomes.every((outcome) => outcome instanceof Error)).toBe(true);
		// Batch 0 once; batch 1, refused, on each try; batch 2 never (each try stops at batch 1).
		expect(posts()).toBe(1 + TRIES);
		expect(addedLeads()).toBe(10);
	});

	it('Create Webhook Module: each item that created its module is not sent again', async () => {
		const modules = () => sim.simulator.state.webhookModules.size;
		const before = modules();
		const outcomes = await runTries({
			credentials: sim.credentials(),
			items: [{ json: { event: 'no.such.event' } }, { json: { event: 'call.ended' } }, { json: { event: 'call.started' } }],
			parameters: withoutRetries({ resource: 'webhookModule', operation: 'create', eventType: '={{ $json.event }}', url: 'https://crm.example.com/events' }),
			continueOnFail: true,
		});
		expect(sim.requests('/v1/modules/webhook')).toHaveLength(2);
		expect(modules() - before).toBe(2);
		const [first, ...later] = outcomes as INodeExecutionData[][];
		for (const output of later) expect(output).toEqual(first);
	});

	it('two batches of the same contacts are two sends, on the first try as without Retry On Fail', async () => {
		const same = leads(1)[0].json;
		await triesOf({ credentials: sim.credentials(), items: [{ json: same }, { json: { ...same } }], parameters: withoutRetries(addContacts({ options: { batchSize: 1 } })), retryOnFail: true })();
		expect(posts()).toBe(2);
	});

	it('two items asking for the same module create two, on the first try as without Retry On Fail', async () => {
		const same = { resource: 'webhookModule', operation: 'create', eventType: 'call.ended', url: 'https://crm.example.com/events' };
		await triesOf({ credentials: sim.credentials(), items: [{ json: {} }, { json: {} }], parameters: withoutRetries(same), retryOnFail: true })();
		expect(sim.requests('/v1/modules/webhook')).toHaveLength(2);
	});

	it('a batch whose contacts came out differently on a later try (an expression with $now) is sent again', async () => {
		const items = leads(2);
		items[1].json.phone = '+12345';
		const runTry = triesOf({ credentials: sim.credentials(), items, parameters: withoutRetries(addContacts({ options: { batchSize: 1 } })), continueOnFail: true, retryOnFail: true });
		await runTry();
		items[0].json.first = 'Changed';
		items[1].json.phone = '+14155550199';
		await runTry();
		expect(sim.requests('/compaign/').map((request) => (request.body as Array<{ firstname: string }>)[0].firstname)).toEqual(['Lead0', 'Lead1', 'Changed', 'Lead1']);
	});

	it('separate runs of the node (another execution) send again', async () => {
		const options = { credentials: sim.credentials(), items: leads(3), parameters: withoutRetries(addContacts()), continueOnFail: true };
		await triesOf({ retryOnFail: true, ...options })();
		await triesOf({ retryOnFail: true, ...options })();
		expect(posts()).toBe(2);
	});

	it('reads, and runs without Retry On Fail, send on every try as before', async () => {
		const getContact = withoutRetries({ resource: 'contact', operation: 'get', contactId: '={{ $json.id }}' });
		const readTry = triesOf({ credentials: sim.credentials(), items: [{ json: { id: 'not-a-uuid' } }, { json: { id: DEMO.completedContactId } }], parameters: getContact, continueOnFail: true, retryOnFail: true });
		for (let i = 0; i < TRIES; i++) await readTry();
		expect(sim.requests('/contacts/')).toHaveLength(TRIES);

		const writeTry = triesOf({ credentials: sim.credentials(), items: leads(3), parameters: withoutRetries(addContacts()), continueOnFail: true });
		for (let i = 0; i < TRIES; i++) await writeTry();
		expect(posts()).toBe(TRIES);
	});
});
