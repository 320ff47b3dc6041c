import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, accountFingerprint } from '../shared/transport';
import { BoundedMap } from './boundedMap';

/** How long one credential read serves deliveries: concurrent deliveries share it, and a changed credential shows within it. */
const ACCOUNT_READ_LIFETIME_MS = 5_000;

interface AccountRead {
	fingerprint: Promise<string>;
	readAt: number;
	/** Until the read settles, deliveries share it rather than start another. */
	pending: boolean;
}

/** The latest read per trigger and credential. */
const accountReads = new BoundedMap<string, AccountRead>(10_000);

type TriggerContext = IHookFunctions | IWebhookFunctions;

/** One salt per trigger (its workflow and node: `triggerKey`), the same in every process and never stored: a copy of the workflow fingerprints apart. */
const accountSalt = (triggerKey: string) => `campaignCallingTrigger:${triggerKey}`;

function readKey(context: TriggerContext, triggerKey: string): string {
	const credential = context.getNode().credentials?.[CREDENTIAL_TYPE];
	return `${triggerKey}\n${credential?.id ?? credential?.name ?? ''}`;
}

function read(context: TriggerContext, triggerKey: string): AccountRead {
	const fresh: AccountRead = { fingerprint: accountFingerprint(context, accountSalt(triggerKey)), readAt: Date.now(), pending: true };
	const settled = () => {
		fresh.pending = false;
	};
	fresh.fingerprint.then(settled, settled);
	accountReads.set(readKey(context, triggerKey), fresh);
	return fresh;
}

/** The fingerprint of the account the node's credential reaches, read now: an activation decides what to register by it. */
export async function freshAccount(this: IHookFunctions, triggerKey: string): Promise<string> {
	return await read(this, triggerKey).fingerprint;
}

/** The same from a read at most a few seconds old, or undefined when the credential cannot be read (deleted, not decryptable). */
export async function recentAccount(this: IWebhookFunctions, triggerKey: string): Promise<string | undefined> {
	const earlier = accountReads.get(readKey(this, triggerKey));
	const latest = earlier !== undefined && (earlier.pending || Date.now() - earlier.readAt < ACCOUNT_READ_LIFETIME_MS) ? earlier : read(this, triggerKey);
	return await latest.fingerprint.catch(() => undefined);
}

/** As recentAccount, or undefined when the read takes longer than `waitMs` (a database that hangs); the read goes on. */
export async function accountWithin(this: IWebhookFunctions, triggerKey: string, waitMs: number): Promise<string | undefined> {
	return await Promise.race([recentAccount.call(this, triggerKey), sleep(waitMs).then(() => undefined)]);
}
