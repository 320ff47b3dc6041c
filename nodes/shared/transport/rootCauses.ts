import type { NetworkFailureFacts } from './retry';

/** Where a request that got no answer was going, and what a user must know of it. */
export interface RequestTarget {
	baseUrl: string;
	/** Not a GET: it may have been carried out without an answer saying so. */
	isWrite: boolean;
	timeoutMs: number;
	/** For a write: how to find out whether it was carried out. */
	checkBeforeRepeating: string;
}

/** What the error message says went wrong (`reason`), and what to do about it (`hint`). */
export interface Cause {
	reason: string;
	hint: string;
}

const MAY_HAVE_BEEN_CARRIED_OUT = 'the service may have carried it out';

const NOTHING_SENT = 'Nothing was sent to the service.';

/** TLS error codes (Node's and OpenSSL's) in words. */
const TLS_REASONS: Record<string, string> = {
	CERT_HAS_EXPIRED: 'its certificate has expired',
	CERT_NOT_YET_VALID: 'its certificate is not valid yet',
	DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed, not issued by an authority n8n trusts',
	SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate n8n does not trust',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate was issued by an authority n8n does not know',
	UNABLE_TO_GET_ISSUER_CERT: 'its certificate was issued by an authority n8n does not know',
	UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate was issued by an authority n8n does not know',
	CERT_REVOKED: 'its certificate has been revoked',
	ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
	EPROTO: 'it did not answer in TLS (is the port an http:// one?)',
	ERR_SSL_WRONG_VERSION_NUMBER: 'it did not answer in TLS (is the port an http:// one?)',
};

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** The cause of a request that got no answer, told from the facts its error chain gives. */
export function noAnswerCause(facts: NetworkFailureFacts, target: RequestTarget): Cause {
	const origin = originOf(target.baseUrl);
	const code = facts.code ?? '';
	const maybeDone = target.isWrite;
	if (facts.ssrfBlocked) {
		const { ip, hostname } = facts.ssrfBlocked;
		const what = ip
			? `it resolves to ${ip}, an address in n8n's blocked ranges`
			: `the host name ${hostname ?? hostOf(target.baseUrl)} is on n8n's list of blocked host names`;
		return {
			reason: `n8n's SSRF protection blocked the request to ${origin} (${what})`,
			hint: `${NOTHING_SENT} ${ssrfAllowance(hostOf(target.baseUrl))} Otherwise use the service's public address as the Base URL.`,
		};
	}
	if (facts.notSent) return notSentCause(facts.notSent, code);
	if (TLS_REASONS[code] || /CERT|SSL|TLS/.test(code)) {
		return {
			reason: `the TLS connection to ${origin} failed: ${TLS_REASONS[code] ?? 'n8n did not accept its certificate'} (${code})`,
			hint:
				`${NOTHING_SENT} Check the Base URL's host name and scheme. The service's certificate must be valid and trusted; ` +
				'if your provider uses a private certificate authority, give n8n its certificate with NODE_EXTRA_CA_CERTS.',
		};
	}
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		const hostname = facts.hostname ?? hostOf(target.baseUrl);
		const temporary = code === 'EAI_AGAIN';
		const reason = temporary
			? `the host name ${hostname} could not be looked up just now: n8n's DNS server did not answer`
			: `the host name ${hostname} was not found: the DNS has no address for it`;
		const hint = isOtherThanBaseUrl(target.baseUrl, hostname, undefined)
			? `${NOTHING_SENT} That is not the Base URL's host but the proxy n8n is set to use: check n8n's HTTP_PROXY / HTTPS_PROXY setting (${code}).`
			: temporary
				? `${NOTHING_SENT} Check n8n's DNS settings and its network (${code}).`
				: `${NOTHING_SENT} Check the spelling of the Base URL's host name, and that n8n's DNS can resolve it (${code}).`;
		return { reason, hint };
	}
	if (code === 'ECONNREFUSED') {
		const where = facts.address && facts.port ? `${facts.address}:${facts.port}` : origin;
		if (isOtherThanBaseUrl(target.baseUrl, facts.address, facts.port)) {
			return {
				reason: `the proxy n8n is set to use, at ${where}, refused the connection`,
				hint: `${NOTHING_SENT} Check that the proxy runs and n8n's HTTP_PROXY / HTTPS_PROXY setting, or list the service's host in NO_PROXY to reach it directly.`,
			};
		}
		return {
			reason: `the connection to ${where} was refused: nothing listens there`,
			hint: `${NOTHING_SENT} Check the Base URL's host and port, and that the service is running.`,
		};
	}
	if (TIMEOUT_CODES.has(code)) {
		const seconds = Math.round(target.timeoutMs / 1000);
		return maybeDone
			? {
					reason: `no answer from ${origin} within ${seconds} seconds; ${MAY_HAVE_BEEN_CARRIED_OUT}`,
					hint: `${target.checkBeforeRepeating} If the service is slow, raise Request Options → Timeout.`,
				}
			: {
					reason: `no answer from ${origin} within ${seconds} seconds`,
					hint: 'If the service is slow, raise Request Options → Timeout; otherwise check that it is reachable from n8n.',
				};
	}
	if (DROPPED_CODES.has(code)) {
		return maybeDone
			? {
					reason: `the connection to ${origin} was dropped before an answer came; ${MAY_HAVE_BEEN_CARRIED_OUT}`,
					hint: target.checkBeforeRepeating,
				}
			: {
					reason: `the connection to ${origin} was dropped before an answer came`,
					hint: 'The service or something between n8n and it (a proxy, a load balancer) closed the connection. Try again later; reads are retried automatically.',
				};
	}
	// The code goes into the description: n8n replaces a message that holds a common code with its own text.
	const reported = truncate(code || facts.detail || 'no reason given', 200);
	return {
		reason: `the request to ${origin} failed without an answer${maybeDone ? `; ${MAY_HAVE_BEEN_CARRIED_OUT}` : ''}`,
		hint:
			`n8n's HTTP client reported: ${reported}. Check the Base URL in the Campaign Calling credential and that the service is reachable from n8n.` +
			(maybeDone ? ` ${target.checkBeforeRepeating}` : ''),
	};
}

