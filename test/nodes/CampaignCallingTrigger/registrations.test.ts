/**
 * What the trigger keeps of the modules it registered (registrations.ts): the records in static data,
 * read defensively (static data is the user's workflow, edited, imported or damaged), the secret
 * check against them, and when static data is written.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	hasSettings,
	moduleWithSecret,
	newSecret,
	currentModuleRecords,
	rememberRegistration,
	putBackModuleRecords,
	secretVerifier,
} from '../../../nodes/CampaignCallingTrigger/registrations';
import type { ModuleRecord } from '../../../nodes/CampaignCallingTrigger/processState';

const URL = 'https://n8n.example.test/webhook/abc/campaign-calling';
let unseenTriggers = 0;
/** The records static data holds, as read for a trigger this process knows nothing of. */
const readRecords = (staticData: IDataObject) => currentModuleRecords(staticData, `unseen-trigger-${++unseenTriggers}`);
const record = (secret: string, timeout = 30, retryLimit = 3): ModuleRecord => ({ verifier: secretVerifier(secret), timeout, retryLimit });

describe('a module\'s settings', () => {
	it('match only when both Timeout and Retry Limit are the same', () => {
		const registered = record('s', 30, 3);
		expect(hasSettings(registered, { timeout: 30, retryLimit: 3 })).toBe(true);
		expect(hasSettings(registered, { timeout: 90, retryLimit: 3 })).toBe(false);
		expect(hasSettings(registered, { timeout: 30, retryLimit: 5 })).toBe(false);
		expect(hasSettings(undefined, { timeout: 30, retryLimit: 3 })).toBe(false);
	});
});

describe('module records read from static data', () => {
	it('keep well-formed records and drop every other value, so a damaged workflow cannot make a secret pass', () => {
		const good = record('good');
		const staticData: IDataObject = {
			modules: {
				[URL]: {
					'call.ended': good as unknown as IDataObject,
					'call.started': { verifier: 42, timeout: 30, retryLimit: 3 },
					'campaign.paused': { verifier: '', timeout: 30, retryLimit: 3 },
					'campaign.completed': { verifier: 'v', timeout: '30', retryLimit: 3 },
					'contact.updated': { verifier: 'v', timeout: 30 },
					'call.failed': 'not a record',
				},
				'https://other.example.test/': 'not a map of events',
			},
		};
		expect(readRecords(staticData)).toEqual({ [URL]: { 'call.ended': good } });
	});

	it('are none when static data holds nothing of the trigger', () => {
		expect(readRecords({})).toEqual({});
		expect(readRecords({ modules: 'damaged' })).toEqual({});
	});
});

describe('a presented secret', () => {
	it('is known when it matches any record, also beside a damaged verifier of another length', () => {
		const secret = newSecret();
		const records = { [URL]: { 'call.started': { verifier: 'short', timeout: 30, retryLimit: 3 }, 'call.ended': record(secret) } };
		expect(moduleWithSecret(records, secret)).toEqual(records[URL]['call.ended']);
		expect(moduleWithSecret(records, newSecret())).toBeUndefined();
	});
});

describe('static data', () => {
	it('is written only when this process registered a module that static data lacks', () => {
		const trigger = 'workflow-static:node-1';
		const modules = { [URL]: { 'call.ended': record('stored') } };
		const staticData: IDataObject = { modules: structuredClone(modules) as unknown as IDataObject };
		const stored = staticData.modules;

		putBackModuleRecords(staticData, trigger);
		expect(staticData.modules).toBe(stored);

		rememberRegistration(trigger, URL, 'call.ended', record('stored'));
		putBackModuleRecords(staticData, trigger);
		expect(staticData.modules).toBe(stored);

		rememberRegistration(trigger, URL, 'call.ended', record('newer'));
		expect(putBackModuleRecords(staticData, trigger)).toEqual({ [URL]: { 'call.ended': record('newer') } });
		expect(staticData.modules).toEqual({ [URL]: { 'call.ended': record('newer') } });
	});

	it("that is empty (n8n's test listen) gets the records this process read in the trigger's stored static data; stored ones win, and this process's registrations over both", () => {
		const trigger = 'workflow-read-from-store:node-1';
		const TEST_URL = URL.replace('/webhook/', '/webhook-test/');
		const stored: IDataObject = { modules: { [URL]: { 'call.ended': record('production') }, [TEST_URL]: { 'call.ended': record('test, stored') } } as unknown as IDataObject };
		putBackModuleRecords(stored, trigger);

		const listening: IDataObject = {};
		expect(putBackModuleRecords(listening, trigger)).toEqual({ [URL]: { 'call.ended': record('production') }, [TEST_URL]: { 'call.ended': record('test, stored') } });
		expect(readRecords(listening)).toEqual(readRecords(stored));

		const other: IDataObject = { modules: { [TEST_URL]: { 'call.ended': record('test, in this copy') } } as unknown as IDataObject };
		expect(putBackModuleRecords(other, trigger)[TEST_URL]).toEqual({ 'call.ended': record('test, in this copy') });
		rememberRegistration(trigger, TEST_URL, 'call.ended', record('test, registered here'));
		expect(putBackModuleRecords({}, trigger)[TEST_URL]).toEqual({ 'call.ended': record('test, registered here') });
		expect(putBackModuleRecords({}, 'another-workflow:node-1')).toEqual({});
	});
});
