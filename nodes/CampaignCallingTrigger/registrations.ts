import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import { isPlainObject } from '../shared/validation';

/**
 * What the trigger knows about the webhook modules it registered. The service can neither list,
 * change nor delete modules, so this record is the only thing that keeps a later activation from
 * registering an event again, and the only way to tell a module's deliveries from forgeries.
 *
 * The node's static data (n8n's database) holds, per module, a verifier (the SHA-256 of the secret
 * that module sends) and the delivery settings it was registered with. The secret itself is kept
 * nowhere in n8n, because n8n 1.x copies a workflow's static data into every execution it saves.
 */
export interface ModuleRecord {
	verifier: string;
	timeout: number;
	retryLimit: number;
}

/** Per webhook URL (production and test URLs differ): event type → the module registered for it. */
export type ModuleRecords = Record<string, Record<string, ModuleRecord>>;

/** Where in the node's static data the records live. */
const MODULES = 'modules';

/** 64 characters from a 62-letter alphabet: about 381 bits from the platform's secure generator. */
export function newSecret(): string {
	return randomString(64);
}

/** What is stored in place of a secret: enough to check one, useless to forge one. */
export function secretVerifier(secret: string): string {
	return createHash('sha256').update(secret).digest('base64url');
}

/** Whether a module registered with `record` delivers with these settings; a change needs a new module. */
export function hasSettings(record: ModuleRecord | undefined, settings: { timeout: number; retryLimit: number }): boolean {
	return record !== undefined && record.timeout === settings.timeout && record.retryLimit === settings.retryLimit;
}

export function readModuleRecords(staticData: IDataObject): ModuleRecords {
	const records: ModuleRecords = {};
	for (const [url, modules] of objectEntries(staticData[MODULES])) {
		for (const [event, record] of objectEntries(modules)) {
			if (isModuleRecord(record)) {
				(records[url] ??= {})[event] = { verifier: record.verifier, timeout: record.timeout, retryLimit: record.retryLimit };
			}
		}
	}
	return records;
}

export function writeModuleRecords(staticData: IDataObject, records: ModuleRecords): void {
	staticData[MODULES] = structuredClone(records) as unknown as IDataObject;
}

/** The record whose secret `presented` is, if any: its settings tell how the service retries its deliveries. */
export function moduleWithSecret(records: ModuleRecords, presented: string): ModuleRecord | undefined {
	const verifier = Buffer.from(secretVerifier(presented));
	let known: ModuleRecord | undefined;
	for (const modules of Object.values(records)) {
		for (const record of Object.values(modules)) {
			const expected = Buffer.from(record.verifier);
			// No early return: the time taken does not depend on which record matched.
			if (expected.length === verifier.length && timingSafeEqual(verifier, expected)) known = record;
		}
	}
	return known;
}

/**
 * Modules this n8n process registered, per trigger, for as long as the process runs. A registration
 * is written here the moment the service confirms it, because static data lags behind it:
 * - n8n saves static data only after every create() of the activation returned (2.41.1
 *   `ActiveWorkflowManager.addWebhooks`), while the webhook's route is live before create() runs: a
 *   module registered first can deliver before its record is saved, and webhook() checks here too;
 * - after a failed create(), n8n 1.x (and 2.x without its publication service) calls delete() on a
 *   copy freshly loaded from the database. delete(), the next checkExists() and the next create()
 *   put back what is missing, so a retry registers no event twice and every module keeps its verifier.
 * A record here is the newest this process made for its URL and event, so it wins over a stored one.
 */
const registeredHere = new Map<string, ModuleRecords>();

/**
 * Records this n8n process has read in each trigger's stored static data, the newest read per URL and
 * event. n8n gives "Listen for test event" no stored static data: each listen starts from an empty copy
 * and n8n saves none of it (`TestWebhooks.toWorkflow`; manual executions save no static data). The test
 * URL's records reach n8n's database only with an activation, which stores this process's registrations
 * beside its own, and come back when the workflow is activated or deactivated again, or reactivated as
 * n8n starts. The service never removes a module, so a record once stored still describes a module that
 * delivers with that secret: a listen reuses it, under the stored records and this process's registrations.
 */
const readFromStore = new Map<string, ModuleRecords>();

/** Identifies a trigger node across n8n's Workflow objects: its workflow's id and its own id. */
export function triggerKey(workflowId: string | undefined, nodeId: string): string {
	return `${workflowId ?? ''}:${nodeId}`;
}

export function rememberRegistration(trigger: string, url: string, event: string, record: ModuleRecord): void {
	const records = registeredHere.get(trigger) ?? {};
	(records[url] ??= {})[event] = { ...record };
	registeredHere.set(trigger, records);
}

/** The stored records, what this process read of the trigger's records before filling their gaps, and its newer registrations laid over both. */
export function currentModuleRecords(staticData: IDataObject, trigger: string): ModuleRecords {
	return recallRegistrations(trigger, readModuleRecords(staticData)).records;
}

/** As currentModuleRecords, and written into static data when this process's registrations changed them. */
export function restoreModuleRecords(staticData: IDataObject, trigger: string): ModuleRecords {
	const { records, changed } = recallRegistrations(trigger, readModuleRecords(staticData));
	if (changed) writeModuleRecords(staticData, records);
	return records;
}

function recallRegistrations(trigger: string, stored: ModuleRecords): { records: ModuleRecords; changed: boolean } {
	const records = structuredClone(stored);
	let changed = false;
	const read = readFromStore.get(trigger) ?? {};
	for (const [url, modules] of Object.entries(stored)) Object.assign((read[url] ??= {}), structuredClone(modules));
	readFromStore.set(trigger, read);
	for (const [url, modules] of Object.entries(read)) {
		for (const [event, record] of Object.entries(modules)) {
			if (records[url]?.[event] !== undefined) continue;
			(records[url] ??= {})[event] = { ...record };
			changed = true;
		}
	}
	for (const [url, modules] of Object.entries(registeredHere.get(trigger) ?? {})) {
		for (const [event, record] of Object.entries(modules)) {
			if (records[url]?.[event]?.verifier === record.verifier) continue;
			(records[url] ??= {})[event] = { ...record };
			changed = true;
		}
	}
	return { records, changed };
}

function objectEntries(value: unknown): Array<[string, unknown]> {
	return isPlainObject(value) ? Object.entries(value) : [];
}

function isModuleRecord(value: unknown): value is ModuleRecord {
	if (!isPlainObject(value)) return false;
	const { verifier, timeout, retryLimit } = value;
	return typeof verifier === 'string' && verifier !== '' && typeof timeout === 'number' && typeof retryLimit === 'number';
}
