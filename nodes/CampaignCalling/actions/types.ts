import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ServiceRequest } from '../../shared/transport';

// The contract between the router and the operations, its own module so operations never import the router.

/** Per input item: its output items, or the error that replaced them. */
export type ItemResult = { output: IDataObject[] } | { error: Error; keptInput: IDataObject };

/**
 * Records why an item failed, or throws without Continue On Fail. `refuseRun` fails every item (a
 * node-wide option, a cap on the run). `keptInput` is what an error item keeps of its input.
 */
export interface Failures {
	failItem(itemIndex: number, error: unknown, keptInput?: IDataObject): void;
	refuseRun(error: unknown, keptInput?: (itemIndex: number) => IDataObject): void;
}

/** What the router hands an operation's requests: its title for errors, and Request Options. */
export type RequestBase = Required<Pick<ServiceRequest, 'operation' | 'maxRetries' | 'timeoutMs'>>;

/** What the router and the node's description need of every operation. */
interface OperationBasics<Prepared> {
	/** The stored value of the Operation parameter ("addToCampaign"). */
	value: string;
	/** Its title ("Add to Campaign"): the canvas subtitle, its errors and, in sentence case, the panel's action. */
	title: string;
	/** Its name in the Operation list, within its resource ("Add to Campaign", "Get"). */
	name: string;
	description: string;
	/** Its parameters, shown only for this resource and operation (the resource's index adds that). */
	properties: INodeProperties[];
	/** Whether each send creates something (a contact that will be called, a module): sent once under Retry On Fail. */
	createsOnEachSend: boolean;
	/** Reads and checks the item's parameters; runs for every item before any request is sent. */
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared;
}

/** An operation that makes one request per input item. */
export interface PerItemOperation<Prepared> extends OperationBasics<Prepared> {
	kind: 'perItem';
	send(this: IExecuteFunctions, prepared: Prepared, request: RequestBase & Pick<ServiceRequest, 'itemIndex' | 'sendOnceAs'>): Promise<IDataObject | IDataObject[]>;
}

/** An operation that sends the prepared items together (Add to Campaign's batches), filling in `results`. */
export interface BatchedOperation<Prepared> extends OperationBasics<Prepared> {
	kind: 'batched';
	sendAll(this: IExecuteFunctions, prepared: Array<Prepared | undefined>, request: RequestBase, results: ItemResult[], failures: Failures): Promise<void>;
}

/** Any operation; each is typed with what it prepares where it is defined. */
export type Operation = PerItemOperation<unknown> | BatchedOperation<unknown>;
