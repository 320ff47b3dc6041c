import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

/**
 * What the trigger knows about the webhook modules it registered. The service can neither list nor
 * delete modules, so this record is the only thing that keeps a later activation from registering an
 * event again, and the only way to tell a module's deliveries from forgeries.
 *
 * The node's static data (n8n's database) holds, per module, its id and a verifier: the SHA-256 of
 * the secret that module sends. The secret itself is kept nowhere in n8n, because n8n 1.x copies a
 * workflow's static data into every execution it saves.
 */
export interface ModuleRecord {
	id: string;
	verifier: string;
}

/** Per webhook URL (production and test URLs differ): event type → the module registered for it. */
export type ModuleRecords = Record<string, Record<string, ModuleRecord>>;

/** Where in the node's static data the records live. */
const MODULES = 'modules';
/** Written by earlier builds: one secret for the node, in the clear, and module ids without verifiers. */
const LEGACY_SECRET = 'secret';
const LEGACY_REGISTRATIONS = 'registrations';

/** 64 characters from a 62-letter alphabet: about 381 bits from the platform's secure generator. */
export function newSecret(): string {
	return randomString(64);
}

/** What is stored in place of a secret: enough to check one, useless to forge one. */
export function secretVerifier(secret: string): string {
	return createHash('sha256').update(secret).digest('base64url');
}

/** The records in the node's static data, with what earlier builds wrote read into the same form. */
export function readModuleRecords(staticData: IDataObject): ModuleRecords {
	const records: ModuleRecords = {};
	const legacySecret = staticData[LEGACY_SECRET];
	if (typeof legacySecret === 'string' && legacySecret !== '') {
		const verifier = secretVerifier(legacySecret);
		for (const [url, modules] of objectEntries(staticData[LEGACY_REGISTRATIONS])) {
			for (const [event, id] of objectEntries(modules)) {
				if (typeof id === 'string') (records[url] ??= {})[event] = { id, verifier };
			}
		}
	}
	for (const [url, modules] of objectEntries(staticData[MODULES])) {
		for (const [event, record] of objectEntries(modules)) {
			if (isModuleRecord(record)) (records[url] ??= {})[event] = { id: record.id, verifier: record.verifier };
		}
	}
	return records;
}

/** Stores the records, replacing what earlier builds wrote (their secret in the clear included). */
export function writeModuleRecords(staticData: IDataObject, records: ModuleRecords): void {
	staticData[MODULES] = structuredClone(records) as unknown as IDataObject;
	delete staticData[LEGACY_SECRET];
	delete staticData[LEGACY_REGISTRATIONS];
}

/** Whether `presented` is the secret of a module in the records. */
export function isKnownSecret(records: ModuleRecords, presented: string): boolean {
	const verifier = secretVerifier(presented);
	let known = false;
	for (const modules of Object.values(records)) {
		for (const record of Object.values(modules)) {
			// No early return: the time taken does not depend on which record matched.
			if (constantTimeEquals(verifier, record.verifier)) known = true;
		}
	}
	return known;
}

/**
 * Modules this n8n process registered, per trigger, for as long as the process runs. A registration
 * is written here the moment the service confirms it, because n8n can drop what create() wrote to
 * static data: n8n 1.x (and 2.x without its publication service) saves static data only after
 * create() returns, then calls delete() on a copy freshly loaded from the database. delete(), the next
 * checkExists() and the next create() put back what is missing, so a retry registers no event twice
 * and every module that was registered keeps its verifier.
 */
const registeredHere = new Map<string, ModuleRecords>();

/** Identifies a trigger node across n8n's Workflow objects: its workflow's id and its own id. */
export function triggerKey(workflowId: string | undefined, nodeId: string): string {
	return `${workflowId ?? ''}:${nodeId}`;
}

export function rememberRegistration(trigger: string, url: string, event: string, record: ModuleRecord): void {
	const records = registeredHere.get(trigger) ?? {};
	(records[url] ??= {})[event] = { ...record };
	registeredHere.set(trigger, records);
}

/**
 * The trigger's records with every module this process registered for it that they lack put back,
 * written into static data when that changed them or when it still holds the form of earlier builds.
 */
export function restoreModuleRecords(staticData: IDataObject, trigger: string): ModuleRecords {
	const { records, added } = recallRegistrations(trigger, readModuleRecords(staticData));
	if (added > 0 || LEGACY_SECRET in staticData || LEGACY_REGISTRATIONS in staticData) writeModuleRecords(staticData, records);
	return records;
}

/**
 * The stored records plus the modules this process registered for the trigger that they lack. A
 * module already recorded for that URL and event is kept: that is the record n8n saved.
 */
function recallRegistrations(trigger: string, stored: ModuleRecords): { records: ModuleRecords; added: number } {
	const records = structuredClone(stored);
	let added = 0;
	for (const [url, modules] of Object.entries(registeredHere.get(trigger) ?? {})) {
		for (const [event, record] of Object.entries(modules)) {
			if (records[url]?.[event] !== undefined) continue;
			(records[url] ??= {})[event] = { ...record };
			added++;
		}
	}
	return { records, added };
}

/** Compares without returning early on the first differing character. */
export function constantTimeEquals(presented: string, expected: string): boolean {
	let difference = presented.length ^ expected.length;
	for (let i = 0; i < expected.length; i++) {
		difference |= (presented.charCodeAt(i) || 0) ^ expected.charCodeAt(i);
	}
	return difference === 0;
}

function objectEntries(value: unknown): Array<[string, unknown]> {
	return value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [];
}

function isModuleRecord(value: unknown): value is ModuleRecord {
	if (!value || typeof value !== 'object') return false;
	const { id, verifier } = value as Record<string, unknown>;
	return typeof id === 'string' && typeof verifier === 'string' && verifier !== '';
}
