import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject, IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { recentAccount } from './account';
import { BoundedMap } from './boundedMap';
import { SECRET_HEADER } from './delivery';
import { inFlightLifetimeMs } from './inFlight';
import { triggerLogPrefix } from './parameters';

/** A webhook module this trigger registered: its secret only as its SHA-256 (`verifier`), its account as a fingerprint (account.ts). */
export interface ModuleRecord {
	url: string;
	event: string;
	verifier: string;
	timeout: number;
	retryLimit: number;
	account: string;
	registeredAt: number;
	moduleId?: string;
	/** Registered by "Listen for test event", for n8n's test URL. */
	listen?: true;
}

/** A trigger's modules by verifier, oldest first: a module registered anew is a record after the one it replaces. */
export type ModuleRecords = Record<string, ModuleRecord>;

/** Far more trigger nodes than one n8n process runs; only bounds what deleted workflows leave. */
const MAX_TRIGGERS = 10_000;

/** Records this process registered or read in stored static data: n8n saves static data only after activation, and gives a test listen an empty copy. */
const recordsKnownHere = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/** Log lines given in this process (a module's refusal, a URL's advice), so each is logged once. */
const noticesGiven = new BoundedMap<string, true>(50_000);

/** Deliveries with a secret of no module, per trigger: counted into one log line a minute at most. */
const unknownSecrets = new BoundedMap<string, { loggedAt: number; unlogged: number }>(MAX_TRIGGERS);
const UNKNOWN_SECRET_LOG_INTERVAL_MS = 60_000;

/** Records kept per trigger: far more than the modules that serve, one per event, webhook URL and account. */
const MAX_RECORDS = 100;

/** What is stored in place of a secret: enough to check one, useless to forge one. */
export function secretVerifier(secret: string): string {
	return createHash('sha256').update(secret).digest('base64url');
}

/** The records sit in global static data under the node's id: node static data goes by name, which a rename changes. */
function storeKey(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions): string {
	return `campaignCallingTrigger:${this.getNode().id}`;
}

/** The module `url` gets for `event` now: the newest registered for both (records are kept oldest first), or undefined. */
export function currentModule(records: ModuleRecords, url: string, event: string): ModuleRecord | undefined {
	const matching = Object.values(records).filter((record) => record.url === url && record.event === event);
	return matching[matching.length - 1];
}

/** Whether `record` still serves: same delivery settings and, when the credential could be read, the same account. */
export function serves(record: ModuleRecord | undefined, settings: { timeout: number; retryLimit: number }, account: string | undefined): boolean {
	return record !== undefined && record.timeout === settings.timeout && record.retryLimit === settings.retryLimit && (account === undefined || record.account === account);
}

/** The record whose secret `presented` is, if any. */
export function moduleWithSecret(records: ModuleRecords, presented: string): ModuleRecord | undefined {
	const verifier = Buffer.from(secretVerifier(presented));
	let known: ModuleRecord | undefined;
	for (const record of Object.values(records)) {
		const expected = Buffer.from(record.verifier);
		// No early return: the time taken does not depend on which record matched.
		if (expected.length === verifier.length && timingSafeEqual(verifier, expected)) known = record;
	}
	return known;
}

/**
 * The modules that took over `module`'s event for good by `now`: registered after it for its own URL or, for a
 * production delivery through a module of an earlier URL (`productionUrl` differs), for the current production
 * URL; and there longer than `module`'s retry window, counted from the later of the two registrations.
 */
export function replacements(records: ModuleRecord[], module: ModuleRecord, productionUrl: string | undefined, now: number): ModuleRecord[] {
	const lateUrl = productionUrl !== undefined && module.url !== productionUrl;
	return records.filter(
		(other) =>
			other.event === module.event &&
			((other.url === module.url && other.registeredAt > module.registeredAt) || (lateUrl && other.url === productionUrl)) &&
			now >= Math.max(module.registeredAt, other.registeredAt) + inFlightLifetimeMs(module),
	);
}

/** n8n 2.x registers a trigger anew only on a publish that changed its node; 1.x on every save of an active workflow. */
export const REPUBLISH = 'publish the workflow again (on n8n 2.x unpublish, then publish; on n8n 1.x deactivate, then activate)';

/** What a delivery through a module gets: run, or refused with the reason n8n's log gives once per module. */
export type Verdict = { accepted: true; advice?: string } | { accepted: false; reason: string };

export interface DeliveryCircumstances {
	/** The production webhook URL now; undefined for a test delivery, whose context gives only the production one. */
	productionUrl: string | undefined;
	now: number;
	/** The fingerprint of the account the credential reaches now, undefined when unreadable; asked only when the verdict needs it. */
	account: () => Promise<string | undefined>;
}

