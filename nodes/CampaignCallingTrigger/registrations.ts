import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject, IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { accountWithin, recentAccount } from './account';
import { BoundedMap } from './boundedMap';
import { SECRET_HEADER } from './delivery';
import { inFlightLifetimeMs } from './inFlight';
import { triggerLogPrefix } from './parameters';
import { DELIVERY_LIMIT_BOUNDS } from '../shared/moduleSettings';

/** A webhook module this trigger registered: its secret only as its SHA-256 (`verifier`), its account as a fingerprint (account.ts). */
export interface ModuleRecord {
	url: string;
	event: string;
	verifier: string;
	timeout: number;
	retryLimit: number;
	account: string;
	/** The registration's place among the trigger's: 1 + the highest the activation read (n8n runs a workflow's activations one at a time). */
	sequence: number;
	/** The registering process's clock: printed in the log, and a bound for a process whose clock differs (replacements). */
	registeredAt: number;
	moduleId?: string;
	/** Registered by "Listen for test event", for n8n's test URL. */
	listen?: true;
}

/** A trigger's modules by verifier, in registration order (byRegistration): a module registered anew follows the one it replaces. */
export type ModuleRecords = Record<string, ModuleRecord>;

/** Registration order, the same in every process whatever its clock: by sequence, then (a tie only across a restart's test listen) by clock. */
export const byRegistration = (a: ModuleRecord, b: ModuleRecord) => a.sequence - b.sequence || a.registeredAt - b.registeredAt;

/** The sequence of the next registration after `records`. */
export const nextSequence = (records: ModuleRecords) => 1 + Math.max(0, ...Object.values(records).map((record) => record.sequence));

/** Far more trigger nodes than one n8n process runs; only bounds what deleted workflows leave. */
const MAX_TRIGGERS = 10_000;

interface KnownRecords {
	records: ModuleRecords;
	/** When this process first saw each record (by verifier), on its own clock: a replaced module's window is measured from it. */
	seenAt: Map<string, number>;
}

/** Records this process registered or read in stored static data: n8n saves static data only after activation, and gives a test listen an empty copy. */
const recordsKnownHere = new BoundedMap<string, KnownRecords>(MAX_TRIGGERS);

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

/**
 * The records sit in global static data under the workflow's and the node's ids: node static data goes by name, which
 * a rename changes, and a copy of the workflow (another id) carries the original's records, which are not its own.
 */
const storeKey = (triggerKey: string) => `campaignCallingTrigger:${triggerKey}`;

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

/** How far apart two processes' clocks may be: a replaced module runs at most this long past its window on a process whose clock is off. */
const CLOCK_TOLERANCE_MS = 5 * 60_000;

/** When this process first saw a record, on its own clock. */
export type SeenAt = (record: ModuleRecord) => number;

/**
 * The modules that took over `module`'s event for good by `now`: registered after it for its own URL or, for a
 * production delivery through a module of an earlier URL (`productionUrl` differs), for the current production
 * URL; and there longer than `module`'s retry window: since this process saw the later of the two, or by the later
 * registration's own clock plus CLOCK_TOLERANCE_MS, whichever comes first (no process's clock is compared with another's).
 */
export function replacements(records: ModuleRecord[], module: ModuleRecord, productionUrl: string | undefined, now: number, seenAt: SeenAt): ModuleRecord[] {
	const lateUrl = productionUrl !== undefined && module.url !== productionUrl;
	const later = records.filter((other) => other.event === module.event && ((other.url === module.url && byRegistration(other, module) > 0) || (lateUrl && other.url === productionUrl)));
	if (later.length === 0) return later;
	const window = inFlightLifetimeMs(module);
	return later.filter((other) => now >= Math.max(seenAt(module), seenAt(other)) + window || now >= Math.max(module.registeredAt, other.registeredAt) + window + CLOCK_TOLERANCE_MS);
}

/** n8n 2.x registers a trigger anew only on a publish that changed its node; 1.x on every save of an active workflow. */
export const REPUBLISH = 'publish the workflow again (on n8n 2.x unpublish, then publish; on n8n 1.x deactivate, then activate)';

/** What a delivery through a module gets: run, or refused with the reason n8n's log gives once per module. */
export type Verdict = { accepted: true; advice?: string } | { accepted: false; reason: string };

export interface DeliveryCircumstances {
	/** The production webhook URL now; undefined for a test delivery, whose context gives only the production one. */
	productionUrl: string | undefined;
	now: number;
	seenAt: SeenAt;
	/** The fingerprint of the account the credential reaches now, undefined when unreadable; asked only when the verdict needs it. */
	account: () => Promise<string | undefined>;
}

