/**
 * execute() on items no delivery brought: a manual run that runs the trigger again on its last output
 * (the editor's triggerToStartFrom.data; proven in real n8n by test/e2e/trigger-manual.e2e.test.ts).
 * Nothing waits for an answer, so the items pass on and no answer is sent.
 */
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

describe('the trigger run on items without a delivery', () => {
	it.each([
		['Ignore Repeats off', {}],
		['Ignore Repeats on', { ignoreRepeats: true, repeatKey: 'event_id' }],
	])('passes them on, paired, and answers nothing (%s)', async (_label, options) => {
		const trigger = new TriggerHarness({ events: ['call.ended'], options }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
		const items = [{ json: { event_type: 'call.ended', event_id: 'e-1' } }, { json: { event_type: 'call.ended', event_id: 'e-2' } }];
		const { answer, output } = await trigger.execute(items, 'manual');
		expect(output).toEqual([
			{ json: items[0].json, pairedItem: { item: 0 } },
			{ json: items[1].json, pairedItem: { item: 1 } },
		]);
		expect(answer).toEqual({});
	});
});
