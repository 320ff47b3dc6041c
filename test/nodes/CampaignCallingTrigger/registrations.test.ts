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
import type { DeliveryCircumstances, ModuleRecord, ModuleRecords, SeenAt } from '../../../nodes/CampaignCallingTrigger/registrations';

const URL = 'https://n8n.example.test/webhook/abc/webhook';
const NEW_URL = 'https://calls.example.test/webhook/abc/webhook';
const KEY = 'key-of-company-a-0123456789';

const logged = { warn: jest.fn(), error: jest.fn() };
beforeEach(() => {
	logged.warn = jest.fn();
	logged.error = jest.fn();
});

/** What the trigger's code asks of n8n here: the workflow's global static data, the node, its credential, the log. */
function contextOf(global: IDataObject, nodeId = 'node-1', credentials = { baseUrl: 'https://api.example.test', apiKey: KEY }) {
	return {
		getWorkflowStaticData: (type: string) => {
			if (type !== 'global') throw new Error(`static data of type ${type}`);
			return global;
		},
		getNode: () => ({ id: nodeId, name: 'Campaign Calling Trigger' }),
		getCredentials: async () => credentials,
		logger: logged,
	} as unknown as IHookFunctions;
}

let unseenTriggers = 0;
/** The records the stored `modules` give, as read for a trigger this process knows nothing of. */
function readRecords(modules: unknown): ModuleRecords {
	const trigger = `unseen-workflow-${++unseenTriggers}:node-1`;
	return currentModuleRecords.call(contextOf({ [`campaignCallingTrigger:${trigger}`]: { modules } as IDataObject }), trigger);
}