/** Judges a delivery through `module` by the records and the clock; the credential only for a module replaced for good. */
export async function judgeDelivery(records: ModuleRecords, module: ModuleRecord, { productionUrl, now, seenAt, account }: DeliveryCircumstances): Promise<Verdict> {
	const all = Object.values(records);
	const named = `webhook module ${moduleName(module)} (${module.event})`;
	const replacing = replacements(all, module, productionUrl, now, seenAt);
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
	const latest = replacing.reduce((newest, record) => (byRegistration(record, newest) > 0 ? record : newest));
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
	const seen = recordsKnownHere.get(triggerKey)?.seenAt;
	const presented = this.getRequestObject().headers[SECRET_HEADER];
	const module = typeof presented === 'string' ? moduleWithSecret(records, presented) : undefined;
	if (module === undefined) {
		countUnknownSecret.call(this, triggerKey);
		return undefined;
	}
	const productionUrl = this.getMode() === 'manual' ? undefined : this.getNodeWebhookUrl('default');
	const now = Date.now();
	const verdict = await judgeDelivery(records, module, {
		productionUrl,
		now,
		seenAt: (record) => seen?.get(record.verifier) ?? now,
		account: async () => await accountWithin.call(this, triggerKey, ACCOUNT_WAIT_MS),
	});
	if (!verdict.accepted) {
		noticeOnce.call(this, 'warn', `${triggerKey}\nrefused\n${module.verifier}`, verdict.reason);
		return undefined;
	}
	if (verdict.advice) noticeOnce.call(this, 'warn', `${triggerKey}\nearlier URL\n${productionUrl}`, verdict.advice);
	// After the answer: the delivery runs whatever the credential says now, and its answer waits for no read.
	this.getResponseObject().once('close', () => void warnOfCredentialChange.call(this, triggerKey, module));
	return { module, records };
}

/** How long a verdict waits for the credential's read before judging as for an unreadable one; the read goes on and serves later deliveries. */
const ACCOUNT_WAIT_MS = 1_000;

/** Logs, once, a credential that no longer reaches the module's account or cannot be read: a publish would register anew. */
async function warnOfCredentialChange(this: IWebhookFunctions, triggerKey: string, module: ModuleRecord): Promise<void> {
	const account = await recentAccount.call(this, triggerKey);
	if (account === undefined) {
		noticeOnce.call(this, 'error', `${triggerKey}\nunreadable credential`, `could not read its credential (deleted, or not decryptable). Deliveries through its current modules still run; modules replaced by later ones are refused once their retries have ended. Select a working credential, then ${REPUBLISH}.`);
	} else if (account !== module.account) {
		noticeOnce.call(this, 'error', `${triggerKey}\nanother account\n${module.verifier}`, `webhook module ${moduleName(module)} (${module.event}) was registered at another account than the credential reaches now (another API key or Base URL). Its deliveries still run. To register at the credential's account, ${REPUBLISH}.`);
	}
}

function noticeOnce(this: IHookFunctions | IWebhookFunctions, level: 'warn' | 'error', topic: string, text: string): void {
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
		`${triggerLogPrefix.call(this)} answered 401 to ${tally.unlogged} delivery(ies) whose secret belongs to none of this node's modules${Number.isFinite(tally.loggedAt) ? ` since ${new Date(tally.loggedAt).toISOString()}` : ''}: a module whose record this workflow lost (imported without its static data, or restored from an older backup), or a request from elsewhere.`,
	);
	Object.assign(tally, { loggedAt: now, unlogged: 0 });
}

/** A module as the log names it: by the id the service gave it. */
export const moduleName = (record: ModuleRecord) => record.moduleId ?? '(id not returned)';

/** Keeps a registration in this process at once: n8n saves static data only after activation, and may drop it. */
export function rememberRegistration(this: IHookFunctions, triggerKey: string, record: ModuleRecord): void {
	// Seen when registered, on the same clock: a one-process n8n measures windows from the registration.
	learnRecords.call(this, triggerKey, { [record.verifier]: record }, record.registeredAt);
}

/** The records static data holds and those this process registered or read; a delivery's view, which writes nothing stored. */
export function currentModuleRecords(this: IHookFunctions | IWebhookFunctions, triggerKey: string): ModuleRecords {
	const stored = storedModuleRecords.call(this, triggerKey);
	const known = recordsKnownHere.get(triggerKey)?.records;
	return Object.keys(stored).every((verifier) => known?.[verifier] !== undefined) ? (known ?? {}) : learnRecords.call(this, triggerKey, stored);
}

/** As currentModuleRecords, and written into static data where this process's registrations or reads fill its gaps. */
export function syncModuleRecords(this: IHookFunctions, triggerKey: string): ModuleRecords {
	const stored = storedModuleRecords.call(this, triggerKey);
	const records = learnRecords.call(this, triggerKey, stored);
	const verifiers = Object.keys(records);
	if (verifiers.length !== Object.keys(stored).length || verifiers.some((verifier) => stored[verifier] === undefined)) {
		this.getWorkflowStaticData('global')[storeKey(triggerKey)] = { modules: structuredClone(records) as unknown as IDataObject };
	}
	return records;
}