/** A request n8n refused to build (Node's own checks of headers and URLs): what was wrong with it. */
function notSentCause(notSent: NonNullable<NetworkFailureFacts['notSent']>, code: string): Cause {
	const header = notSent.header?.toLowerCase();
	if (header === 'authorization') {
		return {
			reason: 'the API key in the Campaign Calling credential holds a character an HTTP header cannot carry, so n8n could not send the request',
			hint: `${NOTHING_SENT} Paste the API key into the credential again: a line break, a space or a letter from outside the key (often picked up when copying it) must not be part of it (${code}).`,
		};
	}
	if (header !== undefined) {
		return {
			reason: `the request's ${notSent.header} header holds a value HTTP does not allow, so n8n could not send the request`,
			hint: `${NOTHING_SENT} n8n's HTTP client reported: ${truncate(notSent.detail, 200)} (${code}).`,
		};
	}
	if (code === 'ERR_INVALID_URL') {
		return {
			reason: 'a web address n8n needs for the request is not valid, so n8n could not send it',
			hint: `${NOTHING_SENT} The Base URL was checked before the request; check n8n's proxy settings (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), which must be full addresses such as http://proxy.internal:3128 (${code}).`,
		};
	}
	return {
		reason: 'n8n could not build the request, so it could not send it',
		hint: `${NOTHING_SENT} n8n's HTTP client reported: ${truncate(notSent.detail, 200)}${code ? ` (${code})` : ''}.`,
	};
}

/** The setting an n8n administrator would change to let the Base URL's host through. */
function ssrfAllowance(hostname: string): string {
	const host = hostname.replace(/^\[|\]$/g, '');
	if (/^[\d.]+$/.test(host) || host.includes(':')) {
		const range = host.includes(':') ? `${host}/128` : `${host}/32`;
		return `An n8n administrator can allow this address with N8N_SSRF_ALLOWED_IP_RANGES (for example ${range}), or a host name for it with N8N_SSRF_ALLOWED_HOSTNAMES.`;
	}
	return `An n8n administrator can allow this host with N8N_SSRF_ALLOWED_HOSTNAMES (for example ${host}), or its addresses with N8N_SSRF_ALLOWED_IP_RANGES.`;
}

/**
 * Whether a failed connection or lookup was for another place than the Base URL: the proxy n8n
 * sends its requests through. Told by the port, and by the address when the Base URL gives one.
 */
function isOtherThanBaseUrl(baseUrl: string, hostOrAddress: string | undefined, port: number | undefined): boolean {
	let base: URL;
	try {
		base = new URL(baseUrl);
	} catch {
		return false;
	}
	const basePort = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
	if (port !== undefined && port !== basePort) return true;
	const baseHost = base.hostname.replace(/^\[|\]$/g, '');
	const baseIsAddress = /^[\d.]+$|:/.test(baseHost);
	if (hostOrAddress === undefined) return false;
	if (port === undefined) return hostOrAddress.toLowerCase() !== baseHost.toLowerCase();
	return baseIsAddress && hostOrAddress !== baseHost;
}

function hostOf(url: string): string {
	try {
		return new URL(url).hostname;
	} catch {
		return 'the service\'s host';
	}
}

/** The scheme, host and port of a URL: never its path, query or user information. */
export function originOf(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return 'the configured Base URL';
	}
}

export function truncate(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}
