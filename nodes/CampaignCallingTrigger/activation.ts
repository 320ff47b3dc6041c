import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { createWebhookModule } from '../shared/service';
import { EVENT_HEADER, SECRET_HEADER } from './delivery';
import { deliveryLimits, repeatKeyPath, selectedEvents, thisTriggerKey } from './parameters';
import { hasSettings, newSecret, rememberRegistration, putBackModuleRecords, secretVerifier } from './registrations';
import { checkWebhookReach } from './webhookReach';

/**
 * Activation: one webhook module per selected event, registered at the service with this node's
 * webhook URL and a secret header. The service offers no way to change or delete a module, so a
 * module is reused for as long as its delivery settings (Timeout, Retry Limit) are the chosen ones;
 * when they change, a new module is registered and the old one's secret is no longer accepted.
 * Both hooks first refuse a webhook URL the service cannot reach (webhookReach.ts): such a module
 * would stay registered for good and never deliver.
 */
export async function modulesExist(this: IHookFunctions): Promise<boolean> {
	const { refusal } = await checkWebhookReach.call(this);
	if (refusal) throw refusal;
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents.call(this);
	const limits = deliveryLimits.call(this);
	// Checked here so a bad Repeat Key fails activation instead of every delivery.
	repeatKeyPath.call(this, this.getNodeParameter('options', {}) as IDataObject);
	const modules = putBackModuleRecords(this.getWorkflowStaticData('node'), thisTriggerKey.call(this))[webhookUrl] ?? {};
	return events.every((event) => hasSettings(modules[event], limits));
}

export async function registerModules(this: IHookFunctions): Promise<boolean> {
	const { refusal, warning } = await checkWebhookReach.call(this);
	if (refusal) throw refusal;
	if (warning) this.logger.warn(warning);
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	const events = selectedEvents.call(this);
	const limits = deliveryLimits.call(this);
	const staticData = this.getWorkflowStaticData('node');
	const trigger = thisTriggerKey.call(this);
	const records = putBackModuleRecords(staticData, trigger);

	// A new secret for the modules registered now; only the service knows earlier ones.
	const secret = newSecret();
	const record = { verifier: secretVerifier(secret), ...limits };
	for (const event of events) {
		const registered = records[webhookUrl]?.[event];
		if (hasSettings(registered, limits)) continue;
		await createWebhookModule.call(this, event, {
			method: 'POST',
			url: webhookUrl,
			headers: { [SECRET_HEADER]: secret, [EVENT_HEADER]: event },
			...limits,
		});
		if (registered !== undefined) {
			this.logger.info(
				`Campaign Calling Trigger: registered a new webhook module for ${event} with Timeout ${limits.timeout} and Retry Limit ${limits.retryLimit}; the service keeps the earlier module, whose deliveries this node now refuses.`,
			);
		}
		// Remembered outside static data at once: n8n saves static data only after activation, and may drop it.
		rememberRegistration(trigger, webhookUrl, event, record);
		putBackModuleRecords(staticData, trigger);
	}
	return true;
}

export async function keepModules(this: IHookFunctions): Promise<boolean> {
	const webhookUrl = this.getNodeWebhookUrl('default') as string;
	// After a failed create() n8n calls this on a fresh copy of static data and saves it: the
	// modules registered before the failure are put back here, and so kept.
	const records = putBackModuleRecords(this.getWorkflowStaticData('node'), thisTriggerKey.call(this));
	const kept = Object.keys(records[webhookUrl] ?? {}).length;
	// The service shows no endpoint to list or delete modules: they stay registered and the
	// record of them stays here, so the next activation reuses them instead of adding more.
	this.logger.info(
		`Campaign Calling Trigger: ${kept} webhook module(s) remain registered at the service for this node; they will be reused on the next activation.`,
	);
	return true;
}
