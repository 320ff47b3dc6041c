/** What the trigger keeps in the n8n process, each bounded: ARCHITECTURE.md, "What the trigger keeps in the process". */
import type { IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

/** This trigger node among all in the process's state: its workflow's id and its own. */
export function thisTriggerKey(this: IHookFunctions | IWebhookFunctions | IExecuteFunctions): string {
	return `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
}

/** A Map whose entries expire, and whose oldest entries go first past a size limit. */
export class BoundedMap<K, V> {
	private readonly entries = new Map<K, { value: V; expiresAt: number }>();

	private readonly maxEntries: number;

	constructor(maxEntries: number) {
		this.maxEntries = maxEntries;
	}

	get(key: K): V | undefined {
		const entry = this.entries.get(key);
		if (entry !== undefined && Date.now() < entry.expiresAt) return entry.value;
		this.entries.delete(key);
		return undefined;
	}

	/** Adds `key` as the newest entry, replacing any earlier one, to expire `lifetimeMs` after `since`. */
	set(key: K, value: V, since = Date.now(), lifetimeMs = Infinity): void {
		this.entries.delete(key);
		this.entries.set(key, { value, expiresAt: since + lifetimeMs });
		if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
	}

	delete(key: K): void {
		this.entries.delete(key);
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

/**
 * Keys an execution here recorded as new and answered 2xx: a delivery made only of these is answered
 * without an execution. The store forgets a trigger's oldest keys first, so a key is cached in recording
 * order while fewer than half the store's keys were handed to executions here, for 10 minutes at most
 * (docs/trigger.md, "What a repeat costs").
 */
const CACHED_KEYS_PER_TRIGGER = REMEMBERED_KEYS / 2;
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;
/** Bounds the cache as a whole, so the keys of a deactivated or deleted trigger age out. */
const MAX_CACHED_KEYS = 50_000;

/** Per trigger, its cached keys and when each was cached, oldest first. */
const cachedKeys = new Map<string, Map<string, number>>();
/** Every trigger's cached keys, oldest first: the bound over all triggers. */
const cacheOrder = new Map<string, { trigger: string; hash: string }>();

/** One trigger's event key among all triggers' in this process. */
export const triggerEventKey = (trigger: string, hash: string) => `${trigger}\n${hash}`;

function forgetKey(trigger: string, hash: string): void {
	const keys = cachedKeys.get(trigger);
	keys?.delete(hash);
	if (keys?.size === 0) cachedKeys.delete(trigger);
	cacheOrder.delete(triggerEventKey(trigger, hash));
}

export function isRecordedRepeat(trigger: string, hash: string): boolean {
	const cachedAt = cachedKeys.get(trigger)?.get(hash);
	if (cachedAt === undefined) return false;
	if (Date.now() - cachedAt < CACHED_KEY_LIFETIME_MS) return true;
	forgetKey(trigger, hash);
	return false;
}

/**
 * Called once an execution answered 2xx. Only an answer that recorded every key as new caches them;
 * any other ages as many of the trigger's oldest cached keys, as the store ages them.
 */
export function cacheRecordedKeys(trigger: string, hashes: string[], recordedAsNew = true): void {
	for (const hash of hashes) {
		const keys = cachedKeys.get(trigger) ?? new Map<string, number>();
		const oldest = keys.keys().next().value;
		if (!recordedAsNew) {
			if (oldest !== undefined) forgetKey(trigger, oldest);
			continue;
		}
		// A key cached already keeps its place, as it keeps its place in the store.
		if (isRecordedRepeat(trigger, hash)) continue;
		cachedKeys.set(trigger, keys.set(hash, Date.now()));
		cacheOrder.set(triggerEventKey(trigger, hash), { trigger, hash });
		if (keys.size > CACHED_KEYS_PER_TRIGGER) forgetKey(trigger, oldest as string);
		if (cacheOrder.size > MAX_CACHED_KEYS) {
			const first = cacheOrder.values().next().value as { trigger: string; hash: string };
			forgetKey(first.trigger, first.hash);
		}
	}
}

/** The delivering module's settings: how long its sender waits per attempt (seconds) and how often it retries. */
export type SenderWindow = Pick<ModuleRecord, 'timeout' | 'retryLimit'>;

/** An event handed to n8n whose delivery is not answered yet (inFlight.ts tells its lifecycle). */
export interface InFlightEvent {
	/** Resolves with whether n8n answered the delivery 2xx. */
	answered: Promise<boolean>;
	/** Deliveries of the event this process took since the first: the sender's attempt number of the latest. */
	attempts: number;
	/** When the first of them came. */
	since: number;
	window: SenderWindow;
}

/** The sender's window, (Retry Limit + 1) × Timeout, and a minute for its pauses between attempts (not shown). */
export const inFlightLifetimeMs = ({ timeout, retryLimit }: SenderWindow) => (retryLimit + 1) * timeout * 1000 + 60_000;

/** Events handed to n8n whose execution, waiting for a slot or a queue-mode worker, has not answered yet. */
export const inFlightEvents = new BoundedMap<string, InFlightEvent>(MAX_CACHED_KEYS);

/** One trigger's store updates, one after another; an entry lives only while they run. */
export const storeQueues = new Map<string, Promise<unknown>>();

/** Log lines given in this process (a module's refusal, a URL's advice), so each is logged once. */
export const noticesGiven = new BoundedMap<string, true>(MAX_CACHED_KEYS);
