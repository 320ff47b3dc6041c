import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialBaseUrl } from '../shared/transport';
import { parseHttpUrl } from '../shared/validation';

const WEBHOOK_URL_DOCS = 'https://docs.n8n.io/hosting/configuration/configuration-examples/webhook-url/';

/** Names that stand for this machine's loopback interface by standard (RFC 6761) or by every distribution's hosts file. */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/**
 * Whether a URL's host (as the WHATWG URL parser gives it: IPv4 in dotted decimal whatever form was
 * typed, so 127.1 and 0x7f.0.0.1 arrive as 127.0.0.1; IPv6 compressed, in brackets) is this machine
 * itself to whoever connects to it: loopback (127.0.0.0/8, ::1, localhost and *.localhost), the
 * unspecified address (0.0.0.0/8, ::, which Linux connects to loopback), or either as IPv4-mapped IPv6.
 * Literal addresses and names only: a name is never looked up.
 */
function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) return true;
	const ipv4 = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(host);
	if (ipv4) return ipv4[1] === '127' || ipv4[1] === '0';
	if (host === '[::1]' || host === '[::]') return true;
	// IPv4-mapped: the parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1 and ::ffff:0.0.0.0 as ::ffff:0:0.
	const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(host);
	if (!mapped) return false;
	const firstOctet = Number.parseInt(mapped[1], 16) >> 8;
	return firstOctet === 127 || firstOctet === 0;
}

/**
 * What keeps the service from reaching n8n's webhook URL, checked before anything is registered at the
 * service: `refusal` when it provably cannot (a loopback host in the webhook URL while the credential's
 * Base URL is not on loopback too: n8n's default http://localhost:5678/ until its admin sets the
 * webhook URL, and a module registered with it could never be removed); `warning` when a plain http
 * webhook URL meets an https Base URL (the deliveries, this trigger's secret header with them, travel
 * unencrypted). Private addresses and local names (10/8, 172.16/12, 192.168/16, link-local, fc00::/7,
 * *.local, *.internal) pass: the service may share that network, and n8n cannot tell. Nothing is found
 * when either URL is no web address (the registration refuses a bad Base URL with its own message).
 */
export async function checkWebhookReach(this: IHookFunctions): Promise<{ refusal?: NodeOperationError; warning?: string }> {
	const webhookUrl = this.getNodeWebhookUrl('default');
	const webhook = webhookUrl === undefined ? undefined : parseHttpUrl(webhookUrl);
	const service = await credentialBaseUrl(this).then(parseHttpUrl, () => undefined);
	if (webhook === undefined || service === undefined) return {};
	if (isLoopbackHost(webhook.hostname) && !isLoopbackHost(service.hostname)) {
		const refusal = new NodeOperationError(
			this.getNode(),
			`The service cannot reach n8n's webhook URL ${webhookUrl}: ${webhook.hostname} is a loopback address, and the service (${service.host}, the credential's Base URL) runs on another machine, where that address is the service's own machine, not n8n. Set N8N_WEBHOOK_URL (WEBHOOK_URL on n8n 1.x) to the address at which the service reaches n8n, and restart n8n: ${WEBHOOK_URL_DOCS} . Nothing was registered at the service.`,
			{
				description: `n8n gives its own host in webhook URLs until its webhook URL is set, for example N8N_WEBHOOK_URL=https://n8n.example.com/ behind a reverse proxy. See ${WEBHOOK_URL_DOCS}`,
			},
		);
		return { refusal };
	}
	if (webhook.protocol === 'http:' && service.protocol === 'https:') {
		return {
			warning: `Campaign Calling Trigger: n8n's webhook URL ${webhookUrl} is plain http while the service is reached over https: its deliveries, with this trigger's secret header, travel unencrypted. Set N8N_WEBHOOK_URL (WEBHOOK_URL on n8n 1.x) to an https address: ${WEBHOOK_URL_DOCS}`,
		};
	}
	return {};
}
