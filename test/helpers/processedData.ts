/**
 * n8n's deduplication store (what `this.helpers.checkProcessedAndRecord` reaches) as its database
 * implementation behaves, in memory: per workflow and node a list of MD5 hashes, read, extended and
 * written back, with a pause between the read and the write as a database round trip has (so two
 * calls at once both read the old list, as they do in n8n), the first write an insert that fails
 * for the second caller, and the list cut to `maxEntries`, oldest first. Registered once per test
 * process with n8n-core's DataDeduplicationService, which every ExecuteContext uses.
 */
import { createHash } from 'crypto';
import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

/** A write to the store as it ends. */
export type StoreEvent = 'keys recorded' | 'recording failed' | 'keys removed';

class ProcessedDataStore implements IDataDeduplicator {
	/** `<workflowId> n:<nodeId>` → the recorded hashes, oldest first: what the processed_data table holds. */
	readonly rows = new Map<string, string[]>();

	/** Set to make the next write fail, as a database that cannot take it (a lock timeout) does. */
	failNextWrite?: Error;

	/** Per row, who is told of each write as it ends: 'keys recorded', 'recording failed' or 'keys removed'. */
	private readonly watchers = new Map<string, Set<(event: StoreEvent) => void>>();

	/** Tells `watcher` of every later write to the row of `workflowId` and `nodeId`, in the order they end. */
	watch(workflowId: string, nodeId: string, watcher: (event: StoreEvent) => void): void {
		const row = `${workflowId} n:${nodeId}`;
		const watchers = this.watchers.get(row) ?? new Set();
		watchers.add(watcher);
		this.watchers.set(row, watchers);
	}

	private tell(row: string, event: StoreEvent): void {
		for (const watcher of this.watchers.get(row) ?? []) watcher(event);
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const row = rowKey(scope, context);
		const stored = this.rows.get(row);
		const read = stored === undefined ? undefined : [...stored];
		await roundTrip();
		const hashes = items.map((item) => createHash('md5').update(item.toString()).digest('base64'));
		const output: IDeduplicationOutput = { new: [], processed: [] };
		const list = read ?? [];
		const known = new Set(list);
		hashes.forEach((hash, index) => {
			if (known.has(hash)) {
				output.processed.push(items[index]);
			} else {
				output.new.push(items[index]);
				list.push(hash);
			}
		});
		if (options.maxEntries) list.splice(0, list.length - options.maxEntries);
		if (this.failNextWrite) {
			const error = this.failNextWrite;
			this.failNextWrite = undefined;
			this.tell(row, 'recording failed');
			throw error;
		}
		if (read === undefined && this.rows.has(row)) {
			this.tell(row, 'recording failed');
			throw new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context');
		}
		this.rows.set(row, list);
		this.tell(row, 'keys recorded');
		return output;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		const row = rowKey(scope, context);
		const stored = this.rows.get(row);
		await roundTrip();
		if (stored === undefined) return;
		const removed = new Set(items.map((item) => createHash('md5').update(item.toString()).digest('base64')));
		this.rows.set(row, stored.filter((hash) => !removed.has(hash)));
		this.tell(row, 'keys removed');
	}

	async clearAllProcessedItems(): Promise<void> {
		throw new Error('not used by the trigger');
	}

	async getProcessedDataCount(): Promise<number> {
		throw new Error('not used by the trigger');
	}
}

function rowKey(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
	return `${context.workflow.id} ${scope === 'node' ? `n:${context.node?.id}` : ''}`;
}

async function roundTrip(): Promise<void> {
	await new Promise((resolve) => setImmediate(resolve));
}

let store: ProcessedDataStore | undefined;

/** The store every ExecuteContext of this test process records into. */
export function processedDataStore(): ProcessedDataStore {
	if (store === undefined) {
		store = new ProcessedDataStore();
		void DataDeduplicationService.init(store);
	}
	return store;
}
