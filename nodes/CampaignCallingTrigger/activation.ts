import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import { createWebhookModule } from '../shared/service';
import { freshAccount } from './account';
import { EVENT_HEADER, SECRET_HEADER } from './delivery';
import { deliveryLimits, ignoreRepeatsSet, repeatKeyPath, selectedEvents, triggerLogPrefix } from './parameters';
import { currentModule, moduleName, nextSequence, rememberRegistration, secretVerifier, serves, syncModuleRecords } from './registrations';
import type { ModuleRecords } from './registrations';
import { checkWebhookReach } from './webhookReach';

/**
 * What activation needs: the selected events without a module that still serves, and what registering them takes;
 * refuses a webhook URL the service cannot reach. `account` is undefined when the credential cannot be read.
 */
async function activationPlan(this: IHookFunctions, triggerKey: string, account: string | undefined) {
	const warning = await checkWebhookReach.call(this);
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents.call(this);
	const limits = deliveryLimits.call(this);
	// Checked here so a bad Repeat Key fails activation instead of every delivery.
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const keyPath = repeatKeyPath.call(this, options);
	const records = syncModuleRecords.call(this, triggerKey);
	const missing = events.filter((event) => !serves(currentModule(records, webhookUrl, event), limits, account));
	const comparesWholeEvents = ignoreRepeatsSet(options) && keyPath.length === 0;
	return { missing, warning, webhookUrl, limits, records, comparesWholeEvents };
}

/** Whether every selected event has a module that still serves; from the stored records alone when the credential cannot be read. */
export async function modulesExist(this: IHookFunctions, triggerKey: string): Promise<boolean> {
	const account = await freshAccount.call(this, triggerKey).catch(() => undefined);
	// n8n 1.x leaves the webhook unregistered at start-up when this throws: the current modules' deliveries go on.
	if (account === undefined) this.logger.warn(`${triggerLogPrefix.call(this)} could not read its credential; the stored webhook modules are taken as they are.`);
	const { missing } = await activationPlan.call(this, triggerKey, account);
	return missing.length === 0;
}

/** The ids of the modules registered for `event` before, for whichever URL or account, as the log names them. */
const modulesFor = (records: ModuleRecords, event: string) => Object.values(records).filter((record) => record.event === event).map(moduleName);

export async function registerModules(this: IHookFunctions, triggerKey: string): Promise<boolean> {
	const account = await freshAccount.call(this, triggerKey);
	const { missing, warning, webhookUrl, limits, records, comparesWholeEvents } = await activationPlan.call(this, triggerKey, account);
	if (warning) this.logger.warn(warning);
	const replaced: string[] = [];
	let known = records;
	for (const event of missing) {
		// A secret per module: only the service knows it; a delivery names its module by it. 64 characters
		// from a 62-letter alphabet: about 381 bits from the platform's secure generator.
		const secret = randomString(64);
		const created = await createWebhookModule.call(this, event, {
			method: 'POST',
			url: webhookUrl,
			headers: { [SECRET_HEADER]: secret, [EVENT_HEADER]: event },
			...limits,
		}, {
			operation: `Registering the webhook module for ${event}`,
			// A module the service created without answering never delivers here: its secret was not recorded.
			repeatHint: 'If the service created the module all the same, its deliveries are refused, since this trigger never learnt its secret; activating again registers a new one.',
		});
		const record = {
			url: webhookUrl,
			event,
			verifier: secretVerifier(secret),
			...limits,
			account,
			sequence: nextSequence(known),
			registeredAt: Date.now(),
			...(typeof created.id === 'string' || typeof created.id === 'number' ? { moduleId: String(created.id) } : {}),
			...(this.getMode() === 'manual' ? { listen: true as const } : {}),
		};
		// Remembered outside static data at once: n8n saves static data only after activation, and may drop it.
		rememberRegistration.call(this, triggerKey, record);
		known = syncModuleRecords.call(this, triggerKey);
		const earlier = modulesFor(records, event);
		if (earlier.length > 0) replaced.push(event);
		this.logger.info(
			`${triggerLogPrefix.call(this)} registered webhook module ${moduleName(record)} for ${event} delivering to ${webhookUrl} (Timeout ${limits.timeout} s, Retry Limit ${limits.retryLimit})${earlier.length > 0 ? `; earlier module(s) for this event: ${earlier.join(', ')}` : ''}.`,
		);
	}
	if (replaced.length > 0 && comparesWholeEvents) {
		// Inside an earlier module's retry window the service may send one event through both modules.
		this.logger.warn(
			`${triggerLogPrefix.call(this)} the earlier modules of ${replaced.join(', ')} still deliver for their retry windows, and Repeat Key is empty: a copy of an event that came through both counts as a repeat only if its whole body is the same. Set Options → Repeat Key to the field that names an event, such as data.call_id, so that each event runs once.`,
		);
	}
	return true;
}

export async function reportModulesKept(this: IHookFunctions, triggerKey: string): Promise<boolean> {
	// After a failed create() n8n runs this on fresh static data and saves it: the records go back in.
	const kept = Object.values(syncModuleRecords.call(this, triggerKey));
	this.logger.info(
		`${triggerLogPrefix.call(this)} ${kept.length} webhook module(s) remain registered at the service for this node${kept.length > 0 ? ` (${kept.map((record) => `${moduleName(record)} delivering to ${record.url}`).join(', ')})` : ''}; the next publish reuses those that still serve.`,
	);
	return true;
}
