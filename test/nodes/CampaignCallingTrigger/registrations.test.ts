/**
 * What the trigger keeps of the modules it registered (registrations.ts): the records in the workflow's
 * static data under the node's id, read defensively (static data is the user's workflow, edited,
 * imported or damaged), the account a module was registered at, the secret check, how a delivery
 * through a module is judged by what is true now, and when static data is written.
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import {
	currentAccount,
	currentModule,
	currentModuleRecords,
	judgeDelivery,
	moduleWithSecret,
	syncModuleRecords,
	rememberRegistration,
	secretVerifier,
	serves,
} from '../../../nodes/CampaignCallingTrigger/registrations';
import type { Account } from '../../../nodes/CampaignCallingTrigger/registrations';
import type { ModuleRecord, ModuleRecords } from '../../../nodes/CampaignCallingTrigger/registrations';

const URL = 'https://n8n.example.test/webhook/abc/webhook';
const NEW_URL = 'https://calls.example.test/webhook/abc/webhook';
const KEY = 'key-of-company-a-0123456789';

/** What the trigger's code asks of n8n here: the workflow's global static data, the node, its credential. */
function contextOf(global: IDataObject, nodeId = 'node-1', credentials = { baseUrl: 'https://api.example.test', apiKey: KEY }) {
	return {
		getWorkflowStaticData: (type: string) => {
			if (type !== 'global') throw new Error(`static data of type ${type}`);
			return global;
		},
		getNode: () => ({ id: nodeId, name: 'Campaign Calling Trigger' }),
		getCredentials: async () => credentials,
	} as unknown as IHookFunctions;
}

let unseenTriggers = 0;
/** The records static data holds, as read for a trigger this process knows nothing of. */
const readRecords = (global: IDataObject) => currentModuleRecords.call(contextOf(global), `unseen-trigger-${++unseenTriggers}`);

/** An account that owns the fingerprints 'a:...' and makes those. */
const accountA: Account = { fingerprint: () => 'salt.a', owns: (stored) => stored === 'salt.a' };
const record = (secret: string, changes: Partial<ModuleRecord> = {}): ModuleRecord => ({
	url: URL,
	event: 'call.ended',
	verifier: secretVerifier(secret),
	timeout: 30,
	retryLimit: 3,
	account: 'salt.a',
	registeredAt: 1_000,
	moduleId: `module-${secret}`,
	...changes,
});
const recordsOf = (...records: ModuleRecord[]): ModuleRecords => Object.fromEntries(records.map((one) => [one.verifier, one]));
/** Global static data holding these records for the node 'node-1', as the trigger stores them. */
const staticDataHolding = (...records: ModuleRecord[]): IDataObject => ({ 'campaignCallingTrigger:node-1': { modules: recordsOf(...records) } as unknown as IDataObject });

describe('the account a credential reaches', () => {
	it('is stored as a salt and a keyed fingerprint: never the key, different each time, owned only by the same Base URL and key', async () => {
		const account = await currentAccount.call(contextOf({}));
		const [first, second] = [account.fingerprint(), account.fingerprint()];
		expect(first).toMatch(/^[A-Za-z0-9]{16}\.[\w-]{43}$/);
		expect(first).not.toBe(second);
		expect(first).not.toContain(KEY);
		expect([account.owns(first), account.owns(second)]).toEqual([true, true]);

		const withSlash = await currentAccount.call(contextOf({}, 'node-1', { baseUrl: 'https://api.example.test/', apiKey: KEY }));
		const otherKey = await currentAccount.call(contextOf({}, 'node-1', { baseUrl: 'https://api.example.test', apiKey: `${KEY}x` }));
		const otherHost = await currentAccount.call(contextOf({}, 'node-1', { baseUrl: 'https://eu.api.example.test', apiKey: KEY }));
		expect([withSlash.owns(first), otherKey.owns(first), otherHost.owns(first)]).toEqual([true, false, false]);
	});

	it('owns no damaged fingerprint', async () => {
		const account = await currentAccount.call(contextOf({}));
		const [salt, mac] = account.fingerprint().split('.');
		expect([account.owns(mac), account.owns(`.${mac}`), account.owns(`${salt}.`), account.owns('')]).toEqual([false, false, false, false]);
	});
});

