import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { createWebhookModule } from '../shared/service';
import { EVENT_HEADER, SECRET_HEADER } from './delivery';
import { deliveryLimits, repeatKeyPath, selectedEvents, triggerLogPrefix } from './parameters';
import {
	currentAccount,
	currentModule,
	moduleName,
	newSecret,
	syncModuleRecords,
	thisTriggerKey,
	rememberRegistration,
	secretVerifier,
	serves,
} from './registrations';
import { checkWebhookReach } from './webhookReach';

/** Whether every selected event has a module that still serves; refuses a webhook URL the service cannot reach. */
export async function modulesExist(this: IHookFunctions): Promise<boolean> {
	const { refusal } = await checkWebhookReach.call(this);
	if (refusal) throw refusal;
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents.call(this);
	const limits = deliveryLimits.call(this);
	// Checked here so a bad Repeat Key fails activation instead of every delivery.
	repeatKeyPath.call(this, this.getNodeParameter('options', {}) as IDataObject);
	const records = syncModuleRecords.call(this, thisTriggerKey.call(this));
	const account = await currentAccount.call(this);
	return events.every((event) => serves(currentModule(records, webhookUrl, event), limits, account));
}

export async function registerModules(this: IHookFunctions): Promise<boolean> {
	const { refusal, warning } = await checkWebhookReach.call(this);
	if (refusal) throw refusal;
	if (warning) this.logger.warn(warning);
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents.call(this);
	const limits = deliveryLimits.call(this);
	const trigger = thisTriggerKey.call(this);
	const records = syncModuleRecords.call(this, trigger);
	const account = await currentAccount.call(this);

	for (const event of events) {
		if (serves(currentModule(records, webhookUrl, event), limits, account)) continue;
		// A secret per module: only the service knows it; a delivery names its module by it.
		const secret = newSecret();
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
			account: account.fingerprint(),
			registeredAt: Date.now(),
			...(typeof created.id === 'string' || typeof created.id === 'number' ? { moduleId: String(created.id) } : {}),
		};
		// Remembered outside static data at once: n8n saves static data only after activation, and may drop it.
		rememberRegistration(trigger, record);
		syncModuleRecords.call(this, trigger);
		this.logger.info(
			`${triggerLogPrefix.call(this)} registered webhook module ${moduleName(record)} for ${event} (Timeout ${limits.timeout} s, Retry Limit ${limits.retryLimit}).`,
		);
	}
	return true;
}

export async function reportModulesKept(this: IHookFunctions): Promise<boolean> {
	// After a failed create() n8n runs this on fresh static data and saves it: the records go back in.
	const kept = Object.values(syncModuleRecords.call(this, thisTriggerKey.call(this)));
	this.logger.info(
		`${triggerLogPrefix.call(this)} ${kept.length} webhook module(s) remain registered at the service for this node${kept.length > 0 ? ` (${kept.map(moduleName).join(', ')})` : ''}; the next activation reuses those that still serve.`,
	);
	return true;
}
