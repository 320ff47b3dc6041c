/**
 * Event delivery: what the service's webhook modules do, sending each event to the url of every
 * active module registered for its event_type, as the module's settings say.
 *
 * Not shown by the spec, the simulator's choices:
 * - the body is JSON `{ event_type, event_id, occurred_at, company_id, data }`; the caller's payload
 *   is merged over it (its `data`, when an object, is merged over the default data);
 * - settings.timeout is in seconds, per attempt;
 * - a failed attempt (network error, timeout, non-2xx answer) is retried up to retry_limit more
 *   times, after 200 ms, 400 ms, 600 ms …; every attempt carries the same event_id;
 * - a GET delivery carries no body; no signature is added, only the module's own headers.
 * To keep the simulator off the network it delivers only to loopback hosts, and to the hosts its
 * starter names (`deliveryHosts`: a test host in a network namespace).
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO } from './data.ts';
import { EVENT_TYPES, isPlainObject } from './validation.ts';
import type {
	Contact,
	DeliveryResult,
	JsonObject,
	Owned,
	PlayCallOptions,
	PlayCallResult,
	SimulatorState,
	WebhookModuleRecord,
} from './types.ts';

const RETRY_BACKOFF_MS = 200;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isEventType(value: unknown): value is string {
	return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Sends one event to every active webhook module of that type; `onlyCompanyId` narrows it to one
 * company's modules (a simulated call must not reach another company).
 */
export async function deliverEvent(
	state: SimulatorState,
	eventType: string,
	payload: JsonObject,
	signal: AbortSignal,
	onlyCompanyId?: string,
	deliveryHosts: ReadonlySet<string> = new Set(),
): Promise<DeliveryResult[]> {
	if (!isEventType(eventType)) throw new Error(`unknown event type: ${eventType}`);
	const targets = [...state.webhookModules.values()].filter(
		({ companyId, record }) =>
			record.event_type === eventType &&
			record.status === 'active' &&
			(onlyCompanyId === undefined || companyId === onlyCompanyId),
	);
	return Promise.all(
		targets.map((module) => deliverToModule(module, eventBody(state, eventType, module.companyId, payload), signal, deliveryHosts)),
	);
}

function eventBody(state: SimulatorState, eventType: string, companyId: string, payload: JsonObject): JsonObject {
	const defaults = {
		event_type: eventType,
		event_id: randomUUID(),
		occurred_at: new Date().toISOString(),
		company_id: companyId,
		data: defaultEventData(state, eventType, companyId),
	};
	const data = isPlainObject(payload.data) ? { ...defaults.data, ...payload.data } : (payload.data ?? defaults.data);
	return { ...defaults, ...payload, data };
}

/** Plausible data about the company's first campaign and that campaign's first contact. */
function defaultEventData(state: SimulatorState, eventType: string, companyId: string): JsonObject {
	const campaign = [...state.campaigns.values()].find((owned) => owned.companyId === companyId)?.record;
	const contact = [...state.contacts.values()].find(
		(candidate) => candidate.company_id === companyId && candidate.campaign_id === (campaign?.id ?? null),
	);
	const now = new Date().toISOString();
	const call = {
		call_id: randomUUID(),
		contact_id: contact?.id ?? null,
		campaign_id: campaign?.id ?? null,
		phone_number: contact?.phone_number ?? null,
		direction: 'outbound',
	};
	const campaignData = { campaign_id: campaign?.id ?? null, campaign_name: campaign?.name ?? null };
	switch (eventType) {
		case 'call.started':
			return { ...call, status: 'in-progress', started_at: now };
		case 'call.ended':
			return { ...call, status: 'completed', ended_at: now, duration: 47, feedback: 'Interested; asked for a call back.' };
		case 'call.failed':
			return { ...call, status: 'no-answer', error_message: 'The contact did not answer.' };
		case 'call.voicemail_detected':
			return { ...call, detected_at: now };
		case 'conversation.transcript':
			return {
				...call,
				transcript: [
					{ speaker: 'agent', text: 'Hello, this is Sunrise Realty calling about your open house visit.' },
					{ speaker: 'contact', text: 'Yes, I would like to book a viewing.' },
				],
			};
		case 'conversation.intent_detected':
			return { ...call, intent: 'book_viewing', confidence: 0.92 };
		case 'conversation.entity_captured':
			return { ...call, entity: 'preferred_day', value: 'Tuesday' };
		case 'campaign.started':
			return { ...campaignData, status: 'active', started_at: now };
		case 'campaign.paused':
			return { ...campaignData, status: 'paused', paused_at: now };
		case 'campaign.completed':
			return { ...campaignData, status: 'completed', call_progress: 100, completed_at: now };
		default:
			return { ...campaignData, quota: 1000, calls_made: 1000 };
	}
}

