import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialBaseUrl, parseHttpUrl } from '../shared/transport';
import { triggerLogPrefix } from './parameters';

const WEBHOOK_URL_DOCS = 'https://docs.n8n.io/hosting/configuration/configuration-examples/webhook-url/';
/** docs/installation.md, "Behind a reverse proxy": the variable per n8n version, the proxy's headers and paths, Docker. */
const CHECKLIST = 'https://github.com/n8n-nodes-campaign-calling/n8n-nodes-campaign-calling/blob/main/docs/installation.md#behind-a-reverse-proxy';
/** n8n reads N8N_WEBHOOK_URL from 2.30.0 on (WEBHOOK_URL still, with a deprecation warning); before, WEBHOOK_URL only. The same address in both is right on every line. */
const VARIABLE = 'both N8N_WEBHOOK_URL (read by n8n 2.30 and later) and WEBHOOK_URL (read by n8n 1.x and 2.0 to 2.28)';
/** A changed environment reaches n8n only in a new process, and n8n 2.x registers a published trigger anew only when it is published again. */
const APPLY = 're-create n8n\'s container (docker restart keeps the old environment) or restart the n8n process with the new environment, and publish the workflow again (n8n 2.x: unpublish, then publish; 1.x: deactivate, then activate)';
const NOTHING_REGISTERED = 'Nothing was registered at the service.';
/** n8n's listen port unless N8N_PORT says otherwise; n8n writes it into the URLs it builds from N8N_HOST. */
const N8N_DEFAULT_PORT = '5678';

/** Names that stand for this machine's loopback interface by standard (RFC 6761) or by every distribution's hosts file. */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
/** Names that resolve only inside a local network. */
const LOCAL_SUFFIXES = ['.local', '.internal', '.lan', '.home.arpa'];

/** How far a literal host is seen from, as the WHATWG URL parser writes it (docs/trigger-reference.md, "The webhook URL check"). */
function reachOf(hostname: string): 'loopback' | 'private' | 'public' {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost') || host === '[::1]' || host === '[::]') return 'loopback';
	const ipv4 = ipv4Of(host);
	if (ipv4) {
		const [a, b] = ipv4;
		if (a === 127 || a === 0) return 'loopback';
		const isPrivate = a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
		return isPrivate ? 'private' : 'public';
	}
	if (host.startsWith('[')) return /^\[(f[cd][0-9a-f]{2}|fe[89ab][0-9a-f]):/.test(host) ? 'private' : 'public';
	return !host.includes('.') || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)) ? 'private' : 'public';
}

/** The four numbers of an IPv4 host, also written as IPv4-mapped IPv6 (the parser writes ::ffff:127.0.0.1 as [::ffff:7f00:1]). */
function ipv4Of(host: string): number[] | undefined {
	const dotted = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	if (dotted) return dotted.slice(1).map(Number);
	const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
	if (!mapped) return undefined;
	const [high, low] = [mapped[1], mapped[2]].map((group) => Number.parseInt(group, 16));
	return [high >> 8, high & 255, low >> 8, low & 255];
}

/**
 * Checked before anything is registered, since a module stays at the service for good: throws where no
 * delivery can arrive; the warning (one log line) where one may not.
 */
export async function checkWebhookReach(this: IHookFunctions): Promise<string | undefined> {
	const webhookUrl = this.getNodeWebhookUrl('default');
	if (webhookUrl === undefined) return undefined;
	const webhook = parseHttpUrl(webhookUrl);
	if (webhook === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The service cannot reach n8n's webhook URL ${webhookUrl}: it is not an http:// or https:// address, so no delivery could ever arrive (n8n's webhook URL setting lacks its scheme). Set ${VARIABLE} to the full address at which the service reaches n8n, for example https://n8n.example.com/, then ${APPLY}: ${CHECKLIST} . ${NOTHING_REGISTERED}`,
			{ description: `n8n puts the webhook URL setting, as it is, before /webhook/ in every webhook URL. See ${WEBHOOK_URL_DOCS}` },
		);
	}
	const service = await credentialBaseUrl(this).then(parseHttpUrl, () => undefined);
	if (service === undefined) return undefined;
	const [webhookReach, serviceReach] = [reachOf(webhook.hostname), reachOf(service.hostname)];
	if (webhookReach === 'loopback' && serviceReach !== 'loopback') {
		throw new NodeOperationError(
			this.getNode(),
			`The service cannot reach n8n's webhook URL ${webhookUrl}: ${webhook.hostname} is a loopback address, and the service (${service.host}, the credential's Base URL) runs on another machine, where that address is the service's own machine, not n8n. Set ${VARIABLE} to the address at which the service reaches n8n, then ${APPLY}: ${CHECKLIST} . ${NOTHING_REGISTERED}`,
			{ description: `n8n gives its own host in webhook URLs until its webhook URL is set, for example N8N_WEBHOOK_URL=https://n8n.example.com/ and WEBHOOK_URL=https://n8n.example.com/ (n8n before 2.30 reads only WEBHOOK_URL) behind a reverse proxy. See ${WEBHOOK_URL_DOCS}` },
		);
	}
	const findings: string[] = [];
	if (webhook.protocol === 'http:' && service.protocol === 'https:') {
		findings.push('is plain http while the service is reached over https: its deliveries, with this trigger\'s secret header, travel unencrypted');
	} else if (webhook.protocol === 'http:' && webhookReach === 'public') {
		findings.push('is plain http on a public host: the deliveries, with this trigger\'s secret header, cross the internet unencrypted');
	}
	if (webhookReach === 'public' && webhook.port === N8N_DEFAULT_PORT) {
		findings.push(`names port ${N8N_DEFAULT_PORT}, n8n's own listen port by default, on a public host: n8n builds such a URL from N8N_HOST and N8N_PORT, and a reverse proxy in front of n8n usually serves another (443)`);
	}
	if (webhookReach === 'private' && serviceReach === 'public') {
		findings.push(`is on a local network (${webhook.hostname}) while the service (${service.host}) is not: the service reaches it only if it shares that network`);
	}
	if (findings.length === 0) return undefined;
	return `${triggerLogPrefix.call(this)} n8n's webhook URL ${webhookUrl} ${findings.join('; it ')}. If that is not the https address at which the service reaches n8n, set ${VARIABLE} to it, then ${APPLY}: ${CHECKLIST} . Modules registered with this URL stay at the service.`;
}
