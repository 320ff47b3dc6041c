import type { IDataObject } from 'n8n-workflow';

import { readRequestOptions } from '../../../../nodes/CampaignCalling/actions/router';
import { requestOptionsProperty } from '../../../../nodes/CampaignCalling/actions/shared/requestOptions';
import { DEMO, useSimulator } from '../../../helpers/kit.ts';
import { executeContextFor, runActionNodeExpectingError } from '../../../helpers/n8nContext.ts';
import { describeBadInputs } from '../../../helpers/badInputs.ts';

function tuningFor(requestOptions?: IDataObject) {
	const { context } = executeContextFor({
		credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'unused' },
		parameters: { resource: 'contact', operation: 'get', ...(requestOptions ? { requestOptions } : {}) },
	});
	return readRequestOptions(context);
}

describe('Request Options', () => {
	it('default to 3 retries from 500 ms and a 60 s timeout', () => {
		expect(tuningFor()).toEqual({ maxRetries: 3, timeoutMs: 60000 });
		expect(tuningFor({})).toEqual(tuningFor());
	});

	it('take Max Retries and Timeout (Seconds)', () => {
		expect(tuningFor({ maxRetries: 0, timeoutSeconds: 5 })).toEqual({ maxRetries: 0, timeoutMs: 5000 });
		expect(tuningFor({ maxRetries: 10, timeoutSeconds: 600 }).timeoutMs).toBe(600000);
	});

	it.each([
		[{ maxRetries: -1 }, /^Request Options → Max Retries must be a whole number from 0 to 10/],
		[{ maxRetries: 1.5 }, /^Request Options → Max Retries/],
		[{ timeoutSeconds: 601 }, /^Request Options → Timeout \(Seconds\) must be a whole number from 1 to 600/],
	])('refuse %j', (options, message) => {
		expect(() => tuningFor(options)).toThrow(message);
	});

	it('are offered as a collection named requestOptions', () => {
		expect(requestOptionsProperty.name).toBe('requestOptions');
		expect((requestOptionsProperty.options ?? []).map((option) => (option as { name: string }).name)).toEqual(['maxRetries', 'timeoutSeconds']);
	});
});

describe('Request Options reach every request of the run', () => {
	const sim = useSimulator();
	const leads = [{ json: { firstname: 'Ada', lastname: 'Lovelace', phone_number: '+14155550123' } }];

	it('a Get is repeated Max Retries times, not the default 3', async () => {
		sim.simulator.injectFault({ kind: 'http-500', times: 10 });
		await runActionNodeExpectingError({
			credentials: sim.credentials(),
			parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId, requestOptions: { maxRetries: 1 } },
		});
		expect(sim.requests()).toHaveLength(2);
	});

	it('a batch of Add to Campaign waits Timeout (Seconds), not the default 60', async () => {
		sim.simulator.injectFault({ kind: 'slow', delayMs: 2500 });
		const error = await runActionNodeExpectingError({
			credentials: sim.credentials(),
			items: leads,
			parameters: {
				resource: 'contact',
				operation: 'addToCampaign',
				campaignId: DEMO.campaignId,
				inputMode: 'autoMap',
				requestOptions: { maxRetries: 0, timeoutSeconds: 1 },
			},
		});
		expect(error.message).toMatch(/^Add to Campaign/);
		expect(error.message).toMatch(/1 s/);
	});
});

describe('Request Options refused before any request', () => {
	const sim = useSimulator();
	describeBadInputs(sim, [
		{ name: 'Request Options: Max Retries 11', parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId, requestOptions: { maxRetries: 11 } }, item: 0, message: /^Request Options → Max Retries must be a whole number from 0 to 10/, nodeWide: true },
		{ name: 'Request Options: Timeout 0 seconds', parameters: { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId, requestOptions: { timeoutSeconds: 0 } }, item: 0, message: /^Request Options → Timeout \(Seconds\) must be a whole number from 1 to 600/, nodeWide: true },
	]);
});
