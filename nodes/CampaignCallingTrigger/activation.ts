import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { randomString } from 'n8n-workflow';

import { createWebhookModule } from '../shared/service';
import { EVENT_HEADER, SECRET_HEADER } from './delivery';
import { deliveryLimits, repeatKeyPath, selectedEvents, triggerLogPrefix } from './parameters';
import {
	currentAccount,
	currentModule,
	moduleName,
	syncModuleRecords,
	rememberRegistration,
	secretVerifier,
	serves,
} from './registrations';
import { checkWebhookReach } from './webhookReach';

/** What activation needs: the selected events without a module that still serves, and what registering them takes; refuses a webhook URL the service cannot reach. */
async function activationPlan(this: IHookFunctions, trigger: string) {
	const warning = await checkWebhookReach.call(this);
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents.call(this);
	const limits = deliveryLimits.call(this);
	// Checked here so a bad Repeat Key fails activation instead of every delivery.
	repeatKeyPath.call(this, this.getNodeParameter('options', {}) as IDataObject);
	const records = syncModuleRecords.call(this, trigger);
	const account = await currentAccount.call(this);
	const missing = events.filter((event) => !serves(currentModule(records, webhookUrl, event), limits, account));
	return { missing, warning, webhookUrl, limits, account };
}

export async function modulesExist(this: IHookFunctions, trigger: string): Promise<boolean> {
	const { missing } = await activationPlan.call(this, trigger);
	return missing.length === 0;
}

export async function registerModules(this: IHookFunctions, trigger: string): Promise<boolean> {
	const { missing, warning, webhookUrl, limits, account } = await activationPlan.call(this, trigger);
	if (warning) this.logger.warn(warning);
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

export async function reportModulesKept(this: IHookFunctions, trigger: string): Promise<boolean> {
	// After a failed create() n8n runs this on fresh static data and saves it: the records go back in.
	const kept = Object.values(syncModuleRecords.call(this, trigger));
	this.logger.info(
		`${triggerLogPrefix.call(this)} ${kept.length} webhook module(s) remain registered at the service for this node${kept.length > 0 ? ` (${kept.map(moduleName).join(', ')})` : ''}; the next activation reuses those that still serve.`,
	);
	return true;
}