/** Adds `records` to what this process knows of the trigger, seen at `seenAt` if new to it, within the bound, and returns the whole. */
function learnRecords(this: IHookFunctions | IWebhookFunctions, triggerKey: string, records: ModuleRecords, seenAt = Date.now()): ModuleRecords {
	const known = recordsKnownHere.get(triggerKey);
	const seen = new Map(known?.seenAt);
	for (const verifier of Object.keys(records)) if (!seen.has(verifier)) seen.set(verifier, seenAt);
	const all = Object.values({ ...known?.records, ...records }).sort(byRegistration);
	const within = withinBound(all, Date.now(), (record) => seen.get(record.verifier) as number);
	if (within.length > MAX_RECORDS) {
		noticeOnce.call(this, 'warn', `${triggerKey}\nbound`, `keeps ${within.length} webhook module records, more than ${MAX_RECORDS}, since none of them can go: each is a published module inside its retry window or the newest for its event, URL and account.`);
	}
	const kept: ModuleRecords = {};
	for (const record of within) kept[record.verifier] = { ...record };
	recordsKnownHere.set(triggerKey, { records: kept, seenAt: new Map(within.map((record) => [record.verifier, seen.get(record.verifier) as number])) });
	return kept;
}

/**
 * At most MAX_RECORDS of `records` (in registration order) where it can be: only test listens' modules and modules
 * replaced for good go, oldest first, and of those not the newest of its event, URL and account (the credential
 * edited back to that account runs it); a published module inside its retry window always stays.
 */
export function withinBound(records: ModuleRecord[], now: number, seenAt: SeenAt): ModuleRecord[] {
	if (records.length <= MAX_RECORDS) return records;
	const newest = new Set(new Map(records.map((record) => [`${record.event}\n${record.url}\n${record.account}`, record])).values());
	const droppable = records.filter((record) => record.listen === true || (!newest.has(record) && replacements(records, record, undefined, now, seenAt).length > 0));
	const dropped = new Set(droppable.slice(0, records.length - MAX_RECORDS));
	return records.filter((record) => !dropped.has(record));
}

/** The records of stored static data that are whole: static data is the user's workflow, edited, imported or damaged. */
function storedModuleRecords(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions, triggerKey: string): ModuleRecords {
	return wholeRecords((this.getWorkflowStaticData('global')[storeKey(triggerKey)] as IDataObject | undefined)?.modules);
}

/** A verifier as secretVerifier makes it: SHA-256 in base64url. */
const VERIFIER = /^[A-Za-z0-9_-]{43}$/;
/** The furthest a JavaScript date reaches either side of 1970: a registration time the log can print. */
const LAST_DATE_MS = 8.64e15;

const inBounds = (value: unknown, { min, max }: { min: number; max: number }) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** Whether `value` is a record this trigger could have written: any other is ignored, whatever it holds. */
function isWholeRecord(value: unknown): value is ModuleRecord {
	const { url, event, verifier, timeout, retryLimit, account, sequence, registeredAt } = (value ?? {}) as Partial<Record<keyof ModuleRecord, unknown>>;
	return (
		[url, event, account].every((text) => typeof text === 'string' && text !== '') &&
		typeof verifier === 'string' &&
		VERIFIER.test(verifier) &&
		inBounds(timeout, DELIVERY_LIMIT_BOUNDS.timeout) &&
		inBounds(retryLimit, DELIVERY_LIMIT_BOUNDS.retryLimit) &&
		Number.isSafeInteger(sequence) &&
		(sequence as number) > 0 &&
		Number.isSafeInteger(registeredAt) &&
		Math.abs(registeredAt as number) <= LAST_DATE_MS
	);
}

/** The whole module records among `values` (an object or a list of them), by verifier. */
export function wholeRecords(values: unknown): ModuleRecords {
	const records: ModuleRecords = {};
	for (const record of Object.values(typeof values === 'object' && values !== null ? values : {})) {
		if (!isWholeRecord(record)) continue;
		const { url, event, verifier, timeout, retryLimit, account, sequence, registeredAt, moduleId, listen } = record;
		records[verifier] = {
			...{ url, event, verifier, timeout, retryLimit, account, sequence, registeredAt },
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
export function keepRecordsInExecution(this: IExecuteFunctions, triggerKey: string, handedOver: unknown): void {
	const records = wholeRecords(handedOver);
	const stored = storedModuleRecords.call(this, triggerKey);
	if (Object.keys(records).every((verifier) => stored[verifier] !== undefined)) return;
	const merged = Object.values({ ...stored, ...records }).sort(byRegistration);
	Reflect.defineProperty(this.getWorkflowStaticData('global'), storeKey(triggerKey), {
		value: { modules: Object.fromEntries(merged.map((record) => [record.verifier, record])) },
		enumerable: true,
		writable: true,
		configurable: true,
	});
}
