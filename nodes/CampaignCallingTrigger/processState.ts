/** What the trigger keeps in the n8n process, each bounded: ARCHITECTURE.md, "What the trigger keeps in the process". */
import type { IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

/** This trigger node among all in the process's state: its workflow's id and its own. */
export function thisTriggerKey(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions): string {
	return `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
}

/** A Map whose oldest entries go first past a size limit. */
export class BoundedMap<K, V> extends Map<K, V> {
	private readonly maxEntries: number;

	constructor(maxEntries: number) {
		super();
		this.maxEntries = maxEntries;
	}

	/** Adds `key` as the newest entry, replacing any earlier one. */
	set(key: K, value: V): this {
		this.delete(key);
		super.set(key, value);
		if (this.size > this.maxEntries) this.delete(this.keys().next().value as K);
		return this;
	}
}

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
export const registeredModules = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/** Module records this process read in stored static data, for a test listen, which n8n gives an empty copy. */
export const storedModulesSeen = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/** How many keys n8n's store keeps per trigger; older ones are forgotten first. */
export const REMEMBERED_KEYS = 10_000;

/** One trigger's store updates, one after another; an entry lives only while they run. */
export const storeQueues = new Map<string, Promise<unknown>>();

/** Log lines given in this process (a module's refusal, a URL's advice), so each is logged once. */
export const noticesGiven = new BoundedMap<string, true>(50_000);
