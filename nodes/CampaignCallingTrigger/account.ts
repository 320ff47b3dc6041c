import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE, accountFingerprint } from '../shared/transport';
import { BoundedMap } from './boundedMap';

/** How long one credential read serves deliveries: concurrent deliveries share it, and a changed credential shows within it. */
const ACCOUNT_READ_LIFETIME_MS = 5_000;

interface AccountRead {
	fingerprint: Promise<string>;
	readAt: number;
}

/** The latest read per trigger node and credential. */
const accountReads = new BoundedMap<string, AccountRead>(10_000);

type TriggerContext = IHookFunctions | IWebhookFunctions;

/** One salt per trigger node, the same in every process and never stored: records of one trigger compare by fingerprint. */
const accountSalt = (context: TriggerContext) => `campaignCallingTrigger:${context.getNode().id}`;

function readKey(context: TriggerContext): string {
	const credential = context.getNode().credentials?.[CREDENTIAL_TYPE];
	return `${context.getNode().id}\n${credential?.id ?? credential?.name ?? ''}`;
}

function read(context: TriggerContext): AccountRead {
	const fresh = { fingerprint: accountFingerprint(context, accountSalt(context)), readAt: Date.now() };
	accountReads.set(readKey(context), fresh);
	return fresh;
}

/** The fingerprint of the account the node's credential reaches, read now: an activation decides what to register by it. */
export async function freshAccount(this: IHookFunctions): Promise<string> {
	return await read(this).fingerprint;
}

/** The same from a read at most a few seconds old, or undefined when the credential cannot be read (deleted, not decryptable). */
export async function recentAccount(this: IWebhookFunctions): Promise<string | undefined> {
	const earlier = accountReads.get(readKey(this));
	const latest = earlier !== undefined && Date.now() - earlier.readAt < ACCOUNT_READ_LIFETIME_MS ? earlier : read(this);
	return await latest.fingerprint.catch(() => undefined);
}