async function deliverToModule(
	module: Owned<WebhookModuleRecord>,
	body: JsonObject,
	signal: AbortSignal,
	deliveryHosts: ReadonlySet<string>,
): Promise<DeliveryResult> {
	const { id: moduleId, settings } = module.record;
	const result: DeliveryResult = { moduleId, url: settings.url, attempts: 0, ok: false };
	const target = new URL(settings.url);
	if (!LOOPBACK_HOSTS.has(target.hostname) && !target.hostname.startsWith('127.') && !deliveryHosts.has(target.hostname)) {
		result.error = 'not delivered: the simulator only delivers to loopback hosts and the hosts it was started with';
		return result;
	}
	const bodyText = settings.method === 'GET' ? undefined : JSON.stringify(body);
	for (let attempt = 1; attempt <= 1 + settings.retry_limit && !signal.aborted; attempt++) {
		if (attempt > 1) {
			try {
				await sleep(RETRY_BACKOFF_MS * (attempt - 1), undefined, { signal });
			} catch {
				break;
			}
		}
		result.attempts = attempt;
		try {
			const status = await sendOnce(target, settings.method, settings.headers, bodyText, settings.timeout * 1000, signal);
			result.status = status;
			result.ok = status >= 200 && status < 300;
			result.error = result.ok ? undefined : `HTTP ${status}`;
		} catch (error) {
			delete result.status;
			result.error = (error as Error).message;
		}
		if (result.ok) break;
	}
	if (result.error === undefined) delete result.error;
	return result;
}

function sendOnce(
	target: URL,
	method: string,
	headers: Record<string, string>,
	body: string | undefined,
	timeoutMs: number,
	signal: AbortSignal,
): Promise<number> {
	return new Promise((resolve, reject) => {
		const requestHeaders: Record<string, string | number> = { ...headers };
		if (body !== undefined) {
			if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
				requestHeaders['content-type'] = 'application/json';
			}
			requestHeaders['content-length'] = Buffer.byteLength(body);
		}
		const transport = target.protocol === 'https:' ? https : http;
		// agent: false, so no kept-alive socket outlives the delivery.
		const request = transport.request(target, { method, headers: requestHeaders, agent: false, signal }, (response) => {
			response.resume();
			response.on('end', () => resolve(response.statusCode ?? 0));
			response.on('error', reject);
		});
		const timer = setTimeout(() => request.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
		request.on('close', () => clearTimeout(timer));
		request.on('error', reject);
		request.end(body);
	});
}

/**
 * Simulates one call: the contact is marked in progress, call.started is delivered, then the contact
 * gets a completed call (now, a duration, feedback) and call.ended is delivered. The contact is the
 * one named, else the first never-called contact of the campaign named (else its first contact),
 * else the demo's never-called contact. Only the contact's company's modules are notified.
 */
export async function playCall(
	state: SimulatorState,
	options: PlayCallOptions,
	signal: AbortSignal,
	deliveryHosts: ReadonlySet<string> = new Set(),
): Promise<PlayCallResult> {
	const contact = pickContact(state, options);
	const callId = randomUUID();
	const startedAt = new Date();
	const callData = {
		call_id: callId,
		contact_id: contact.id,
		campaign_id: contact.campaign_id ?? options.campaignId ?? null,
		phone_number: contact.phone_number,
		direction: 'outbound',
	};

	contact.last_call_status = 'in-progress';
	contact.last_call_at = startedAt.toISOString();
	contact.updated_at = startedAt.toISOString();
	const started = await deliverEvent(
		state,
		'call.started',
		{ data: { ...callData, status: 'in-progress', started_at: startedAt.toISOString() } },
		signal,
		contact.company_id,
		deliveryHosts,
	);

	const duration = 42 + Math.floor(Math.random() * 120);
	const feedback = `${contact.firstname} is interested and asked for a follow-up call next week.`;
	const endedAt = new Date(startedAt.getTime() + duration * 1000).toISOString();
	contact.last_call_status = 'completed';
	contact.last_call_duration = duration;
	contact.last_call_feedback = feedback;
	contact.updated_at = new Date().toISOString();
	const ended = await deliverEvent(
		state,
		'call.ended',
		{ data: { ...callData, status: 'completed', ended_at: endedAt, duration, feedback } },
		signal,
		contact.company_id,
		deliveryHosts,
	);
	return { contact, started, ended };
}

function pickContact(state: SimulatorState, { contactId, campaignId }: PlayCallOptions): Contact {
	if (contactId !== undefined) {
		const contact = state.contacts.get(contactId);
		if (contact === undefined) throw new Error(`no contact ${contactId}`);
		return contact;
	}
	if (campaignId !== undefined) {
		const inCampaign = [...state.contacts.values()].filter((contact) => contact.campaign_id === campaignId);
		const contact = inCampaign.find((candidate) => candidate.last_call_status === null) ?? inCampaign[0];
		if (contact === undefined) throw new Error(`campaign ${campaignId} has no contacts`);
		return contact;
	}
	const demoContact = state.contacts.get(DEMO.neverCalledContactId);
	if (demoContact === undefined) throw new Error('the demo contact is gone');
	return demoContact;
}
