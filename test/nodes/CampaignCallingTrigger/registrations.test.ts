/**
 * What the trigger keeps of the modules it registered (registrations.ts): the records in the workflow's
 * static data under the node's id, read defensively (static data is the user's workflow, edited,
 * imported or damaged), the account a module was registered at, the secret check, how a delivery
 * through a module is judged by what is true now, and when static data is written.
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import {
	currentModule,
	currentModuleRecords,
	judgeDelivery,
	moduleWithSecret,
	rememberRegistration,
	secretVerifier,
	serves,
	syncModuleRecords,
	withinBound,
} from '../../../nodes/CampaignCallingTrigger/registrations';
import type { DeliveryCircumstances, ModuleRecord, ModuleRecords } from '../../../nodes/CampaignCallingTrigger/registrations';

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

const record = (secret: string, changes: Partial<ModuleRecord> = {}): ModuleRecord => ({
	url: URL,
	event: 'call.ended',
	verifier: secretVerifier(secret),
	timeout: 30,
	retryLimit: 3,
	account: 'account-a',
	registeredAt: 1_000,
	moduleId: `module-${secret}`,
	...changes,
});
const recordsOf = (...records: ModuleRecord[]): ModuleRecords => Object.fromEntries(records.map((one) => [one.verifier, one]));
/** Global static data holding these records for the node 'node-1', as the trigger stores them. */
const staticDataHolding = (...records: ModuleRecord[]): IDataObject => ({ 'campaignCallingTrigger:node-1': { modules: recordsOf(...records) } as unknown as IDataObject });