/** Judges a delivery through `module` by the records and the clock; the credential only for a module replaced for good. */
export async function judgeDelivery(records: ModuleRecords, module: ModuleRecord, { productionUrl, now, account }: DeliveryCircumstances): Promise<Verdict> {
	const all = Object.values(records);
	const named = `webhook module ${moduleName(module)} (${module.event})`;
	const replacing = replacements(all, module, productionUrl, now);
	if (replacing.length === 0) {
		const urlWithoutModule = productionUrl !== undefined && module.url !== productionUrl && !all.some((record) => record.url === productionUrl && record.event === module.event);
		if (!urlWithoutModule) return { accepted: true };
		return {
			accepted: true,
			advice: `accepted a delivery through ${named}, registered for the earlier webhook URL ${module.url}: ${REPUBLISH} to register a module for the current webhook URL ${productionUrl}.`,
		};
	}
	const current = await account();
	// The key edited back, without a publish, to the one this module was registered with.
	if (current === module.account && replacing.every((record) => record.account !== current)) return { accepted: true };
	const latest = replacing.reduce((newest, record) => (record.registeredAt > newest.registeredAt ? record : newest));
	const where = latest.url === module.url ? '' : ` for the webhook URL ${latest.url}`;
	const unread = current === undefined ? ' The credential could not be read, so whether it still reaches this module\'s account was not checked.' : '';
	return {
		accepted: false,
		reason: `refused a delivery through ${named}: module ${moduleName(latest)} replaced it${where} on ${new Date(latest.registeredAt).toISOString()}, and its retries have ended.${unread}`,
	};
}

/**
 * The module whose secret the delivery carries, when a delivery through it is accepted now (judgeDelivery), and the
 * records it was judged by; a refusal, advice about an earlier URL, a credential that reaches another account or
 * none, each logged once.
 */
export async function acceptedModule(this: IWebhookFunctions, triggerKey: string): Promise<{ module: ModuleRecord; records: ModuleRecords } | undefined> {
	const records = currentModuleRecords.call(this, triggerKey);
	const presented = this.getRequestObject().headers[SECRET_HEADER];
	const module = typeof presented === 'string' ? moduleWithSecret(records, presented) : undefined;
	if (module === undefined) {
		countUnknownSecret.call(this, triggerKey);
		return undefined;
	}
	const productionUrl = this.getMode() === 'manual' ? undefined : this.getNodeWebhookUrl('default');
	const verdict = await judgeDelivery(records, module, { productionUrl, now: Date.now(), account: async () => await recentAccount.call(this) });
	if (!verdict.accepted) {
		noticeOnce.call(this, 'warn', `${triggerKey}\nrefused\n${module.verifier}`, verdict.reason);
		return undefined;
	}
	if (verdict.advice) noticeOnce.call(this, 'warn', `${triggerKey}\nearlier URL\n${productionUrl}`, verdict.advice);
	// Off the answer's path: the delivery runs whatever the credential says now.
	void warnOfCredentialChange.call(this, triggerKey, module);
	return { module, records };
}

/** Logs, once, a credential that no longer reaches the module's account or cannot be read: a publish would register anew. */
async function warnOfCredentialChange(this: IWebhookFunctions, triggerKey: string, module: ModuleRecord): Promise<void> {
	const account = await recentAccount.call(this);
	if (account === undefined) {
		noticeOnce.call(this, 'error', `${triggerKey}\nunreadable credential`, `could not read its credential (deleted, or not decryptable). Deliveries through its current modules still run; modules replaced by later ones are refused once their retries have ended. Select a working credential, then ${REPUBLISH}.`);
	} else if (account !== module.account) {
		noticeOnce.call(this, 'error', `${triggerKey}\nanother account\n${module.verifier}`, `webhook module ${moduleName(module)} (${module.event}) was registered at another account than the credential reaches now (another API key or Base URL). Its deliveries still run. To register at the credential's account, ${REPUBLISH}.`);
	}
}

function noticeOnce(this: IWebhookFunctions, level: 'warn' | 'error', topic: string, text: string): void {
	if (noticesGiven.get(topic) !== undefined) return;
	noticesGiven.set(topic, true);
	this.logger[level](`${triggerLogPrefix.call(this)} ${text}`);
}

/** Counts a delivery whose secret matches no module: logged at once, then at most once a minute with the number since. */
function countUnknownSecret(this: IWebhookFunctions, triggerKey: string): void {
	const now = Date.now();
	const tally = unknownSecrets.get(triggerKey) ?? { loggedAt: -Infinity, unlogged: 0 };
	tally.unlogged += 1;
	unknownSecrets.set(triggerKey, tally);
	if (now - tally.loggedAt < UNKNOWN_SECRET_LOG_INTERVAL_MS) return;
	this.logger.warn(
		`${triggerLogPrefix.call(this)} answered 401 to ${tally.unlogged} delivery(ies) whose secret belongs to none of this node's modules${Number.isFinite(tally.loggedAt) ? ` since ${new Date(tally.loggedAt).toISOString()}` : ''}: a module whose record this workflow lost (imported without its static data, or registered by a copy of the workflow), or a request from elsewhere.`,
	);
	Object.assign(tally, { loggedAt: now, unlogged: 0 });
}

/** A module as the log names it: by the id the service gave it. */
export const moduleName = (record: ModuleRecord) => record.moduleId ?? '(id not returned)';

