/**
 * Answers n8n's DNS lookups (node:dns `lookup`, which its HTTP stack calls) with 127.0.0.1 and records
 * the names looked up: a Base URL such as http://campaign-calling.test:<port> is then, for the node,
 * a service on another machine, while any request it sends reaches the simulator here.
 */
import * as dns from 'node:dns';

export const REMOTE_SERVICE_NAME = 'campaign-calling.test';

export interface LoopbackLookups {
	/** The names looked up since the last `clear()`. */
	readonly names: string[];
	clear(): void;
	restore(): void;
}

export function answerLookupsWithLoopback(): LoopbackLookups {
	const realLookup = dns.lookup;
	const names: string[] = [];
	(dns as { lookup: unknown }).lookup = (hostname: string, options: unknown, callback?: (...args: unknown[]) => void) => {
		const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
		const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
		names.push(hostname);
		process.nextTick(() => (all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));
	};
	return {
		names,
		clear: () => names.splice(0),
		restore: () => {
			(dns as { lookup: unknown }).lookup = realLookup;
		},
	};
}
