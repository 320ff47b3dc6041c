import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ServiceRequest } from '../../shared/transport';

// The contract between the router and the operations, its own module so operations never import the router.

/** Per input item: its output records, or the one error item that replaced them. */
export type ItemResult = IDataObject[];

/** Records why an item failed, or throws without Continue On Fail; `refuseRun` fails every item. */
export interface Failures {
	failItem(itemIndex: number, error: unknown, keptInput?: IDataObject): void;
	refuseRun(error: unknown, keptInput?: (itemIndex: number) => IDataObject): void;
}

/** What every request of the run shares: the operation's title (for errors) and Request Options. */
export type RequestSettings = Required<Pick<ServiceRequest, 'operation' | 'maxRetries' | 'timeoutMs'>>;

interface OperationBasics<Prepared> {
	/** The stored value of the Operation parameter ("addToCampaign"). */
	value: string;
	/** "Add to Campaign": the canvas subtitle, its errors and, in sentence case, the panel's action. */
	title: string;
	/** Its name in the resource's Operation list ("Get"). */
	name: string;
	description: string;
	properties: INodeProperties[];
	/** Whether each send creates something (a contact that will be called, a module): sent once under Retry On Fail. */
	createsOnEachSend: boolean;
	/** Its node-wide whole numbers (Add to Campaign's Options), read by the router with Request Options. */
	runOptions?: INodeProperties;
	/** Reads and checks the item's parameters; runs for every item before any request is sent. */
	prepare(this: IExecuteFunctions, itemIndex: number): Prepared;
}

/** An operation that makes one request per input item. */
export interface PerItemOperation<Prepared> extends OperationBasics<Prepared> {
	send(this: IExecuteFunctions, prepared: Prepared, request: RequestSettings & Pick<ServiceRequest, 'itemIndex' | 'sendOnceAs'>): Promise<IDataObject | IDataObject[]>;
}

/** An operation that sends the prepared items together (Add to Campaign's batches), filling in `results`. */
export interface BatchedOperation<Prepared> extends OperationBasics<Prepared> {
	sendAll(this: IExecuteFunctions, prepared: Array<Prepared | undefined>, request: RequestSettings, options: Record<string, number>, results: ItemResult[], failures: Failures): Promise<void>;
}

export type Operation = PerItemOperation<unknown> | BatchedOperation<unknown>;
