import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ServiceRequest } from '../../shared/transport';

/*
 * The contract between the router and the operations. Its own module, so operations never import
 * the router that imports them.
 */

/**
 * What a request of one operation carries for its errors and its tries: the operation's title, the
 * input item it serves (for a batch, its first item's), and Request Options. The router builds it; an
 * operation spreads it into its request.
 */
export type OperationCall = Required<Pick<ServiceRequest, 'operation' | 'itemIndex' | 'tuning'>>;

/** What the router and the node's description need of every operation. */
interface OperationBasics {
	/** The stored value of the Operation parameter ("addToCampaign"). */
	value: string;
	/**
	 * The operation's one name, in title case ("Add to Campaign"): the canvas subtitle, its errors, and,
	 * in sentence case, the node panel's action.
	 */
	title: string;
	/** Its name in the Operation list, within its resource ("Add to Campaign", "Get"). */
	name: string;
	description: string;
	/** Its parameters, shown only for this resource and operation (the resource's index adds that). */
	properties: INodeProperties[];
	/**
	 * Whether each send creates something at the service (a contact that will be called, a module).
	 * Under Retry On Fail such work is sent at most once per run of the node (see sentRecord.ts), so
	 * every operation states it.
	 */
	createsOnEachSend: boolean;
}

/**
 * An operation that makes one request per input item. `prepare` reads and checks the item's
 * parameters and runs for every item before any request is sent; `send` makes the request.
 */
export interface PerItemOperation<Prepared> extends OperationBasics {
	kind: 'perItem';
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared;
	send(this: IExecuteFunctions, prepared: Prepared, call: OperationCall): Promise<IDataObject | IDataObject[]>;
}

/** What one input item contributes to a batched operation: its units and where they go. */
export interface ItemUnits<Unit> {
	/** Units with the same key may share a request (for Add to Campaign: the campaign ID). */
	batchKey: string;
	units: Unit[];
}

/**
 * An operation whose units (contacts) from many items travel together, `batchSize` per request.
 * Every input item still yields exactly one output item, built by `itemOutput` from the answers
 * to its own units.
 */
export interface BatchedOperation<Unit> extends OperationBasics {
	kind: 'batched';
	prepare(this: IExecuteFunctions, itemIndex: number): ItemUnits<Unit>;
	batching(this: IExecuteFunctions): { batchSize: number; parallelRequests: number };
	/**
	 * Runs once, after every item is prepared and before any request, with the number of units the run
	 * would send; throws to refuse the whole run (a cap the user set on what one run may do): nothing is
	 * sent, and the router stops the run or, under Continue On Fail, fails every item.
	 */
	checkTotal?(this: IExecuteFunctions, totalUnits: number): void;
	/** Sends one batch; resolves to one answer per unit, in order. */
	sendBatch(this: IExecuteFunctions, batchKey: string, units: Unit[], call: OperationCall): Promise<IDataObject[]>;
	itemOutput(item: ItemUnits<Unit>, answers: IDataObject[], batchNumbers: number[]): IDataObject;
	/** What a failed item keeps of its input, so nothing is lost with Continue On Fail. */
	failedItemOutput(item: ItemUnits<Unit>): IDataObject;
}

/** Any operation; each is typed with its own unit where it is defined. */
export type Operation = PerItemOperation<unknown> | BatchedOperation<unknown>;