/** Keeps a registration in this process at once: n8n saves static data only after activation, and may drop it. */
export function rememberRegistration(triggerKey: string, record: ModuleRecord): void {
	learnRecords(triggerKey, { [record.verifier]: record });
}

/** The records static data holds and those this process registered or read; a delivery's view, which writes nothing stored. */
export function currentModuleRecords(this: IHookFunctions | IWebhookFunctions, triggerKey: string): ModuleRecords {
	const stored = storedModuleRecords.call(this);
	const known = recordsKnownHere.get(triggerKey);
	return Object.keys(stored).every((verifier) => known?.[verifier] !== undefined) ? (known ?? {}) : learnRecords(triggerKey, stored);
}

/** As currentModuleRecords, and written into static data where this process's registrations or reads fill its gaps. */
export function syncModuleRecords(this: IHookFunctions, triggerKey: string): ModuleRecords {
	const stored = storedModuleRecords.call(this);
	const records = learnRecords(triggerKey, stored);
	const verifiers = Object.keys(records);
	if (verifiers.length !== Object.keys(stored).length || verifiers.some((verifier) => stored[verifier] === undefined)) {
		this.getWorkflowStaticData('global')[storeKey.call(this)] = { modules: structuredClone(records) as unknown as IDataObject };
	}
	return records;
}

/** Adds `records` to what this process knows of the trigger, within the bound, and returns the whole. */
function learnRecords(triggerKey: string, records: ModuleRecords): ModuleRecords {
	const all = Object.values({ ...recordsKnownHere.get(triggerKey), ...records }).sort((a, b) => a.registeredAt - b.registeredAt);
	const kept: ModuleRecords = {};
	for (const record of withinBound(all, Date.now())) kept[record.verifier] = { ...record };
	recordsKnownHere.set(triggerKey, kept);
	return kept;
}

/**
 * At most MAX_RECORDS of `records` (oldest first), never the newest per event, URL and account while others can go:
 * test listens' modules go first, then modules replaced for good, then the oldest; of those that serve, test listens' first.
 */
export function withinBound(records: ModuleRecord[], now: number): ModuleRecord[] {
	if (records.length <= MAX_RECORDS) return records;
	const newest = new Map(records.map((record) => [`${record.event}\n${record.url}\n${record.account}`, record]));
	const serving = new Set(newest.values());
	const rank = (record: ModuleRecord) => {
		if (serving.has(record)) return record.listen ? 3 : 4;
		return record.listen ? 0 : replacements(records, record, undefined, now).length > 0 ? 1 : 2;
	};
	const dropped = new Set([...records].sort((a, b) => rank(a) - rank(b) || a.registeredAt - b.registeredAt).slice(0, records.length - MAX_RECORDS));
	return records.filter((record) => !dropped.has(record));
}

/** The records of stored static data that are whole: static data is the user's workflow, edited, imported or damaged. */
function storedModuleRecords(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions): ModuleRecords {
	return wholeRecords((this.getWorkflowStaticData('global')[storeKey.call(this)] as IDataObject | undefined)?.modules);
}

/** The well-formed module records among `values` (an object or a list of them), by verifier. */
export function wholeRecords(values: unknown): ModuleRecords {
	const records: ModuleRecords = {};
	for (const record of Object.values(typeof values === 'object' && values !== null ? values : {})) {
		const { url, event, verifier, timeout, retryLimit, account, registeredAt, moduleId, listen } = (record ?? {}) as Partial<Record<keyof ModuleRecord, unknown>>;
		const texts = [url, event, verifier, account];
		if (!texts.every((text) => typeof text === 'string' && text !== '') || ![timeout, retryLimit, registeredAt].every((number) => typeof number === 'number')) continue;
		records[verifier as string] = {
			...({ url, event, verifier, timeout, retryLimit, account, registeredAt } as ModuleRecord),
			...(typeof moduleId === 'string' ? { moduleId } : {}),
			...(listen === true ? { listen } : {}),
		};
	}
	return records;
}

/**
 * Puts the records a delivery was judged by into its execution's copy of static data, without marking the copy
 * changed (a property defined on n8n's observable object is not seen as a change). n8n writes an execution's copy
 * back whole when another node changed it (a Code node's $getWorkflowStaticData): the records then go back with it,
 * also where n8n 2.x's queue-mode workers start from an empty copy (docs/trigger-reference.md).
 */
export function keepRecordsInExecution(this: IExecuteFunctions, records: ModuleRecords): void {
	const stored = storedModuleRecords.call(this);
	if (Object.keys(records).every((verifier) => stored[verifier] !== undefined)) return;
	const merged = Object.values({ ...stored, ...records }).sort((a, b) => a.registeredAt - b.registeredAt);
	Reflect.defineProperty(this.getWorkflowStaticData('global'), storeKey.call(this), {
		value: { modules: Object.fromEntries(merged.map((record) => [record.verifier, record])) },
		enumerable: true,
		writable: true,
		configurable: true,
	});
}
