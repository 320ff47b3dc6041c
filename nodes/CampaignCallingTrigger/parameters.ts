import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readDeliveryLimits } from '../shared/moduleSettings';
import { InvalidInputError, refusedInputError } from '../shared/transport';
import { quote } from '../shared/validation';
import { EVENT_TYPE_VALUES } from '../shared/vocabulary';

/** Ignore Repeats is on unless the user turned it off: each event then runs once, retries included. */
export const IGNORE_REPEATS_DEFAULT = true;

/** Whether Options → Ignore Repeats is on, as the user set it or by default. */
export const ignoreRepeatsSet = (options: IDataObject) => (options.ignoreRepeats ?? IGNORE_REPEATS_DEFAULT) === true;

export function ignoresRepeats(this: IWebhookFunctions, options: IDataObject): boolean {
	// Test deliveries (the editor's "Listen for test event") take one event and are not remembered.
	return ignoreRepeatsSet(options) && this.getMode() !== 'manual';
}

/** How the trigger's log lines begin: the node by name, as the user sees it on the canvas. */
export function triggerLogPrefix(this: IHookFunctions | IWebhookFunctions): string {
	return `Campaign Calling Trigger "${this.getNode().name}":`;
}

/** What webhook() reads, in one call: the selected events, the Repeat Key's path while Ignore Repeats is on, Include Headers. */
export function deliveryParameters(this: IWebhookFunctions): { events: Set<string>; keyPath?: string[]; includeHeaders: boolean } {
	const [events, options] = [new Set(selectedEvents.call(this)), this.getNodeParameter('options', {}) as IDataObject];
	return { events, keyPath: ignoresRepeats.call(this, options) ? repeatKeyPath.call(this, options) : undefined, includeHeaders: options.includeHeaders === true };
}

export function deliveryLimits(this: IHookFunctions): { timeout: number; retryLimit: number } {
	const options = this.getNodeParameter('options', {}) as IDataObject;
	try {
		return readDeliveryLimits(options);
	} catch (error) {
		throw refusedInputError(this.getNode(), error);
	}
}

/** Repeat Key as path segments when Ignore Repeats is on, from the Options the caller has read. */
export function repeatKeyPath(this: IHookFunctions | IWebhookFunctions, options: IDataObject): string[] {
	if (!ignoreRepeatsSet(options)) return [];
	try {
		return readRepeatKeyPath(options.repeatKey);
	} catch (error) {
		throw refusedInputError(this.getNode(), error);
	}
}

export function selectedEvents(this: IHookFunctions | IWebhookFunctions): string[] {
	const events = this.getNodeParameter('events', []) as string[];
	const unknown = events.filter((event) => !EVENT_TYPE_VALUES.has(event));
	if (events.length === 0 || unknown.length > 0) {
		throw new NodeOperationError(
			this.getNode(),
			events.length === 0 ? 'Select at least one event' : `Unknown event type: ${unknown.join(', ')}`,
			{ description: `Choose from: ${[...EVENT_TYPE_VALUES].join(', ')}.` },
		);
	}
	return events;
}

const REPEAT_KEY_FIELD = 'Options → Repeat Key';

/** Repeat Key as path segments; empty means the whole event is the key. */
export function readRepeatKeyPath(value: unknown): string[] {
	if (value === undefined || value === null) return [];
	if (typeof value !== 'string') throw new InvalidInputError(REPEAT_KEY_FIELD, `must be text, got ${quote(value)}`);
	const text = value.trim();
	if (text === '') return [];
	const segments = text.split('.');
	if (segments.some((segment) => segment.trim() === '')) {
		throw new InvalidInputError(
			REPEAT_KEY_FIELD,
			`is not a dot path: ${quote(text)}`,
			'Name the field that identifies an event, for example data.call_id or event_id, or leave it empty to compare whole events.',
		);
	}
	return segments.map((segment) => segment.trim());
}

