/**
 * The account the trigger's credential reaches (account.ts): an activation reads the credential afresh,
 * deliveries share one read for 5 s (and while it is pending), and a credential that cannot be read is no
 * account, not an error.
 */
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { accountWithin, freshAccount, recentAccount } from '../../../nodes/CampaignCallingTrigger/account';

let nodes = 0;

/** A trigger node's contexts, one per call as n8n makes them, counting the credential reads they make. */
function triggerNode(credentials: () => Promise<{ baseUrl: string; apiKey: string }>, ids: { workflowId?: string; nodeId?: string } = {}) {
	const node = { id: ids.nodeId ?? `account-node-${++nodes}`, name: 'Campaign Calling Trigger', credentials: { campaignCallingApi: { id: 'credential-1', name: 'Account' } } };
	const workflow = { id: ids.workflowId ?? 'account-workflow' };
	const reads = jest.fn(credentials);
	const context = () => ({ getWorkflow: () => workflow, getNode: () => node, getCredentials: reads }) as unknown as IHookFunctions & IWebhookFunctions;
	// As the node file makes it (thisTriggerKey): the workflow's id and the node's.
	return { context, reads, key: `${workflow.id}:${node.id}` };
}
const working = async () => ({ baseUrl: 'https://api.example.test', apiKey: 'key-0123456789' });

/** A credential read that settles only when the test says: a database that hangs. */
function hangingRead() {
	let settle: (credentials: { baseUrl: string; apiKey: string }) => void = () => undefined;
	const pending = new Promise<{ baseUrl: string; apiKey: string }>((resolve) => {
		settle = resolve;
	});
	return { read: async () => await pending, settle };
}

describe('the account a trigger\'s credential reaches', () => {
	afterEach(() => jest.restoreAllMocks());

	it('is read once for concurrent deliveries, and again once the read is 5 s old', async () => {
		const { context, reads, key } = triggerNode(working);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const accounts = await Promise.all(Array.from({ length: 10 }, async () => await recentAccount.call(context(), key)));
		expect(new Set(accounts).size).toBe(1);
		expect(accounts[0]).toMatch(/^[\w-]{43}$/);
		clock.mockReturnValue(start + 4_999);
		await recentAccount.call(context(), key);
		expect(reads).toHaveBeenCalledTimes(1);
		clock.mockReturnValue(start + 5_000);
		await recentAccount.call(context(), key);
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('is read afresh for an activation, whatever deliveries read a moment before, and serves them after', async () => {
		const { context, reads, key } = triggerNode(working);
		await recentAccount.call(context(), key);
		await freshAccount.call(context(), key);
		expect(reads).toHaveBeenCalledTimes(2);
		await recentAccount.call(context(), key);
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('is no account (undefined) for deliveries when the credential cannot be read, and an error for an activation', async () => {
		const { context, key } = triggerNode(async () => {
			throw new Error('Credential with ID "credential-1" does not exist for type "campaignCallingApi".');
		});
		await expect(recentAccount.call(context(), key)).resolves.toBeUndefined();
		await expect(freshAccount.call(context(), key)).rejects.toThrow('does not exist');
	});

	it('is read afresh within the 5 s when the node was given another credential', async () => {
		const { context, reads, key } = triggerNode(working);
		await recentAccount.call(context(), key);
		const switched = context();
		const node = switched.getNode();
		jest.spyOn(switched, 'getNode').mockReturnValue({ ...node, credentials: { campaignCallingApi: { id: 'credential-2', name: 'Another account' } } });
		await recentAccount.call(switched, key);
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('is told apart per trigger: one salt per workflow and node, so two workflows with the same node id (a copy) fingerprint apart', async () => {
		const [first, second] = [triggerNode(working), triggerNode(working)];
		expect(await recentAccount.call(first.context(), first.key)).not.toBe(await recentAccount.call(second.context(), second.key));
		// A copied workflow keeps its nodes' ids: only the workflow's id tells the copy's records from the original's.
		const [original, copy] = [triggerNode(working, { workflowId: 'original', nodeId: 'copied-node' }), triggerNode(working, { workflowId: 'copy', nodeId: 'copied-node' })];
		expect(await recentAccount.call(original.context(), original.key)).not.toBe(await recentAccount.call(copy.context(), copy.key));
		expect([original.reads.mock.calls.length, copy.reads.mock.calls.length]).toEqual([1, 1]);
	});

	it('is read once while a read hangs, past the 5 s too: a pending read serves later deliveries, no second read starts', async () => {
		const { read } = hangingRead();
		const { context, reads, key } = triggerNode(read);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		void recentAccount.call(context(), key);
		clock.mockReturnValue(start + 6_000);
		void recentAccount.call(context(), key);
		// Both deliveries wait on the one read: a hanging database gets no pile of reads.
		await new Promise((resolve) => setImmediate(resolve));
		expect(reads).toHaveBeenCalledTimes(1);
	});

	it('is undefined within a wait (accountWithin) that passes while the read hangs; the late read still serves the next delivery, with no new read', async () => {
		const { read, settle } = hangingRead();
		const { context, reads, key } = triggerNode(read);
		const started = performance.now();
		await expect(accountWithin.call(context(), key, 200)).resolves.toBeUndefined();
		expect(performance.now() - started).toBeGreaterThanOrEqual(190);
		settle(await working());
		const late = await recentAccount.call(context(), key);
		expect(late).toMatch(/^[\w-]{43}$/);
		expect(reads).toHaveBeenCalledTimes(1);
		// The same account read promptly: the wait changes nothing of what a read gives.
		await expect(accountWithin.call(context(), key, 200)).resolves.toBe(late);
	});
});
