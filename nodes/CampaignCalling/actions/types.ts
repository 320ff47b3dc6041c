import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ServiceCall } from '../../shared/service';

/*
 * The contract between the router and the operations. Its own module, so operations never import
 * the router that imports them.
 */

/** What the router needs to know of any operation's sends. */
export interface SendKind {
	/**
	 * Each send creates something at the service (a contact that will be called, a module). Under Retry
	 * On Fail the router sends such work at most once per run of the node (see sentRecord.ts).
	 */
	createsOnEachSend?: true;
}

/**
 * An operation that makes one request per input item. `prepare` reads and checks the item's
 * parameters and runs for every item before any request is sent; `send` makes the request.
 */
export interface PerItemOperation<Prepared> extends SendKind {
	kind: 'perItem';
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared;
	send(this: IExecuteFunctions, prepared: Prepared, call: ServiceCall): Promise<IDataObject | IDataObject[]>;
}

/** What one input item contributes to a batched operation. */
export interface BatchShare<Unit> {
	/** Units with the same key may share a request (for Add Contacts: the campaign ID). */
	batchKey: string;
	units: Unit[];
}

/**
 * An operation whose units (contacts) from many items travel together, `batchSize` per request.
 * Every input item still yields exactly one output item, built by `itemOutput` from the answers
 * to its own units.
 */
export interface BatchedOperation<Unit> extends SendKind {
	kind: 'batched';
	prepare(this: IExecuteFunctions, itemIndex: number): BatchShare<Unit>;
	batching(this: IExecuteFunctions): { batchSize: number; parallelRequests: number };
	/**
	 * Runs once, after every item is prepared and before any request, with the number of units the run
	 * would send; throws to refuse the whole run (a cap the user set on what one run may do): nothing is
	 * sent, and the router stops the run or, under Continue On Fail, fails every item.
	 */
	checkTotal?(this: IExecuteFunctions, totalUnits: number): void;
	/** Sends one batch; resolves to one answer per unit, in order. `call` names the batch's first item. */
	sendBatch(this: IExecuteFunctions, batchKey: string, units: Unit[], call: ServiceCall): Promise<IDataObject[]>;
	itemOutput(share: BatchShare<Unit>, answers: IDataObject[], batchNumbers: number[]): IDataObject;
	/** What a failed item keeps of its input, so nothing is lost with Continue On Fail. */
	failedItemOutput(share: BatchShare<Unit>): IDataObject;
}