describe('a module that still serves', () => {
	it('has the same Timeout, Retry Limit and account', () => {
		const registered = record('s');
		expect(serves(registered, { timeout: 30, retryLimit: 3 }, accountA)).toBe(true);
		expect(serves(registered, { timeout: 90, retryLimit: 3 }, accountA)).toBe(false);
		expect(serves(registered, { timeout: 30, retryLimit: 5 }, accountA)).toBe(false);
		expect(serves(record('s', { account: 'salt.b' }), { timeout: 30, retryLimit: 3 }, accountA)).toBe(false);
		expect(serves(undefined, { timeout: 30, retryLimit: 3 }, accountA)).toBe(false);
	});

	it('is the newest registered for the URL and event', () => {
		const records = recordsOf(record('old'), record('new', { registeredAt: 2_000 }), record('other event', { event: 'call.started', registeredAt: 3_000 }), record('other URL', { url: NEW_URL, registeredAt: 4_000 }));
		expect(currentModule(records, URL, 'call.ended')?.moduleId).toBe('module-new');
		expect(currentModule(records, URL, 'campaign.completed')).toBeUndefined();
	});
});

describe('module records read from static data', () => {
	it('keep well-formed records and drop every other value, so a damaged workflow cannot make a secret pass', () => {
		const good = record('good');
		const withoutId = record('no id');
		delete withoutId.moduleId;
		const damaged = [
			{ ...record('a'), verifier: 42 },
			{ ...record('b'), verifier: '' },
			{ ...record('c'), timeout: '30' },
			{ ...record('d'), account: undefined },
			{ ...record('e'), registeredAt: '1000' },
			{ ...record('f'), url: '' },
			{ ...record('g'), moduleId: 7 },
			'not a record',
		];
		const modules = { [good.verifier]: good, [withoutId.verifier]: withoutId, ...Object.fromEntries(damaged.map((value, index) => [`damaged-${index}`, value])) };
		const read = readRecords({ 'campaignCallingTrigger:node-1': { modules } as unknown as IDataObject });
		const moduleG = { ...record('g') };
		delete moduleG.moduleId;
		expect(read).toEqual(recordsOf(good, withoutId, moduleG));
	});

	it('are none when static data holds nothing of the trigger', () => {
		expect(readRecords({})).toEqual({});
		expect(readRecords({ 'campaignCallingTrigger:node-1': 'damaged' })).toEqual({});
		expect(readRecords({ 'campaignCallingTrigger:node-1': { modules: 'damaged' } })).toEqual({});
		expect(readRecords({ 'campaignCallingTrigger:another-node': { modules: recordsOf(record('s')) as unknown as IDataObject } })).toEqual({});
	});
});

describe('a presented secret', () => {
	it('is known when it matches any record, also beside a damaged verifier of another length', () => {
		const secret = randomString(64);
		const records = { short: { ...record('x'), verifier: 'short' }, ...recordsOf(record(secret)) };
		expect(moduleWithSecret(records, secret)).toEqual(record(secret));
		expect(moduleWithSecret(records, randomString(64))).toBeUndefined();
	});
});

