import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { EVENT_TYPE_VALUES } from '../shared/vocabulary';
import { EVENT_HEADER, HANDOVER_FIELD, deliveringModule, parseDelivery, readHandover, withoutSecret } from './delivery';
import type { Handover } from './delivery';
import { HUNG_UP, claimEvents } from './inFlight';
import { ignoresRepeats, repeatKeyPath, selectedEvents, thisTriggerKey, triggerLogPrefix } from './parameters';
import { currentAccount, currentModuleRecords, judgeDelivery } from './registrations';
import { REMEMBERED_KEYS, noticesGiven } from './processState';
import { STORE_SETTLE_MS, checkAndRecordKeys, keySources, repeatKeyHash } from './repeats';

/**
 * webhook(): checks a delivery and hands its new events to n8n for an execution. It answers at once
 * only a delivery that starts nothing (refused, or made of events already recorded); a retry of an
 * event whose execution n8n still holds waits here for that execution's answer. Any other delivery
 * is answered by execute() below.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const response = this.getResponseObject();
	const trigger = thisTriggerKey.call(this);

	const unauthorized = (): IWebhookResponseData => {
		response.status(401).json({ status: 'error', message: 'Unauthorized' });
		return { noWebhookResponse: true };
	};
	const records = currentModuleRecords.call(this, trigger);
	const sender = deliveringModule(records, request.headers);
	if (sender === undefined) return unauthorized();
	// A test delivery's URL is not the production URL this context gives: only production ones are judged by URL.
	const currentUrl = this.getMode() === 'manual' ? undefined : this.getNodeWebhookUrl('default');
	const verdict = judgeDelivery(records, sender, await currentAccount.call(this), currentUrl);
	if (!verdict.accepted) {
		noticeOnce.call(this, `${trigger}\nrefused\n${sender.verifier}`, verdict.reason);
		return unauthorized();
	}
	if (verdict.advice) noticeOnce.call(this, `${trigger}\nearlier URL\n${currentUrl}`, verdict.advice);

	const options = this.getNodeParameter('options', {}) as IDataObject;
	const delivery = parseDelivery(request);
	if (!delivery.ok) {
		response.status(delivery.statusCode).json({ status: 'error', message: delivery.message });
		return { noWebhookResponse: true };
	}

	const registeredEvent = request.headers[EVENT_HEADER];
	const fallbackEvent =
		typeof registeredEvent === 'string' && EVENT_TYPE_VALUES.has(registeredEvent) ? registeredEvent : undefined;
	const events = new Set(selectedEvents.call(this));
	const checkRepeats = ignoresRepeats.call(this, options);
	const path = checkRepeats ? repeatKeyPath.call(this, options) : [];

	const keySource = checkRepeats ? keySources(delivery.entries, request.rawBody?.toString('utf8')) : [];
	const selected: Array<{ entry: IDataObject; eventType: string; key: string | undefined }> = [];
	delivery.entries.forEach((entry, index) => {
		const eventType = typeof entry.event_type === 'string' ? entry.event_type : fallbackEvent;
		// Modules of events no longer selected still deliver here; they are acknowledged and dropped.
		if (eventType === undefined || !events.has(eventType)) return;
		selected.push({ entry, eventType, key: checkRepeats ? repeatKeyHash(keySource[index], path, eventType) : undefined });
	});
	const received = delivery.entries.length;
	const repeatsOf = (count: number) => (checkRepeats ? count : undefined);

	const claimed = await claimEvents(trigger, selected.map(({ key }) => key), response, sender);
	if (claimed === HUNG_UP) return { noWebhookResponse: true };
	const passed = selected.filter((_, index) => claimed.runs[index]);
	if (passed.length === 0) return { webhookResponse: acknowledgement(received, 0, repeatsOf(selected.length)) };
	const knownRepeats = selected.length - passed.length;

	const headers = options.includeHeaders === true ? withoutSecret(request.headers) : undefined;
	const items: INodeExecutionData[] = passed.map(({ entry, eventType, key }) => {
		const json: IDataObject = { ...entry };
		json.event_type = eventType;
		// The event's own fields come first: an event with a field of that name keeps it, without the headers.
		if (headers && !Object.prototype.hasOwnProperty.call(entry, 'headers')) json.headers = headers;
		const handover: Handover = { received, repeats: knownRepeats };
		if (key !== undefined) handover.key = key;
		json[HANDOVER_FIELD] = handover as unknown as IDataObject;
		return { json };
	});
	return { workflowData: [items] };
}

/** Logs a warning the first time this process meets `topic`, not at every delivery. */
function noticeOnce(this: IWebhookFunctions, topic: string, text: string): void {
	if (noticesGiven.get(topic) !== undefined) return;
	noticesGiven.set(topic, true);
	this.logger.warn(`${triggerLogPrefix.call(this)} ${text}`);
}

/**
 * execute(): runs as the execution's first node, so the execution exists by now. With Ignore
 * Repeats, records the events in n8n's deduplication store (in its database, shared by every n8n
 * process) and drops the repeats; then answers the delivery and passes on the new events.
 */
export async function answerDelivery(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const handovers = items.map((item) => readHandover(item.json));
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const checkRepeats = ignoresRepeats.call(this, options);

	let repeats = items.map(() => false);
	if (checkRepeats) {
		// Two entries per event: its key and the companion naming this execution (repeats.ts).
		const storeOptions = { mode: 'entries' as const, maxEntries: 2 * REMEMBERED_KEYS };
		const store = {
			record: async (hashes: string[]) => await this.helpers.checkProcessedAndRecord(hashes, 'node', storeOptions),
			remove: async (hashes: string[]) => await this.helpers.removeProcessed(hashes, 'node', storeOptions),
			settle: async () => await sleep(STORE_SETTLE_MS),
		};
		// n8n cancels an execution by aborting this signal after it answered the sender 500 (1.x at
		// shutdown, while this execution waited for the store): the service sends the event again, which
		// must not find it recorded by an execution that will not run it.
		const cancelled = () => this.getExecutionCancelSignal()?.aborted === true;
		let checked: boolean[] | undefined;
		try {
			const keys = handovers.map((handover) => handover?.key);
			checked = await checkAndRecordKeys(store, thisTriggerKey.call(this), this.getExecutionId(), keys, cancelled);
		} catch (error) {
			throw new NodeOperationError(this.getNode(), error as Error, {
				description: "n8n could not record the event in its deduplication store, so n8n answers the delivery 500 and the service sends the event again.",
			});
		}
		if (checked === undefined) {
			throw new NodeOperationError(this.getNode(), 'n8n cancelled this execution before it answered the delivery', {
				description: 'The event was not recorded as received: the service sends it again.',
			});
		}
		repeats = checked;
	}

	const fresh: INodeExecutionData[] = [];
	items.forEach((item, index) => {
		if (repeats[index]) return;
		const json = { ...item.json };
		delete json[HANDOVER_FIELD];
		fresh.push({ json, pairedItem: { item: index } });
	});

	// Items from a delivery carry its handover; pinned data and manual runs have no sender waiting.
	const [handover] = handovers;
	if (handover !== undefined) {
		const repeated = repeats.filter(Boolean).length;
		const body = acknowledgement(handover.received, fresh.length, checkRepeats ? handover.repeats + repeated : undefined);
		this.sendResponse({ body, headers: {}, statusCode: 200 });
	}
	return [fresh];
}

function acknowledgement(received: number, accepted: number, repeats: number | undefined): IDataObject {
	const answer: IDataObject = { status: 'ok', received, accepted };
	if (repeats !== undefined) answer.repeats = repeats;
	return answer;
}