describe('a module that still serves', () => {
	it('has the same Timeout, Retry Limit and account', () => {
		const registered = record('s');
		expect(serves(registered, { timeout: 30, retryLimit: 3 }, 'account-a')).toBe(true);
		expect(serves(registered, { timeout: 90, retryLimit: 3 }, 'account-a')).toBe(false);
		expect(serves(registered, { timeout: 30, retryLimit: 5 }, 'account-a')).toBe(false);
		expect(serves(record('s', { account: 'account-b' }), { timeout: 30, retryLimit: 3 }, 'account-a')).toBe(false);
		expect(serves(undefined, { timeout: 30, retryLimit: 3 }, 'account-a')).toBe(false);
	});

	it('is judged by its settings alone when the credential cannot be read (n8n 1.x then leaves the webhook unregistered if checkExists throws)', () => {
		expect(serves(record('s', { account: 'account-b' }), { timeout: 30, retryLimit: 3 }, undefined)).toBe(true);
		expect(serves(record('s'), { timeout: 90, retryLimit: 3 }, undefined)).toBe(false);
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
		const listened = record('listened', { listen: true });
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
		const modules = { [good.verifier]: good, [listened.verifier]: listened, [withoutId.verifier]: withoutId, ...Object.fromEntries(damaged.map((value, index) => [`damaged-${index}`, value])) };
		const read = readRecords({ 'campaignCallingTrigger:node-1': { modules } as unknown as IDataObject });
		const moduleG = { ...record('g') };
		delete moduleG.moduleId;
		expect(read).toEqual(recordsOf(good, listened, withoutId, moduleG));
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

describe('a delivery through a module, judged by the records and the clock (the rule of docs/trigger.md, "After you change something")', () => {
	const module = record('module');
	/** (Retry Limit 3 + 1) × Timeout 30 s and a minute: the module's own retry window. */
	const WINDOW = 4 * 30_000 + 60_000;
	const REPUBLISH = 'publish the workflow again (on n8n 2.x unpublish, then publish; on n8n 1.x deactivate, then activate)';

	/** The verdict, and whether the credential was read for it; null for a test delivery's URL, or a credential that cannot be read. */
	async function judge(records: ModuleRecords, through: ModuleRecord, { productionUrl = URL as string | null, now = 2_000, account = 'account-a' as string | null } = {}) {
		const read = jest.fn(async () => account ?? undefined);
		const circumstances: DeliveryCircumstances = { productionUrl: productionUrl ?? undefined, now, account: read };
		return { verdict: await judgeDelivery(records, through, circumstances), credentialRead: read.mock.calls.length > 0 };
	}
	const refusal = (replacing: ModuleRecord, where = '', tail = '') =>
		`refused a delivery through webhook module module-module (call.ended): module ${replacing.moduleId} replaced it${where} on ${new Date(replacing.registeredAt).toISOString()}, and its retries have ended.${tail}`;

	it('through the current module runs without reading the credential', async () => {
		expect(await judge(recordsOf(module), module)).toEqual({ verdict: { accepted: true }, credentialRead: false });
	});

	it('through the current module runs without reading the credential after a key rotated or the credential edited, not published (its warning is logged apart)', async () => {
		expect(await judge(recordsOf(module), module, { account: 'account-b' })).toEqual({ verdict: { accepted: true }, credentialRead: false });
		expect(await judge(recordsOf(module), module, { account: null })).toEqual({ verdict: { accepted: true }, credentialRead: false });
	});

	describe.each([
		['another account (a key rotated, or another company), published', 'account-b'],
		['Timeout or Retry Limit changed, published', 'account-a'],
	])('replaced by a later module for its URL: %s', (_label, laterAccount) => {
		const later = record('later', { registeredAt: 10_000, timeout: 90, account: laterAccount });
		const records = recordsOf(module, later);

		it("runs for its own retry window from the later module's registration, without reading the credential", async () => {
			expect(await judge(records, module, { now: 10_000 + WINDOW - 1 })).toEqual({ verdict: { accepted: true }, credentialRead: false });
		});

		it('is refused once that window has passed, naming the module that replaced it', async () => {
			expect(await judge(records, module, { now: 10_000 + WINDOW, account: laterAccount })).toEqual({
				verdict: { accepted: false, reason: refusal(later) },
				credentialRead: true,
			});
		});

		it('leaves the later module running', async () => {
			expect(await judge(records, later, { now: 10_000_000, account: laterAccount })).toEqual({ verdict: { accepted: true }, credentialRead: false });
		});
	});

	it("runs past its window when the credential was edited back to its account, which owns none of the later modules (key A, B published, A again)", async () => {
		const later = record('later', { registeredAt: 10_000, account: 'account-b' });
		expect(await judge(recordsOf(module, later), module, { now: 10_000_000, account: 'account-a' })).toEqual({ verdict: { accepted: true }, credentialRead: true });
	});

	it('is refused past its window when the account owns one of two later modules, naming the newer of them', async () => {
		const otherAccount = record('other account', { registeredAt: 10_000, account: 'account-b' });
		const sameAccount = record('same account', { registeredAt: 20_000, account: 'account-a' });
		expect((await judge(recordsOf(module, otherAccount, sameAccount), module, { now: 20_000 + WINDOW, account: 'account-a' })).verdict).toEqual({ accepted: false, reason: refusal(sameAccount) });
		expect((await judge(recordsOf(module, sameAccount, otherAccount), module, { now: 20_000 + WINDOW, account: 'account-a' })).verdict).toEqual({ accepted: false, reason: refusal(sameAccount) });
	});

	it('is refused past its window when the account owns a later module too: a later credential change never brings a replaced module back', async () => {
		const timeoutChanged = record('timeout changed', { registeredAt: 10_000, timeout: 90 });
		const records = recordsOf(module, timeoutChanged);
		expect((await judge(records, module, { now: 10_000 + WINDOW, account: 'account-a' })).verdict).toEqual({ accepted: false, reason: refusal(timeoutChanged) });
		// Timeout changed and published, then the key rotated without publishing: only the newer module runs.
		expect((await judge(records, module, { now: 10_000 + WINDOW, account: 'account-b' })).verdict).toEqual({ accepted: false, reason: refusal(timeoutChanged) });
		expect((await judge(records, timeoutChanged, { now: 10_000 + WINDOW, account: 'account-b' })).verdict).toEqual({ accepted: true });
	});

	it('is refused past its window when the credential cannot be read (deleted, not decryptable): the rule without its exception', async () => {
		const later = record('later', { registeredAt: 10_000, account: 'account-b' });
		expect(await judge(recordsOf(module, later), module, { now: 10_000 + WINDOW, account: null })).toEqual({
			verdict: { accepted: false, reason: refusal(later, '', " The credential could not be read, so whether it still reaches this module's account was not checked.") },
			credentialRead: true,
		});
	});

	it('counts its window by its own Retry Limit and Timeout, from the later of the two registrations', async () => {
		const slow = record('slow', { timeout: 300, retryLimit: 1, registeredAt: 1_000 });
		const later = record('later', { registeredAt: 10_000 });
		const slowWindow = 2 * 300_000 + 60_000;
		expect((await judge(recordsOf(slow, later), slow, { now: 10_000 + slowWindow - 1 })).verdict).toEqual({ accepted: true });
		expect((await judge(recordsOf(slow, later), slow, { now: 10_000 + slowWindow })).verdict.accepted).toBe(false);
	});

	it('is not replaced by a later module for another event', async () => {
		const otherEvent = record('other event', { event: 'call.started', registeredAt: 10_000 });
		expect((await judge(recordsOf(module, otherEvent), module, { now: 10_000_000 })).verdict).toEqual({ accepted: true });
	});

	describe("for an earlier webhook URL (n8n's URL changed)", () => {
		it('runs, advising once to publish again, while no module exists for the current URL', async () => {
			const otherEvent = record('other event', { url: NEW_URL, event: 'call.started', registeredAt: 2_000 });
			expect(await judge(recordsOf(module, otherEvent), module, { productionUrl: NEW_URL, now: 10_000_000 })).toEqual({
				verdict: {
					accepted: true,
					advice: `accepted a delivery through webhook module module-module (call.ended), registered for the earlier webhook URL ${URL}: ${REPUBLISH} to register a module for the current webhook URL ${NEW_URL}.`,
				},
				credentialRead: false,
			});
		});

		it("runs for its window once a module exists for the current URL, then is refused, naming that URL", async () => {
			const current = record('current', { url: NEW_URL, registeredAt: 10_000 });
			const records = recordsOf(module, current);
			expect((await judge(records, module, { productionUrl: NEW_URL, now: 10_000 + WINDOW - 1 })).verdict).toEqual({ accepted: true });
			expect((await judge(records, module, { productionUrl: NEW_URL, now: 10_000 + WINDOW })).verdict).toEqual({ accepted: false, reason: refusal(current, ` for the webhook URL ${NEW_URL}`) });
		});

		it("is refused when n8n's URL went back to one whose module is older, from its own registration's window on", async () => {
			const back = record('module', { url: NEW_URL, registeredAt: 5_000 });
			const older = record('older', { registeredAt: 1_000 });
			expect((await judge(recordsOf(older, back), back, { productionUrl: URL, now: 5_000 + WINDOW - 1 })).verdict).toEqual({ accepted: true });
			expect((await judge(recordsOf(older, back), back, { productionUrl: URL, now: 5_000 + WINDOW })).verdict.accepted).toBe(false);
		});
	});

	it("through a test listen's module (no production URL given) is judged against its own URL only: a publish never silences a later listen", async () => {
		const TEST_URL = URL.replace('/webhook/', '/webhook-test/');
		const listened = record('module', { url: TEST_URL, listen: true });
		const published = record('published', { registeredAt: 10_000 });
		expect((await judge(recordsOf(listened, published), listened, { productionUrl: null, now: 10_000_000 })).verdict).toEqual({ accepted: true });
		const listenedAgain = record('listened again', { url: TEST_URL, listen: true, registeredAt: 20_000, account: 'account-b' });
		expect((await judge(recordsOf(listened, published, listenedAgain), listened, { productionUrl: null, now: 20_000 + WINDOW, account: 'account-b' })).verdict).toEqual({
			accepted: false,
			reason: refusal(listenedAgain),
		});
	});

	it('names a module whose id the service did not return as such', async () => {
		const withoutId = { ...module };
		delete withoutId.moduleId;
		const later = record('later', { registeredAt: 10_000, account: 'account-b' });
		const { verdict } = await judge(recordsOf(withoutId, later), withoutId, { now: 10_000_000, account: 'account-b' });
		expect(verdict.accepted === false && verdict.reason).toMatch(/^refused a delivery through webhook module \(id not returned\) \(call\.ended\)/);
	});
});

describe('the bound of 100 records per trigger', () => {
	const TEST_URL = URL.replace('/webhook/', '/webhook-test/');
	const NOW = 100_000_000;

	it.each([
		['one account', () => 'account-a'],
		['an account each, so that each serves too', (index: number) => `listen-account-${index}`],
	])('keeps 11 production modules that still serve when 90 test listens follow them (%s): test modules go first', (_label, accountOf) => {
		const production = Array.from({ length: 11 }, (_, index) => record(`production-${index}`, { event: `event-${index}`, registeredAt: 1_000 + index }));
		const listens = Array.from({ length: 90 }, (_, index) => record(`listen-${index}`, { url: TEST_URL, listen: true, account: accountOf(index), registeredAt: 2_000 + index }));
		const kept = withinBound([...production, ...listens], NOW);
		expect(kept).toHaveLength(100);
		expect(kept.slice(0, 11)).toEqual(production);
		expect(kept).not.toContainEqual(listens[0]);
		expect(kept).toContainEqual(listens[89]);
	});

	it('drops modules replaced for good before an older one that still serves its account', () => {
		const serving = record('serving', { event: 'call.started', registeredAt: 500 });
		const replaced = Array.from({ length: 100 }, (_, index) => record(`replaced-${index}`, { registeredAt: 1_000 + index }));
		const kept = withinBound([serving, ...replaced], NOW);
		expect(kept).toHaveLength(100);
		expect(kept[0]).toEqual(serving);
		expect(kept).not.toContainEqual(replaced[0]);
	});

	it('keeps the newest module of each event, URL and account, and otherwise drops the oldest first', () => {
		const accounts = Array.from({ length: 101 }, (_, index) => record(`account-${index}`, { account: `account-${index}`, registeredAt: 1_000 + index }));
		expect(withinBound(accounts, 2_000)).toEqual(accounts.slice(1));
	});

	it('keeps an older account\'s serving module over the modules another account replaced for good, which are not the newest of theirs', () => {
		const serving = record('serving', { account: 'account-a', registeredAt: 1 });
		const replaced = Array.from({ length: 100 }, (_, index) => record(`b-${index}`, { account: 'account-b', registeredAt: 2 + index }));
		const kept = withinBound([serving, ...replaced], NOW);
		expect(kept[0]).toEqual(serving);
		expect(kept).not.toContainEqual(replaced[0]);
		expect(kept).toContainEqual(replaced[99]);
	});

	it('drops a module replaced for good before an older one whose replacement came inside its window', () => {
		const recentlyReplaced = record('recently replaced', { event: 'call.started', registeredAt: 1 });
		const itsReplacement = record('its replacement', { event: 'call.started', registeredAt: NOW - 1_000 });
		const longReplaced = Array.from({ length: 99 }, (_, index) => record(`long-${index}`, { registeredAt: 2 + index }));
		const kept = withinBound([recentlyReplaced, ...longReplaced, itsReplacement].sort((a, b) => a.registeredAt - b.registeredAt), NOW);
		expect(kept).toContainEqual(recentlyReplaced);
		expect(kept).not.toContainEqual(longReplaced[0]);
	});

	it('leaves 100 records or fewer as they are', () => {
		const hundred = Array.from({ length: 100 }, (_, index) => record(`r-${index}`, { url: TEST_URL, listen: true, registeredAt: index }));
		expect(withinBound(hundred, NOW)).toBe(hundred);
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

	it("that a trigger in use read at its activations stays known to it after 10,000 other triggers read theirs: the bound drops the trigger read longest ago", () => {
		const trigger = 'workflow-in-use:node-1';
		const inUse = record('in use');
		const activate = (name: string) => syncModuleRecords.call(contextOf(staticDataHolding(inUse)), name);
		activate(trigger);
		for (let other = 0; other < 9_999; other++) activate(`workflow-deleted-${other}:node-1`);
		activate(trigger);
		activate('workflow-deleted-last:node-1');
		expect(currentModuleRecords.call(contextOf({}), trigger)).toEqual(recordsOf(inUse));
		expect(currentModuleRecords.call(contextOf({}), 'workflow-deleted-0:node-1')).toEqual({});
	});

	it('a delivery writes into the process\'s records only when stored static data holds a record it has not seen', () => {
		const trigger = 'workflow-delivery-reads:node-1';
		const first = record('first');
		const known = currentModuleRecords.call(contextOf(staticDataHolding(first)), trigger);
		expect(currentModuleRecords.call(contextOf(staticDataHolding(first)), trigger)).toBe(known);
		const second = record('second', { registeredAt: 2_000 });
		expect(currentModuleRecords.call(contextOf(staticDataHolding(first, second)), trigger)).toEqual(recordsOf(first, second));
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