describe('a delivery through a module, judged by what is true now', () => {
	const sender = record('sender');

	it('runs when the module is the current one for this URL and account', () => {
		expect(judgeDelivery(recordsOf(sender), sender, accountA, URL)).toEqual({ accepted: true });
	});

	it('is refused when the module was registered at another account, whatever else holds', () => {
		const verdict = judgeDelivery(recordsOf(sender), sender, { ...accountA, owns: () => false }, URL);
		expect(verdict).toEqual({
			accepted: false,
			reason: "refused a delivery through webhook module module-sender (call.ended): it was registered with another account than the credential's now. To register at the current account, publish the workflow again (unpublish, then publish; on n8n 1.x deactivate, then activate); the service keeps the old module, which the provider can remove by its id.",
		});
	});

	it('through an earlier URL\'s module runs, with advice to publish again, until a module of this account exists for the current URL', () => {
		const otherAccounts = record('other account', { url: NEW_URL, account: 'salt.b', registeredAt: 2_000 });
		const otherEvent = record('other event', { url: NEW_URL, event: 'call.started', registeredAt: 2_000 });
		expect(judgeDelivery(recordsOf(sender, otherAccounts, otherEvent), sender, accountA, NEW_URL)).toEqual({
			accepted: true,
			advice: `accepted a delivery through webhook module module-sender (call.ended), registered for the earlier webhook URL ${URL}: publish the workflow again (unpublish, then publish; on n8n 1.x deactivate, then activate) to register a module for the current webhook URL ${NEW_URL}.`,
		});
		const successor = record('successor', { url: NEW_URL, registeredAt: 2_000 });
		expect(judgeDelivery(recordsOf(sender, successor), sender, accountA, NEW_URL)).toEqual({
			accepted: false,
			reason: `refused a delivery through webhook module module-sender (call.ended): it was registered for the earlier webhook URL ${URL}; module module-successor delivers to ${NEW_URL}.`,
		});
	});

	it('without a URL to judge by (a test delivery) is judged by account and replacement only', () => {
		const successor = record('successor', { url: NEW_URL, registeredAt: 2_000 });
		expect(judgeDelivery(recordsOf(sender, successor), sender, accountA, undefined)).toEqual({ accepted: true });
	});

	it('through a replaced module runs for its own retry window, (Retry Limit + 1) × Timeout and a minute after its successor came, then is refused', () => {
		const successor = record('successor', { registeredAt: 10_000, timeout: 90 });
		const later = record('later', { registeredAt: 50_000 });
		const records = recordsOf(sender, successor, later);
		const windowEnd = 10_000 + 4 * 30_000 + 60_000;
		expect(judgeDelivery(records, sender, accountA, URL, windowEnd - 1)).toEqual({ accepted: true });
		expect(judgeDelivery(records, sender, accountA, URL, windowEnd)).toEqual({
			accepted: false,
			reason: `refused a delivery through webhook module module-sender (call.ended): module module-successor replaced it on ${new Date(10_000).toISOString()} (Timeout or Retry Limit changed), and its retries have ended.`,
		});
		expect(judgeDelivery(records, later, accountA, URL, windowEnd)).toEqual({ accepted: true });
	});

	it('through a module with a later module for another event at the same URL is not replaced by it', () => {
		const otherEvent = record('other event', { event: 'call.started', registeredAt: 10_000 });
		expect(judgeDelivery(recordsOf(sender, otherEvent), sender, accountA, URL, 10_000_000)).toEqual({ accepted: true });
	});

	it('names a module whose id the service did not return as such', () => {
		const withoutId = { ...sender };
		delete withoutId.moduleId;
		const verdict = judgeDelivery(recordsOf(withoutId), withoutId, { ...accountA, owns: () => false }, URL);
		expect(verdict.accepted === false && verdict.reason).toMatch(/^refused a delivery through webhook module \(id not returned\) \(call\.ended\)/);
	});
});

