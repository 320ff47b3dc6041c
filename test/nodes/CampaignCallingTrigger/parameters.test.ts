/**
 * The trigger's parameters as each hook reads them (parameters.ts): the events, the delivery limits,
 * Ignore Repeats and its Repeat Key.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import {
	IGNORE_REPEATS_DEFAULT,
	deliveryLimits,
	ignoresRepeats,
	repeatKeyPath,
	selectedEvents,
} from '../../../nodes/CampaignCallingTrigger/parameters';

/** Just what parameters.ts reads of n8n's hook, webhook and execute contexts. */
function contextWith(parameters: IDataObject, mode = 'webhook') {
	return {
		getNodeParameter: (name: string, fallback: unknown) => parameters[name] ?? fallback,
		getMode: () => mode,
		getNode: () => ({ id: 'node-1', name: 'Campaign Calling Trigger', type: 'campaignCallingTrigger', typeVersion: 2, position: [0, 0], parameters }),
		getWorkflow: () => ({ id: 'workflow-1' }),
	} as unknown as IHookFunctions & IWebhookFunctions;
}

describe("the trigger's parameters", () => {
	it('Ignore Repeats is on unless turned off, and never for test deliveries', () => {
		expect(IGNORE_REPEATS_DEFAULT).toBe(true);
		expect(ignoresRepeats.call(contextWith({}), {})).toBe(true);
		expect(ignoresRepeats.call(contextWith({}), { ignoreRepeats: false })).toBe(false);
		expect(ignoresRepeats.call(contextWith({}, 'manual'), { ignoreRepeats: true })).toBe(false);
	});

	it('Repeat Key is read only while Ignore Repeats is on, and refused in n8n\'s error naming the field', () => {
		const context = contextWith({});
		expect(repeatKeyPath.call(context, { repeatKey: ' data . call_id ' })).toEqual(['data', 'call_id']);
		expect(repeatKeyPath.call(context, { ignoreRepeats: false, repeatKey: 'data..call_id' })).toEqual([]);
		expect(() => repeatKeyPath.call(context, { repeatKey: 'data..call_id' })).toThrow('Options → Repeat Key is not a dot path: "data..call_id"');
	});

	it('the delivery limits default to the module defaults and refuse what the service does not take', () => {
		expect(deliveryLimits.call(contextWith({ options: {} }))).toEqual({ timeout: 30, retryLimit: 3 });
		expect(deliveryLimits.call(contextWith({ options: { timeout: 6, retryLimit: 0 } }))).toEqual({ timeout: 6, retryLimit: 0 });
		expect(() => deliveryLimits.call(contextWith({ options: { retryLimit: -1 } }))).toThrow(/Options → Retry Limit/);
	});

	it('the events must be known ones, at least one', () => {
		expect(selectedEvents.call(contextWith({ events: ['call.ended', 'campaign.completed'] }))).toEqual(['call.ended', 'campaign.completed']);
		expect(() => selectedEvents.call(contextWith({ events: [] }))).toThrow('Select at least one event');
		expect(() => selectedEvents.call(contextWith({ events: ['call.paused'] }))).toThrow('Unknown event type: call.paused');
	});
});
