/**
 * Everything the trigger keeps in the n8n process's memory. n8n's database is the record (static data
 * for the modules, the deduplication store for the events); these maps only bridge the moments it
 * lags behind or would cost an execution, so each is bounded and losing any of them (a restart) loses
 * no event. Per trigger node (`thisTriggerKey()`), in this process only:
 *
 * | map | holds | how long | why |
 * |---|---|---|---|
 * | `registeredHere` | modules this process registered | while n8n runs (MAX_TRIGGERS triggers) | static data is saved only after activation, and dropped after a failed one |
 * | `readFromStore` | module records read in stored static data | while n8n runs (MAX_TRIGGERS triggers) | a test listen gets empty static data |
 * | `recordedKeys` | keys an execution recorded as new and answered 2xx | 10 min; 5,000 per trigger, 50,000 in all | a repeat is answered without an execution |
 * | `inFlightEvents` | events handed to n8n whose delivery is not answered yet | the sender's window plus a minute; 50,000 | a retry waits for that answer instead of queueing an execution (inFlight.ts) |
 * | `storeQueues` | the trigger's store update running now | until it ends | one trigger's store updates run one at a time (repeats.ts) |
 * | `noticesGiven` | log lines given about a module or URL | while n8n runs (50,000) | a refusal is logged once, not per delivery |
 */

import { BoundedMap } from './boundedMap';

/**
 * A webhook module this trigger registered. The secret it sends is kept nowhere in n8n (n8n 1.x copies
 * static data into every saved execution): only its SHA-256 (`verifier`). The service can neither list
 * nor delete modules, so these records alone tell which module delivers for what: its webhook URL and
 * event, its delivery settings, the account it was registered at (`account`: a salt and a keyed
 * fingerprint of the credential's Base URL and key, registrations.ts), when, and the id the service gave it.
 */
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

/**
 * Modules this process registered, written the moment the service confirms each, as static data lags:
 * n8n saves it only after every create() of the activation returned (`ActiveWorkflowManager.addWebhooks`)
 * while the webhook's route is already live, and after a failed create() n8n 1.x calls delete() on a
 * copy freshly loaded from the database.
 */
export const registeredHere = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/**
 * Module records this process read in stored static data. n8n gives "Listen for test event" an empty
 * copy and saves none of it (`TestWebhooks.toWorkflow`): the test URL's records reach the database only
 * with an activation and come back when n8n reads the workflow again. A module is never removed, so a
 * record once stored still holds, and a listen reuses it.
 */
export const readFromStore = new BoundedMap<string, ModuleRecords>(MAX_TRIGGERS);

/** How many keys n8n's store keeps per trigger; older ones are forgotten first. */
export const REMEMBERED_KEYS = 10_000;

/**
 * Keys this process saw an execution record as new in n8n's store, per trigger: a delivery made only
 * of these is answered without starting an execution. Only a cache (the store is the record), so it
 * must never call an event a repeat that the store would run. The store keeps a trigger's last
 * REMEMBERED_KEYS keys in the order they were recorded (a repeat does not move its key), and other
 * n8n processes record keys this one never sees; so a key is cached in recording order, for at most
 * CACHED_KEY_LIFETIME_MS, and only while fewer than CACHED_KEYS_PER_TRIGGER newer keys of its trigger
 * were handed to executions here. A key is then gone from the store while still cached only if other
 * processes recorded the other half of REMEMBERED_KEYS for that trigger within CACHED_KEY_LIFETIME_MS.
 */
const CACHED_KEYS_PER_TRIGGER = REMEMBERED_KEYS / 2;
/**
 * The service's retries of an answered event come once its attempt timed out (within 2 minutes at the
 * module's defaults). Longer would let fewer events of other processes outdate a cached key.
 */
const CACHED_KEY_LIFETIME_MS = 10 * 60_000;
/** Bounds the cache as a whole, so the keys of a trigger that was deactivated or deleted age out. */
const MAX_CACHED_KEYS = 50_000;

/** One trigger's event key among all triggers' in this process. */
export const triggerEventKey = (trigger: string, hash: string) => `${trigger}\n${hash}`;

/** Every cached key of every trigger, oldest first: the bound over all triggers. */
const allRecordedKeys = new BoundedMap<string, true>(MAX_CACHED_KEYS, Infinity, (key) => {
	const split = key.lastIndexOf('\n');
	recordedKeys.get(key.slice(0, split))?.delete(key.slice(split + 1));
});
/** Per trigger, its cached keys oldest first; a trigger leaves with its last key. */
const recordedKeys = new BoundedMap<string, BoundedMap<string, true>>(MAX_CACHED_KEYS);

export function isRecordedRepeat(trigger: string, hash: string): boolean {
	return recordedKeys.get(trigger)?.get(hash) !== undefined;
}

/**
 * Called only once an execution answered the delivery 2xx. Its keys are cached only when it recorded
 * every one of them as new: a cached key must never hide an event that was not recorded, or whose
 * execution n8n cancelled, and a key the store already held may be the next one it forgets. Otherwise
 * some of them were recorded as new all the same, so as many of the trigger's oldest cached keys go,
 * as they go from the store. A key cached already keeps its place, as it keeps its place in the store.
 */
export function cacheRecordedKeys(trigger: string, hashes: string[], recordedAsNew = true): void {
	let cached = recordedKeys.get(trigger);
	if (!recordedAsNew) {
		for (let aged = 0; aged < hashes.length && cached !== undefined; aged++) cached.delete(cached.oldestKey() as string);
		return;
	}
	if (cached === undefined) {
		const triggerKeys = new BoundedMap<string, true>(CACHED_KEYS_PER_TRIGGER, CACHED_KEY_LIFETIME_MS, (hash) => {
			allRecordedKeys.delete(triggerEventKey(trigger, hash));
			if (triggerKeys.size === 0) recordedKeys.delete(trigger);
		});
		cached = triggerKeys;
		recordedKeys.set(trigger, cached);
	}
	for (const hash of hashes) {
		if (cached.get(hash) !== undefined) continue;
		cached.set(hash, true);
		allRecordedKeys.set(triggerEventKey(trigger, hash), true);
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

/** Runs one trigger's store updates one after another: an entry lives only while its trigger's updates run, so it needs no bound. */
export const storeQueues = new Map<string, Promise<unknown>>();

/** Log lines given in this process (a module's refusal, a URL's advice), so each is logged once. */
export const noticesGiven = new BoundedMap<string, true>(MAX_CACHED_KEYS);
