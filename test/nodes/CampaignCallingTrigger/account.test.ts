/**
 * The account the trigger's credential reaches (account.ts): an activation reads the credential afresh,
 * deliveries share one read for 5 s, and a credential that cannot be read is no account, not an error.
 */
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { freshAccount, recentAccount } from '../../../nodes/CampaignCallingTrigger/account';

let nodes = 0;

/** A trigger node's contexts, one per call as n8n makes them, counting the credential reads they make. */
function triggerNode(credentials: () => Promise<{ baseUrl: string; apiKey: string }>) {
	const node = { id: `account-node-${++nodes}`, name: 'Campaign Calling Trigger', credentials: { campaignCallingApi: { id: 'credential-1', name: 'Account' } } };
	const reads = jest.fn(credentials);
	const context = () => ({ getNode: () => node, getCredentials: reads }) as unknown as IHookFunctions & IWebhookFunctions;
	return { context, reads };
}
const working = async () => ({ baseUrl: 'https://api.example.test', apiKey: 'key-0123456789' });

describe('the account a trigger\'s credential reaches', () => {
	afterEach(() => jest.restoreAllMocks());

	it('is read once for concurrent deliveries, and again once the read is 5 s old', async () => {
		const { context, reads } = triggerNode(working);
		const start = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
		const accounts = await Promise.all(Array.from({ length: 10 }, async () => await recentAccount.call(context())));
		expect(new Set(accounts).size).toBe(1);
		expect(accounts[0]).toMatch(/^[\w-]{43}$/);
		clock.mockReturnValue(start + 4_999);
		await recentAccount.call(context());
		expect(reads).toHaveBeenCalledTimes(1);
		clock.mockReturnValue(start + 5_000);
		await recentAccount.call(context());
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('is read afresh for an activation, whatever deliveries read a moment before, and serves them after', async () => {
		const { context, reads } = triggerNode(working);
		await recentAccount.call(context());
		await freshAccount.call(context());
		expect(reads).toHaveBeenCalledTimes(2);
		await recentAccount.call(context());
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('is no account (undefined) for deliveries when the credential cannot be read, and an error for an activation', async () => {
		const { context } = triggerNode(async () => {
			throw new Error('Credential with ID "credential-1" does not exist for type "campaignCallingApi".');
		});
		await expect(recentAccount.call(context())).resolves.toBeUndefined();
		await expect(freshAccount.call(context())).rejects.toThrow('does not exist');
	});

	it('is read afresh within the 5 s when the node was given another credential', async () => {
		const { context, reads } = triggerNode(working);
		await recentAccount.call(context());
		const switched = context();
		const node = switched.getNode();
		jest.spyOn(switched, 'getNode').mockReturnValue({ ...node, credentials: { campaignCallingApi: { id: 'credential-2', name: 'Another account' } } });
		await recentAccount.call(switched);
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('is told apart per trigger node: one salt per node', async () => {
		const [first, second] = [triggerNode(working), triggerNode(working)];
		expect(await recentAccount.call(first.context())).not.toBe(await recentAccount.call(second.context()));
	});
});
