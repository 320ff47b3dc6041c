/**
 * Injected faults: each one matches requests by method and path substring, answers `times` of them
 * in its broken way, then is spent. The first pending fault that matches a request is the one used.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultKind, FaultSpec } from './types.ts';

export const FAULT_KINDS: readonly FaultKind[] = [
	'http-500',
	'http-502',
	'http-503',
	'http-429',
	'http-401',
	'http-403',
	'slow',
	'reset',
	'malformed-json',
	'html',
	'empty',
	'error-envelope',
	'not-envelope',
	'null-data',
	'list-data',
	'redirect',
];

const DEFAULT_SLOW_DELAY_MS = 2000;

/** Throws on a spec that is not a FaultSpec, so a driver learns of its typo at once. */
export function checkFaultSpec(input: unknown): FaultSpec {
	if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('a fault must be an object');
	const fault = input as Record<string, unknown>;
	if (!FAULT_KINDS.includes(fault.kind as FaultKind)) {
		throw new Error(`fault kind must be one of ${FAULT_KINDS.join(', ')}`);
	}
	for (const field of ['method', 'path', 'location'] as const) {
		if (fault[field] !== undefined && typeof fault[field] !== 'string') throw new Error(`fault ${field} must be a string`);
	}
	for (const field of ['times', 'after', 'retryAfterSeconds', 'delayMs'] as const) {
		const value = fault[field];
		if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0)) {
			throw new Error(`fault ${field} must be a non-negative integer`);
		}
	}
	return { ...(fault as unknown as FaultSpec) };
}

interface PendingFault {
	spec: FaultSpec;
	remaining: number;
	/** matching requests still to let through before the fault starts */
	passing: number;
}

export class FaultQueue {
	private pending: PendingFault[] = [];

	add(spec: FaultSpec): void {
		const checked = checkFaultSpec(spec);
		this.pending.push({ spec: checked, remaining: checked.times ?? 1, passing: checked.after ?? 0 });
	}

	clear(): void {
		this.pending = [];
	}

	list(): Array<FaultSpec & { remaining: number }> {
		return this.pending.map(({ spec, remaining }) => ({ ...spec, remaining }));
	}

	/**
	 * The fault this request hits, if any; counts it against that fault's `times`. A fault still
	 * letting requests through (`after`) counts this one instead and answers it normally.
	 */
	take(method: string, path: string): FaultSpec | undefined {
		const index = this.pending.findIndex(
			({ spec, remaining }) =>
				remaining > 0 &&
				(spec.method === undefined || spec.method.toUpperCase() === method.toUpperCase()) &&
				(spec.path === undefined || path.includes(spec.path)),
		);
		if (index === -1) return undefined;
		const hit = this.pending[index];
		if (hit.passing > 0) {
			hit.passing -= 1;
			return undefined;
		}
		hit.remaining -= 1;
		if (hit.remaining === 0) this.pending.splice(index, 1);
		return hit.spec;
	}
}

export function slowDelayMs(fault: FaultSpec): number {
	return fault.delayMs ?? DEFAULT_SLOW_DELAY_MS;
}

const STATUS_FAULTS: Partial<Record<FaultKind, { status: number; message: string }>> = {
	'http-500': { status: 500, message: 'internal server error' },
	'http-502': { status: 502, message: 'bad gateway' },
	'http-503': { status: 503, message: 'service unavailable' },
	'http-429': { status: 429, message: 'too many requests' },
	'http-401': { status: 401, message: 'unauthorized' },
	'http-403': { status: 403, message: 'forbidden' },
};

const HTML_PAGE =
	'<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n' +
	'<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';

/** Answers (or, for 'reset', drops) a request in the fault's broken way. 'slow' is not handled here. */
export function answerWithFault(fault: FaultSpec, request: IncomingMessage, response: ServerResponse): void {
	const statusFault = STATUS_FAULTS[fault.kind];
	if (statusFault !== undefined) {
		const headers: Record<string, string> = {};
		if (fault.kind === 'http-429' && fault.retryAfterSeconds !== undefined) {
			headers['retry-after'] = String(fault.retryAfterSeconds);
		}
		writeBody(response, statusFault.status, 'application/json', JSON.stringify({ status: 'error', message: statusFault.message }), headers);
		return;
	}
	switch (fault.kind) {
		case 'reset':
			request.socket.destroy();
			return;
		case 'malformed-json':
			writeBody(response, 200, 'application/json', '{"status":"ok","message":"ok","data":{"id":"');
			return;
		case 'html':
			writeBody(response, 502, 'text/html; charset=utf-8', HTML_PAGE);
			return;
		case 'empty':
			writeBody(response, 200, 'application/json', '');
			return;
		case 'error-envelope':
			writeBody(response, 200, 'application/json', JSON.stringify({ status: 'error', message: 'error', data: '' }));
			return;
		case 'not-envelope':
			writeBody(response, 200, 'application/json', JSON.stringify({ unexpected: true }));
			return;
		case 'null-data':
			writeBody(response, 200, 'application/json', JSON.stringify({ status: 'ok', message: 'ok', data: null }));
			return;
		case 'list-data':
			writeBody(response, 200, 'application/json', JSON.stringify({ status: 'ok', message: 'ok', data: [{ id: 'first' }, { id: 'second' }] }));
			return;
		case 'redirect':
			writeBody(response, 302, 'text/plain', '', { location: fault.location ?? '/' });
			return;
		default:
			throw new Error(`fault ${fault.kind} has no canned answer`);
	}
}

function writeBody(
	response: ServerResponse,
	status: number,
	contentType: string,
	body: string,
	extraHeaders: Record<string, string> = {},
): void {
	response.writeHead(status, {
		'content-type': contentType,
		'content-length': Buffer.byteLength(body),
		...extraHeaders,
	});
	response.end(body);
}