const record = (secret: string, changes: Partial<ModuleRecord> = {}): ModuleRecord => ({
	url: URL,
	event: 'call.ended',
	verifier: secretVerifier(secret),
	timeout: 30,
	retryLimit: 3,
	account: 'account-a',
	// In the order of registeredAt unless a case sets it: one process's registrations.
	sequence: changes.registeredAt ?? 1_000,
	registeredAt: 1_000,
	moduleId: `module-${secret}`,
	...changes,
});
/** When the process judging saw each record: one process sees each as it registers it. */
const seenAtRegistration = (one: ModuleRecord) => one.registeredAt;
const recordsOf = (...records: ModuleRecord[]): ModuleRecords => Object.fromEntries(records.map((one) => [one.verifier, one]));
/** Global static data holding these records for the trigger `triggerKey` (workflow id:node id), as the trigger stores them. */
const staticDataHolding = (triggerKey: string, ...records: ModuleRecord[]): IDataObject => ({ [`campaignCallingTrigger:${triggerKey}`]: { modules: recordsOf(...records) } as unknown as IDataObject });

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
		const moduleG = { ...record('g') };
		delete moduleG.moduleId;
		expect(readRecords(modules)).toEqual(recordsOf(good, listened, withoutId, moduleG));
	});

	// Issue 66, point 4: each of these passed the type check before, and -1e17 made webhook() throw (n8n answers 500).
	it.each([
		['a Timeout of 0 s', { timeout: 0 }],
		['a Timeout over 3,600 s', { timeout: 3601 }],
		['a Timeout that is not a whole number', { timeout: 1.5 }],
		['a negative Retry Limit', { retryLimit: -1 }],
		['a Retry Limit over 100', { retryLimit: 101 }],
		['a Retry Limit that is not a whole number', { retryLimit: 0.5 }],
		['a registration time no date reaches', { registeredAt: -1e17 }],
		['a registration time past the last date', { registeredAt: 8.64e15 + 1 }],
		['a registration time that is not a whole number', { registeredAt: 1.5 }],
		['no sequence', { sequence: undefined }],
		['a sequence of 0', { sequence: 0 }],
		['a sequence that is not a whole number', { sequence: 2.5 }],
		['a verifier that is no SHA-256 in base64url', { verifier: 'short' }],
		['a verifier named like a prototype', { verifier: '__proto__' }],
	])('ignore a record with %s: it is outside the limits this trigger writes', (_label, changes) => {
		const damaged = { ...record('damaged'), ...changes };
		expect(readRecords({ damaged, good: record('good') })).toEqual(recordsOf(record('good')));
	});

	it('keep the limits this trigger writes at their edges', () => {
		const edges = [
			record('least', { timeout: 1, retryLimit: 0, registeredAt: -8.64e15, sequence: 1 }),
			record('most', { timeout: 3600, retryLimit: 100, registeredAt: 8.64e15, sequence: Number.MAX_SAFE_INTEGER }),
		];
		expect(readRecords(recordsOf(...edges))).toEqual(recordsOf(...edges));
	});

	it('are none when static data holds nothing of the trigger', () => {
		expect(readRecords(undefined)).toEqual({});
		expect(readRecords('damaged')).toEqual({});
		const trigger = 'workflow-nothing:node-1';
		expect(currentModuleRecords.call(contextOf({ [`campaignCallingTrigger:${trigger}`]: 'damaged' }), trigger)).toEqual({});
		expect(currentModuleRecords.call(contextOf(staticDataHolding('workflow-nothing:another-node', record('s'))), trigger)).toEqual({});
	});

	it("are none for a copy of the workflow (another workflow id, the same node id) that carries the original's static data: they are the original's", () => {
		const original = staticDataHolding('workflow-original:node-1', record('original'));
		expect(currentModuleRecords.call(contextOf(original), 'workflow-copy:node-1')).toEqual({});
		expect(syncModuleRecords.call(contextOf(original), 'workflow-copy:node-1')).toEqual({});
		expect(currentModuleRecords.call(contextOf(original), 'workflow-original:node-1')).toEqual(recordsOf(record('original')));
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
	async function judge(records: ModuleRecords, through: ModuleRecord, { productionUrl = URL as string | null, now = 2_000, account = 'account-a' as string | null, seenAt = seenAtRegistration as SeenAt } = {}) {
		const read = jest.fn(async () => account ?? undefined);
		const circumstances: DeliveryCircumstances = { productionUrl: productionUrl ?? undefined, now, seenAt, account: read };
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

	// Issue 66, point 2: the registering main's clock and the judging process's need not agree (queue mode across hosts).
	describe("on the judging process's own clock, whatever the registering process's clock said", () => {
		const later = record('later', { registeredAt: 10_000 });
		const records = recordsOf(module, later);
		const AHEAD = 90_000;
		/** A webhook process whose clock is `offset` from the main's, which saw each record as the main registered it. */
		const seenWithClock = (offset: number) => (one: ModuleRecord) => one.registeredAt + offset;

		it('runs a retry inside the window on a process 90 s ahead of the registering main (before: refused, the event lost)', async () => {
			expect((await judge(records, module, { now: 10_000 + AHEAD + WINDOW - 1, seenAt: seenWithClock(AHEAD) })).verdict).toEqual({ accepted: true });
			expect((await judge(records, module, { now: 10_000 + AHEAD + WINDOW, seenAt: seenWithClock(AHEAD) })).verdict.accepted).toBe(false);
		});

		it('refuses once the window has passed on a process 90 s behind the registering main (before: 90 s late)', async () => {
			expect((await judge(records, module, { now: 10_000 - AHEAD + WINDOW - 1, seenAt: seenWithClock(-AHEAD) })).verdict).toEqual({ accepted: true });
			expect((await judge(records, module, { now: 10_000 - AHEAD + WINDOW, seenAt: seenWithClock(-AHEAD) })).verdict.accepted).toBe(false);
		});

		it('refuses on a process that saw the replacement late (restarted) once the replacement\'s own time is the window and five minutes old', async () => {
			const seenLate = () => 100_000_000;
			expect((await judge(records, module, { now: 10_000 + WINDOW + 300_000 - 1, seenAt: seenLate })).verdict).toEqual({ accepted: true });
			expect((await judge(records, module, { now: 10_000 + WINDOW + 300_000, seenAt: seenLate })).verdict.accepted).toBe(false);
		});

		it('takes the later registration by its sequence, not its clock: a module from a main minutes behind replaces the earlier one', async () => {
			const earlier = record('earlier', { sequence: 1, registeredAt: 500_000 });
			const replacing = record('replacing', { sequence: 2, registeredAt: 100_000 });
			const both = recordsOf(earlier, replacing);
			const seenNow = () => 600_000;
			expect((await judge(both, earlier, { now: 600_000 + WINDOW, seenAt: seenNow })).verdict.accepted).toBe(false);
			expect((await judge(both, replacing, { now: 600_000 + 100 * WINDOW, seenAt: seenNow })).verdict).toEqual({ accepted: true });
		});
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
		const kept = withinBound([...production, ...listens], NOW, seenAtRegistration);
		expect(kept).toHaveLength(100);
		expect(kept.slice(0, 11)).toEqual(production);
		expect(kept).not.toContainEqual(listens[0]);
		expect(kept).toContainEqual(listens[89]);
	});

	it('drops modules replaced for good before an older one that still serves its account', () => {
		const serving = record('serving', { event: 'call.started', registeredAt: 500 });
		const replaced = Array.from({ length: 100 }, (_, index) => record(`replaced-${index}`, { registeredAt: 1_000 + index }));
		const kept = withinBound([serving, ...replaced], NOW, seenAtRegistration);
		expect(kept).toHaveLength(100);
		expect(kept[0]).toEqual(serving);
		expect(kept).not.toContainEqual(replaced[0]);
	});

	// Issue 66, point 3: the rank before put a replaced module still in its window below serving test listens.
	it('drops test listens before a published module inside its retry window (before: 10 of 10 such modules dropped, their retries 401)', () => {
		const replacedInWindow = Array.from({ length: 10 }, (_, index) => record(`in window ${index}`, { event: `event-${index}`, registeredAt: 1_000 + index }));
		const listens = Array.from({ length: 50 }, (_, index) => record(`listen ${index}`, { url: TEST_URL, listen: true, account: `listen-account-${index}`, registeredAt: 2_000 + index }));
		const serving = Array.from({ length: 40 }, (_, index) => record(`serving ${index}`, { event: `other-event-${index}`, registeredAt: 3_000 + index }));
		const replacements = Array.from({ length: 10 }, (_, index) => record(`replacement ${index}`, { event: `event-${index}`, timeout: 90, registeredAt: NOW - 1_000 + index }));
		const kept = withinBound([...replacedInWindow, ...listens, ...serving, ...replacements], NOW, seenAtRegistration);
		expect(kept).toHaveLength(100);
		expect(kept).toEqual(expect.arrayContaining([...replacedInWindow, ...serving, ...replacements, ...listens.slice(10)]));
	});

	it('drops the older of the records that can go first, so a listen that replaced another outlives it (key A, B, A)', () => {
		const listens = ['account-a', 'account-b', 'account-a'].map((account, index) => record(`listen ${index}`, { url: TEST_URL, listen: true, account, registeredAt: 1_000 + index }));
		const serving = Array.from({ length: 99 }, (_, index) => record(`serving ${index}`, { event: `event-${index}`, registeredAt: 2_000 + index }));
		const kept = withinBound([...listens, ...serving], NOW, seenAtRegistration);
		expect(kept).toEqual([listens[2], ...serving]);
	});

	it('keeps more than 100 records when none can go: each a published module in its window or the newest of its event, URL and account', () => {
		const accounts = Array.from({ length: 101 }, (_, index) => record(`account-${index}`, { account: `account-${index}`, registeredAt: 1_000 + index }));
		expect(withinBound(accounts, 2_000, seenAtRegistration)).toEqual(accounts);
		expect(withinBound(accounts, NOW, seenAtRegistration)).toEqual(accounts);
	});

	it('measures a replaced module\'s window from when this process saw its replacement: one seen just now is in its window', () => {
		const replaced = Array.from({ length: 100 }, (_, index) => record(`replaced-${index}`, { registeredAt: 1_000 + index }));
		const other = record('other event', { event: 'call.started', registeredAt: 5_000 });
		// Past the window from the registrations (1,100 + 180,000), within it and its five minutes from their own times.
		const now = 200_000;
		expect(withinBound([...replaced, other], now, () => now)).toEqual([...replaced, other]);
		expect(withinBound([...replaced, other], now, seenAtRegistration)).toEqual([...replaced.slice(1), other]);
	});

	it('keeps an older account\'s serving module over the modules another account replaced for good, which are not the newest of theirs', () => {
		const serving = record('serving', { account: 'account-a', registeredAt: 1 });
		const replaced = Array.from({ length: 100 }, (_, index) => record(`b-${index}`, { account: 'account-b', registeredAt: 2 + index }));
		const kept = withinBound([serving, ...replaced], NOW, seenAtRegistration);
		expect(kept[0]).toEqual(serving);
		expect(kept).not.toContainEqual(replaced[0]);
		expect(kept).toContainEqual(replaced[99]);
	});

	it('drops a module replaced for good before an older one whose replacement came inside its window', () => {
		const recentlyReplaced = record('recently replaced', { event: 'call.started', registeredAt: 1 });
		const itsReplacement = record('its replacement', { event: 'call.started', registeredAt: NOW - 1_000 });
		const longReplaced = Array.from({ length: 99 }, (_, index) => record(`long-${index}`, { registeredAt: 2 + index }));
		const kept = withinBound([recentlyReplaced, ...longReplaced, itsReplacement].sort((a, b) => a.registeredAt - b.registeredAt), NOW, seenAtRegistration);
		expect(kept).toContainEqual(recentlyReplaced);
		expect(kept).not.toContainEqual(longReplaced[0]);
	});

	it('leaves 100 records or fewer as they are', () => {
		const hundred = Array.from({ length: 100 }, (_, index) => record(`r-${index}`, { url: TEST_URL, listen: true, registeredAt: index }));
		expect(withinBound(hundred, NOW, seenAtRegistration)).toBe(hundred);
	});
});

describe('static data', () => {
	const stored = (global: IDataObject, trigger: string) => (global[`campaignCallingTrigger:${trigger}`] as IDataObject | undefined)?.modules;
	const remember = (trigger: string, one: ModuleRecord) => rememberRegistration.call(contextOf({}), trigger, one);

	it("is written, under the workflow's and the node's ids in global static data, only when this process registered a module that static data lacks", () => {
		const trigger = 'workflow-static:node-1';
		const global = staticDataHolding(trigger, record('stored'));
		const context = contextOf(global);
		const before = global[`campaignCallingTrigger:${trigger}`];

		syncModuleRecords.call(context, trigger);
		expect(global[`campaignCallingTrigger:${trigger}`]).toBe(before);

		remember(trigger, record('stored'));
		syncModuleRecords.call(context, trigger);
		expect(global[`campaignCallingTrigger:${trigger}`]).toBe(before);

		remember(trigger, record('newer', { registeredAt: 2_000 }));
		expect(syncModuleRecords.call(context, trigger)).toEqual(recordsOf(record('stored'), record('newer', { registeredAt: 2_000 })));
		expect(stored(global, trigger)).toEqual(recordsOf(record('stored'), record('newer', { registeredAt: 2_000 })));
		expect(Object.keys(global)).toEqual([`campaignCallingTrigger:${trigger}`]);
	});

	it("that is empty (n8n's test listen) gets the records this process read in the trigger's stored static data, and this process's registrations", () => {
		const trigger = 'workflow-read-from-store:node-1';
		const TEST_URL = URL.replace('/webhook/', '/webhook-test/');
		const production = record('production');
		const test = record('test, stored', { url: TEST_URL });
		syncModuleRecords.call(contextOf(staticDataHolding(trigger, production, test)), trigger);

		const listening: IDataObject = {};
		expect(syncModuleRecords.call(contextOf(listening), trigger)).toEqual(recordsOf(production, test));
		const registered = record('test, registered here', { url: TEST_URL, registeredAt: 2_000 });
		remember(trigger, registered);
		expect(syncModuleRecords.call(contextOf({}), trigger)).toEqual(recordsOf(production, test, registered));
		expect(syncModuleRecords.call(contextOf({}), 'another-workflow:node-1')).toEqual({});
	});

	it('at 100 records, takes a module this process registers in, the oldest replaced for good out', () => {
		const trigger = 'workflow-full:node-1';
		const records = Array.from({ length: 100 }, (_, index) => record(`full-${index}`, { registeredAt: 1_000 + index }));
		const global = staticDataHolding(trigger, ...records);
		const newest = record('newest', { registeredAt: 5_000 });
		remember(trigger, newest);
		syncModuleRecords.call(contextOf(global), trigger);
		expect(Object.keys(stored(global, trigger) as IDataObject)).toEqual([...records.slice(1), newest].map((one) => one.verifier));
	});

	it('holding more than 100 records (an edited or imported workflow) keeps the newest 100 at the next activation', () => {
		const trigger = 'workflow-imported:node-1';
		const records = Array.from({ length: 103 }, (_, index) => record(`imported-${index}`, { registeredAt: 1_000 + index }));
		const global = staticDataHolding(trigger, ...records);
		// Read long after: each was replaced for good (the registering process would have seen them as registered).
		jest.spyOn(Date, 'now').mockReturnValue(100_000_000);
		try {
			syncModuleRecords.call(contextOf(global), trigger);
		} finally {
			jest.restoreAllMocks();
		}
		expect(Object.keys(stored(global, trigger) as IDataObject)).toEqual(records.slice(3).map((one) => one.verifier));
	});

	it('holding more records than the bound, none of which can go, keeps them all and says so once in the log', () => {
		const trigger = 'workflow-overflowing:node-1';
		const accounts = Array.from({ length: 101 }, (_, index) => record(`overflowing-${index}`, { account: `account-${index}`, registeredAt: 1_000 + index }));
		const global = staticDataHolding(trigger, ...accounts);
		syncModuleRecords.call(contextOf(global), trigger);
		syncModuleRecords.call(contextOf(global), trigger);
		expect(Object.keys(stored(global, trigger) as IDataObject)).toHaveLength(101);
		expect(logged.warn.mock.calls).toEqual([[expect.stringContaining('keeps 101 webhook module records, more than 100, since none of them can go')]]);
	});

	it("registered by another process later than this process's own registration gives the current module, whichever was read last", () => {
		const trigger = 'workflow-two-processes:node-1';
		const ownEarlier = record('registered here', { registeredAt: 1_000 });
		const otherLater = record('registered by another process', { registeredAt: 2_000 });
		remember(trigger, ownEarlier);
		const records = currentModuleRecords.call(contextOf(staticDataHolding(trigger, otherLater)), trigger);
		expect(currentModule(records, URL, 'call.ended')?.verifier).toBe(otherLater.verifier);
	});

	it('ordered by sequence: a module a main whose clock is minutes behind registered later is the current one (before: ordered by that clock)', () => {
		const trigger = 'workflow-two-clocks:node-1';
		const earlier = record('earlier, clock ahead', { sequence: 1, registeredAt: 500_000 });
		const later = record('later, clock behind', { sequence: 2, registeredAt: 100_000 });
		const records = currentModuleRecords.call(contextOf(staticDataHolding(trigger, later, earlier)), trigger);
		expect(currentModule(records, URL, 'call.ended')?.verifier).toBe(later.verifier);
	});

	it("that a trigger in use read at its activations stays known to it after 10,000 other triggers read theirs: the bound drops the trigger read longest ago", () => {
		const trigger = 'workflow-in-use:node-1';
		const inUse = record('in use');
		const activate = (name: string) => syncModuleRecords.call(contextOf(staticDataHolding(name, inUse)), name);
		activate(trigger);
		for (let other = 0; other < 9_999; other++) activate(`workflow-deleted-${other}:node-1`);
		activate(trigger);
		activate('workflow-deleted-last:node-1');
		expect(currentModuleRecords.call(contextOf({}), trigger)).toEqual(recordsOf(inUse));
		expect(currentModuleRecords.call(contextOf({}), 'workflow-deleted-0:node-1')).toEqual({});
	});

	it("a delivery writes into the process's records only when stored static data holds a record it has not seen", () => {
		const trigger = 'workflow-delivery-reads:node-1';
		const first = record('first');
		const known = currentModuleRecords.call(contextOf(staticDataHolding(trigger, first)), trigger);
		expect(currentModuleRecords.call(contextOf(staticDataHolding(trigger, first)), trigger)).toBe(known);
		const second = record('second', { registeredAt: 2_000 });
		expect(currentModuleRecords.call(contextOf(staticDataHolding(trigger, first, second)), trigger)).toEqual(recordsOf(first, second));
	});

	it('keeps the newest 100 records of a trigger, the oldest replaced for good gone first', () => {
		const trigger = 'workflow-bounded:node-1';
		const records = Array.from({ length: 103 }, (_, index) => record(`s-${index}`, { registeredAt: 1_000 + index }));
		jest.spyOn(Date, 'now').mockReturnValue(100_000_000);
		try {
			for (const one of records) remember(trigger, one);
		} finally {
			jest.restoreAllMocks();
		}
		const global: IDataObject = {};
		expect(Object.keys(syncModuleRecords.call(contextOf(global), trigger))).toEqual(records.slice(3).map((one) => one.verifier));
		expect(Object.keys(stored(global, trigger) as IDataObject)).toHaveLength(100);
	});
});