describe('static data', () => {
	const stored = (global: IDataObject) => (global['campaignCallingTrigger:node-1'] as IDataObject | undefined)?.modules;

	it('is written, under the node\'s id in global static data, only when this process registered a module that static data lacks', () => {
		const trigger = 'workflow-static:node-1';
		const global = staticDataHolding(record('stored'));
		const context = contextOf(global);
		const before = global['campaignCallingTrigger:node-1'];

		syncModuleRecords.call(context, trigger);
		expect(global['campaignCallingTrigger:node-1']).toBe(before);

		rememberRegistration(trigger, record('stored'));
		syncModuleRecords.call(context, trigger);
		expect(global['campaignCallingTrigger:node-1']).toBe(before);

		rememberRegistration(trigger, record('newer', { registeredAt: 2_000 }));
		expect(syncModuleRecords.call(context, trigger)).toEqual(recordsOf(record('stored'), record('newer', { registeredAt: 2_000 })));
		expect(stored(global)).toEqual(recordsOf(record('stored'), record('newer', { registeredAt: 2_000 })));
		expect(Object.keys(global)).toEqual(['campaignCallingTrigger:node-1']);
	});

	it("that is empty (n8n's test listen) gets the records this process read in the trigger's stored static data, and this process's registrations", () => {
		const trigger = 'workflow-read-from-store:node-1';
		const TEST_URL = URL.replace('/webhook/', '/webhook-test/');
		const production = record('production');
		const test = record('test, stored', { url: TEST_URL });
		syncModuleRecords.call(contextOf(staticDataHolding(production, test)), trigger);

		const listening: IDataObject = {};
		expect(syncModuleRecords.call(contextOf(listening), trigger)).toEqual(recordsOf(production, test));
		const registered = record('test, registered here', { url: TEST_URL, registeredAt: 2_000 });
		rememberRegistration(trigger, registered);
		expect(syncModuleRecords.call(contextOf({}), trigger)).toEqual(recordsOf(production, test, registered));
		expect(syncModuleRecords.call(contextOf({}), 'another-workflow:node-1')).toEqual({});
	});

	it('at 100 records, takes a module this process registers in, the oldest out', () => {
		const trigger = 'workflow-full:node-1';
		const records = Array.from({ length: 100 }, (_, index) => record(`full-${index}`, { registeredAt: 1_000 + index }));
		const global = staticDataHolding(...records);
		const newest = record('newest', { registeredAt: 5_000 });
		rememberRegistration(trigger, newest);
		syncModuleRecords.call(contextOf(global), trigger);
		expect(Object.keys(stored(global) as IDataObject)).toEqual([...records.slice(1), newest].map((one) => one.verifier));
	});

	it('holding more than 100 records (an edited or imported workflow) keeps the newest 100 at the next activation', () => {
		const records = Array.from({ length: 103 }, (_, index) => record(`imported-${index}`, { registeredAt: 1_000 + index }));
		const global = staticDataHolding(...records);
		syncModuleRecords.call(contextOf(global), 'workflow-imported:node-1');
		expect(Object.keys(stored(global) as IDataObject)).toEqual(records.slice(3).map((one) => one.verifier));
	});

	it('registered by another process later than this process\'s own registration gives the current module, whichever was read last', () => {
		const trigger = 'workflow-two-processes:node-1';
		const ownEarlier = record('registered here', { registeredAt: 1_000 });
		const otherLater = record('registered by another process', { registeredAt: 2_000 });
		rememberRegistration(trigger, ownEarlier);
		const records = currentModuleRecords.call(contextOf(staticDataHolding(otherLater)), trigger);
		expect(currentModule(records, URL, 'call.ended')?.verifier).toBe(otherLater.verifier);
	});

	it("that a trigger in use read stays known to it after 10,000 other triggers read theirs: the bound drops the trigger read longest ago", () => {
		const trigger = 'workflow-in-use:node-1';
		const inUse = record('in use');
		const readStored = (name: string) => currentModuleRecords.call(contextOf(staticDataHolding(inUse)), name);
		readStored(trigger);
		for (let other = 0; other < 9_999; other++) readStored(`workflow-deleted-${other}:node-1`);
		readStored(trigger);
		readStored('workflow-deleted-last:node-1');
		expect(currentModuleRecords.call(contextOf({}), trigger)).toEqual(recordsOf(inUse));
		expect(currentModuleRecords.call(contextOf({}), 'workflow-deleted-0:node-1')).toEqual({});
	});

	it('keeps the newest 100 records of a trigger, oldest gone first', () => {
		const trigger = 'workflow-bounded:node-1';
		const records = Array.from({ length: 103 }, (_, index) => record(`s-${index}`, { registeredAt: 1_000 + index }));
		for (const one of records) rememberRegistration(trigger, one);
		const global: IDataObject = {};
		expect(Object.keys(syncModuleRecords.call(contextOf(global), trigger))).toEqual(records.slice(3).map((one) => one.verifier));
		expect(Object.keys(stored(global) as IDataObject)).toHaveLength(100);
	});
});
