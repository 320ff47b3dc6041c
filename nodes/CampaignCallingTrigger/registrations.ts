import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import { isPlainObject } from '../shared/validation';
import { readFromStore, registeredHere } from './processState';
import type { ModuleRecord, ModuleRecords } from './processState';

/** Where in the node's static data the module records (processState.ts, ModuleRecord) live. */
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

function readModuleRecords(staticData: IDataObject): ModuleRecords {
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

function writeModuleRecords(staticData: IDataObject, records: ModuleRecords): void {
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

export function rememberRegistration(trigger: string, url: string, event: string, record: ModuleRecord): void {
	const records = registeredHere.get(trigger) ?? {};
	(records[url] ??= {})[event] = { ...record };
	registeredHere.set(trigger, records);
}

/** The stored records, what this process read of the trigger's records before filling their gaps, and its newer registrations laid over both. */
export function currentModuleRecords(staticData: IDataObject, trigger: string): ModuleRecords {
	return recallRegistrations(trigger, readModuleRecords(staticData)).records;
}

/** As currentModuleRecords, and written into static data where this process's registrations or reads fill its gaps. */
export function putBackModuleRecords(staticData: IDataObject, trigger: string): ModuleRecords {
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
