import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import { credentialAccount } from '../shared/transport';
import { SECRET_HEADER } from './delivery';
import { BoundedMap, inFlightLifetimeMs } from './inFlight';
import { triggerLogPrefix } from './parameters';

/** A webhook module this trigger registered: its secret only as its SHA-256 (`verifier`), its account as a keyed fingerprint. */
export interface ModuleRecord {
	url: string;
	event: string;
	verifier: string;
	timeout: number;
	retryLimit: number;
	account: string;
	registeredAt: number;
	moduleId?: string;
}

/** A trigger's modules by verifier, oldest first: a module registered anew is a record after the one it replaces. */
export type ModuleRecords = Record<string, ModuleRecord>;

/** Far more trigger nodes than one n8n process runs; only bounds what deleted workflows leave. */
const MAX_TRIGGERS = 10_000;

/** Modules this process registered, the moment the service confirms each: n8n saves static data only after activation. */
const registeredModules = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/** Module records this process read in stored static data, for a test listen, which n8n gives an empty copy. */
const storedModulesSeen = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/** Log lines given in this process (a module's refusal, a URL's advice), so each is logged once. */
const noticesGiven = new BoundedMap<string, true>(50_000);

/** Records kept per trigger, the newest: every current module and the ones they replaced lately. */
const MAX_RECORDS = 100;

/** What is stored in place of a secret: enough to check one, useless to forge one. */
export function secretVerifier(secret: string): string {
	return createHash('sha256').update(secret).digest('base64url');
}

/** The account the node's credential reaches now: a new fingerprint to store, and a check of stored ones. */
export interface Account {
	fingerprint: () => string;
	owns: (stored: string) => boolean;
}

export async function currentAccount(this: IHookFunctions | IWebhookFunctions): Promise<Account> {
	const keyed = await credentialAccount(this);
	return {
		fingerprint: () => {
			const salt = randomString(16);
			return `${salt}.${keyed(salt)}`;
		},
		owns: (stored) => {
			const split = stored.indexOf('.');
			return split > 0 && stored.slice(split + 1) === keyed(stored.slice(0, split));
		},
	};
}

/** The records sit in global static data under the node's id: node static data goes by name, which a rename changes. */
function storeKey(this: IHookFunctions | IWebhookFunctions): string {
	return `campaignCallingTrigger:${this.getNode().id}`;
}

/** The module `url` gets for `event` now: the newest registered for both (records are kept oldest first), or undefined. */
export function currentModule(records: ModuleRecords, url: string, event: string): ModuleRecord | undefined {
	const matching = Object.values(records).filter((record) => record.url === url && record.event === event);
	return matching[matching.length - 1];
}

/** Whether `record` still serves: same account, same delivery settings; any change needs a new module. */
export function serves(record: ModuleRecord | undefined, settings: { timeout: number; retryLimit: number }, account: Account): boolean {
	return record !== undefined && record.timeout === settings.timeout && record.retryLimit === settings.retryLimit && account.owns(record.account);
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

/** n8n 2.x registers a trigger anew only on a publish that changed its node; 1.x on every save of an active workflow. */
const REPUBLISH = 'publish the workflow again (unpublish, then publish; on n8n 1.x deactivate, then activate)';

/** What a delivery through `sender` gets: run, or refused with the reason n8n's log gives once per module. */
export type Verdict = { accepted: true; advice?: string } | { accepted: false; reason: string };

/**
 * Judges a delivery through `sender` by what is true now: the credential's account, the webhook URL (`url`,
 * undefined for a test delivery, whose context gives only the production one) and the module registered for it.
 */
export function judgeDelivery(records: ModuleRecords, sender: ModuleRecord, account: Account, url: string | undefined, now = Date.now()): Verdict {
	const module = `webhook module ${moduleName(sender)} (${sender.event})`;
	const refused = (why: string): Verdict => ({ accepted: false, reason: `refused a delivery through ${module}: ${why}` });
	if (!account.owns(sender.account)) {
		return refused(`it was registered with another account than the credential's now. To register at the current account, ${REPUBLISH}; the service keeps the old module, which the provider can remove by its id.`);
	}
	if (url !== undefined && sender.url !== url) {
		const successor = currentModule(records, url, sender.event);
		if (successor !== undefined && account.owns(successor.account)) {
			return refused(`it was registered for the earlier webhook URL ${sender.url}; module ${moduleName(successor)} delivers to ${url}.`);
		}
		return {
			accepted: true,
			advice: `accepted a delivery through ${module}, registered for the earlier webhook URL ${sender.url}: ${REPUBLISH} to register a module for the current webhook URL ${url}.`,
		};
	}
	const successor = Object.values(records).find(
		(record) => record.url === sender.url && record.event === sender.event && record.registeredAt > sender.registeredAt,
	);
	// A replaced module keeps delivering the events it already tried, for its own retry window.
	if (successor !== undefined && now >= successor.registeredAt + inFlightLifetimeMs(sender)) {
		return refused(`module ${moduleName(successor)} replaced it on ${new Date(successor.registeredAt).toISOString()} (Timeout or Retry Limit changed), and its retries have ended.`);
	}
	return { accepted: true };
}

/**
 * The module whose secret the delivery carries, when a delivery through it is accepted now (judgeDelivery);
 * a refusal, or advice about an earlier URL, is logged once per module or URL.
 */
export async function acceptedSender(this: IWebhookFunctions, trigger: string): Promise<ModuleRecord | undefined> {
	const records = currentModuleRecords.call(this, trigger);
	const presented = this.getRequestObject().headers[SECRET_HEADER];
	const sender = typeof presented === 'string' ? moduleWithSecret(records, presented) : undefined;
	if (sender === undefined) return undefined;
	// A test delivery's URL is not the production URL this context gives: only production ones are judged by URL.
	const currentUrl = this.getMode() === 'manual' ? undefined : this.getNodeWebhookUrl('default');
	const verdict = judgeDelivery(records, sender, await currentAccount.call(this), currentUrl);
	if (!verdict.accepted) noticeOnce.call(this, `${trigger}\nrefused\n${sender.verifier}`, verdict.reason);
	else if (verdict.advice) noticeOnce.call(this, `${trigger}\nearlier URL\n${currentUrl}`, verdict.advice);
	return verdict.accepted ? sender : undefined;
}

function noticeOnce(this: IWebhookFunctions, topic: string, text: string): void {
	if (noticesGiven.get(topic) !== undefined) return;
	noticesGiven.set(topic, true);
	this.logger.warn(`${triggerLogPrefix.call(this)} ${text}`);
}

/** A module as the log names it: by the id the service gave it. */
export const moduleName = (record: ModuleRecord) => record.moduleId ?? '(id not returned)';

export function rememberRegistration(trigger: string, record: ModuleRecord): void {
	registeredModules.set(trigger, { ...registeredModules.get(trigger), [record.verifier]: { ...record } });
}

/** The stored records, those this process read of the trigger's records before, and its own registrations. */
export function currentModuleRecords(this: IHookFunctions | IWebhookFunctions, trigger: string): ModuleRecords {
	return recallRegistrations(trigger, storedModuleRecords.call(this));
}

/** As currentModuleRecords, and written into static data where this process's registrations or reads fill its gaps. */
export function syncModuleRecords(this: IHookFunctions, trigger: string): ModuleRecords {
	const stored = storedModuleRecords.call(this);
	const records = recallRegistrations(trigger, stored);
	const verifiers = Object.keys(records);
	if (verifiers.length !== Object.keys(stored).length || verifiers.some((verifier) => stored[verifier] === undefined)) {
		this.getWorkflowStaticData('global')[storeKey.call(this)] = { modules: structuredClone(records) as unknown as IDataObject };
	}
	return records;
}

function recallRegistrations(trigger: string, stored: ModuleRecords): ModuleRecords {
	// A module is never removed at the service, so every record once read or registered still holds.
	const read = storedModulesSeen.get(trigger) ?? {};
	// Set again at every read: a trigger in use stays in the bound, and a deleted workflow's records go first.
	storedModulesSeen.set(trigger, read);
	Object.assign(read, stored);
	const all = Object.values({ ...read, ...registeredModules.get(trigger) }).sort((a, b) => a.registeredAt - b.registeredAt);
	const records: ModuleRecords = {};
	for (const record of all.slice(-MAX_RECORDS)) records[record.verifier] = { ...record };
	return records;
}

/** The records of stored static data that are whole: static data is the user's workflow, edited, imported or damaged. */
function storedModuleRecords(this: IHookFunctions | IWebhookFunctions): ModuleRecords {
	const stored = (this.getWorkflowStaticData('global')[storeKey.call(this)] as IDataObject | undefined)?.modules;
	const records: ModuleRecords = {};
	for (const record of Object.values(stored ?? {})) {
		const { url, event, verifier, timeout, retryLimit, account, registeredAt, moduleId } = (record ?? {}) as Partial<Record<keyof ModuleRecord, unknown>>;
		const texts = [url, event, verifier, account];
		if (!texts.every((text) => typeof text === 'string' && text !== '') || ![timeout, retryLimit, registeredAt].every((number) => typeof number === 'number')) continue;
		records[verifier as string] = { ...({ url, event, verifier, timeout, retryLimit, account, registeredAt } as ModuleRecord), ...(typeof moduleId === 'string' ? { moduleId } : {}) };
	}
	return records;
}
