/**
 * The service's seven endpoints, as pure functions of the state and the request. Every failure
 * answer carries its reason in an `x-simulator-error` header (the spec's envelopes say only
 * "error"), which helps whoever debugs a failing test.
 */
import { randomUUID } from 'node:crypto';
import {
	EVENT_TYPES,
	INTEGRATION_TYPES,
	checkModuleBody,
	isUuid,
	validateCampaignUpdate,
	validateContactInputs,
	validateModuleSettings,
} from './validation.ts';
import type { Campaign, Contact, Credential, IncomingRequest, SimulatorState } from './types.ts';

export interface ApiAnswer {
	status: number;
	body: unknown;
	/** why the request failed, for the x-simulator-error header */
	reason?: string;
}

type Handler = (state: SimulatorState, request: IncomingRequest, pathParameter: string) => ApiAnswer;

interface Route {
	method: string;
	pattern: RegExp;
	handler: Handler;
}

const ROUTES: Route[] = [
	{ method: 'POST', pattern: /^\/compaign\/v1\/contacts\/addToCampaign\/([^/]+)$/, handler: addContacts },
	{ method: 'GET', pattern: /^\/contacts\/([^/]+)$/, handler: getContact },
	{ method: 'GET', pattern: /^\/v1\/campaigns\/by-id\/([^/]+)$/, handler: getCampaign },
	{ method: 'POST', pattern: /^\/v1\/campaigns\/update\/([^/]+)$/, handler: updateCampaign },
	{ method: 'POST', pattern: /^\/v1\/modules\/integration$/, handler: createIntegration },
	{ method: 'GET', pattern: /^\/v1\/webhooks$/, handler: getWebhooks },
	{ method: 'POST', pattern: /^\/v1\/modules\/webhook$/, handler: createWebhookModule },
];

/** `bodyIsMalformed` is true when a body was sent that is not JSON. */
export function answerApiRequest(state: SimulatorState, request: IncomingRequest, bodyIsMalformed: boolean): ApiAnswer {
	for (const route of ROUTES) {
		const match = route.pattern.exec(request.path);
		if (match === null || route.method !== request.method) continue;
		if (bodyIsMalformed) {
			return { status: 400, body: { status: 'error', message: 'malformed JSON body' }, reason: 'malformed JSON body' };
		}
		return route.handler(state, request, decodePathParameter(match[1] ?? ''));
	}
	const reason = `no route for ${request.method} ${request.path}`;
	return { status: 404, body: { status: 'error', message: 'not found' }, reason };
}

function decodePathParameter(raw: string): string {
	try {
		return decodeURIComponent(raw);
	} catch {
		return raw;
	}
}

function authenticate(state: SimulatorState, request: IncomingRequest): Credential | undefined {
	const header = request.headers.authorization;
	if (typeof header !== 'string') return undefined;
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
	return match === null ? undefined : state.credentials.get(match[1]);
}

const success = (data: unknown): ApiAnswer => ({ status: 200, body: { status: 'ok', message: 'ok', data } });

/** The 200 error envelope; Add Contacts and Get Contact put an empty string in data. */
const envelopeError = (reason: string, data: unknown = ''): ApiAnswer => ({
	status: 200,
	body: { status: 'error', message: 'error', data },
	reason,
});

// Add Contacts' success data is "not shown": the simulator answers with the stored contact
// records, one per contact sent, in the order sent.
function addContacts(state: SimulatorState, request: IncomingRequest, campaignId: string): ApiAnswer {
	const credential = authenticate(state, request);
	if (credential === undefined) return envelopeError('missing or unknown bearer token');
	if (credential.kind !== 'api-key') return envelopeError('Add Contacts requires a user API key');
	if (!isUuid(campaignId)) return envelopeError('invalid campaign id');
	const campaign = state.campaigns.get(campaignId);
	if (campaign === undefined) return envelopeError('campaign not found');
	if (campaign.companyId !== credential.companyId) return envelopeError('unauthorized: campaign of another company');
	const inputs = validateContactInputs(request.body);
	if (!inputs.ok) return envelopeError(inputs.reason);

	const now = new Date().toISOString();
	const added: Contact[] = inputs.value.map((input) => ({
		id: randomUUID(),
		company_id: credential.companyId,
		firstname: input.firstname,
		lastname: input.lastname,
		phone_number: input.phone_number,
		metadata: input.metadata,
		number_country_code: input.number_country_code,
		last_call_status: null,
		last_call_at: null,
		last_call_duration: null,
		last_call_feedback: null,
		// Defaults for contacts added through the API ("not shown"): source 'api', no tag or category.
		source_name: 'api',
		tag_name: '',
		category_name: '',
		notes: null,
		created_at: now,
		updated_at: now,
		campaign_id: campaignId,
		status: 'active',
		workspace_id: campaign.record.workspace,
	}));
	for (const contact of added) state.contacts.set(contact.id, contact);
	return success(added);
}

function getContact(state: SimulatorState, request: IncomingRequest, contactId: string): ApiAnswer {
	const credential = authenticate(state, request);
	if (credential === undefined) return envelopeError('missing or unknown bearer token');
	if (!isUuid(contactId)) return envelopeError('invalid contact id');
	const contact = state.contacts.get(contactId);
	if (contact === undefined) return envelopeError('contact not found');
	if (contact.company_id !== credential.companyId) return envelopeError('unauthorized: contact of another company');
	return success(contact);
}

// Get Campaign's error strings ("not shown" beyond "an error string"): 'unauthorized',
// 'invalid campaign id', 'campaign not found'. Update Campaign answers the same way, plus
// 'body must be a JSON object', 'unknown field: <name>', 'invalid field <name>: expected …'.
function findOwnCampaign(
	state: SimulatorState,
	request: IncomingRequest,
	campaignId: string,
): { error: ApiAnswer } | { error?: undefined; campaign: Campaign } {
	const credential = authenticate(state, request);
	if (credential === undefined) return { error: envelopeError('missing or unknown bearer token', 'unauthorized') };
	if (!isUuid(campaignId)) return { error: envelopeError('invalid campaign id', 'invalid campaign id') };
	const campaign = state.campaigns.get(campaignId);
	if (campaign === undefined) return { error: envelopeError('campaign not found', 'campaign not found') };
	if (campaign.companyId !== credential.companyId) {
		return { error: envelopeError('campaign of another company', 'unauthorized') };
	}
	return { campaign: campaign.record };
}

function getCampaign(state: SimulatorState, request: IncomingRequest, campaignId: string): ApiAnswer {
	const found = findOwnCampaign(state, request, campaignId);
	if (found.error !== undefined) return found.error;
	return success(found.campaign);
}

// Update Campaign's answer is "not shown": the simulator answers the envelope with the updated campaign.
function updateCampaign(state: SimulatorState, request: IncomingRequest, campaignId: string): ApiAnswer {
	const found = findOwnCampaign(state, request, campaignId);
	if (found.error !== undefined) return found.error;
	const update = validateCampaignUpdate(request.body);
	if (!update.ok) return envelopeError(update.reason, update.reason);
	Object.assign(found.campaign, update.value, { updated_at: new Date().toISOString() });
	return success(found.campaign);
}

// How inbound flows are selected is "not shown": the simulator takes ?flowDirection=inbound
// (default outbound). Deleted flows (deleted_at set) are not listed.
function getWebhooks(state: SimulatorState, request: IncomingRequest): ApiAnswer {
	const credential = authenticate(state, request);
	if (credential === undefined) return envelopeError('missing or unknown bearer token', 'unauthorized');
	const workspaceId = request.query.workspaceId || 'default';
	const direction = request.query.flowDirection || 'outbound';
	if (direction !== 'outbound' && direction !== 'inbound') {
		return envelopeError('flowDirection must be inbound or outbound', 'invalid flowDirection');
	}
	const flows = [...state.webhookFlows.values()].filter(
		(flow) =>
			flow.company_id === credential.companyId &&
			flow.workspace_id === workspaceId &&
			flow.flow_direction === direction &&
			flow.deleted_at === null,
	);
	return success(flows);
}

// The module endpoints' error answers are "not shown": a bad token is HTTP 401
// { status: 'error', message: 'unauthorized' }, an invalid body HTTP 400 { status: 'error', message }.
const unauthorized = (): ApiAnswer => ({
	status: 401,
	body: { status: 'error', message: 'unauthorized' },
	reason: 'missing or unknown bearer token',
});
const badRequest = (message: string): ApiAnswer => ({ status: 400, body: { status: 'error', message }, reason: message });

function createIntegration(state: SimulatorState, request: IncomingRequest): ApiAnswer {
	const credential = authenticate(state, request);
	if (credential === undefined) return unauthorized();
	const body = checkModuleBody(request.body, 'type', INTEGRATION_TYPES);
	if (!body.ok) return badRequest(body.reason);
	const settings = validateModuleSettings(body.value.settingsInput, 'webhook_method');
	if (!settings.ok) return badRequest(settings.reason);
	const { method, url, headers, timeout, retry_limit: retryLimit } = settings.value;
	const record = {
		id: randomUUID(),
		type: body.value.kind,
		status: 'active' as const,
		settings: { webhook_method: method, url, headers, timeout, retry_limit: retryLimit },
	};
	state.integrationModules.set(record.id, { companyId: credential.companyId, record });
	return { status: 200, body: record };
}

function createWebhookModule(state: SimulatorState, request: IncomingRequest): ApiAnswer {
	const credential = authenticate(state, request);
	if (credential === undefined) return unauthorized();
	const body = checkModuleBody(request.body, 'event_type', EVENT_TYPES);
	if (!body.ok) return badRequest(body.reason);
	const settings = validateModuleSettings(body.value.settingsInput, 'method');
	if (!settings.ok) return badRequest(settings.reason);
	const record = { id: randomUUID(), event_type: body.value.kind, status: 'active' as const, settings: settings.value };
	state.webhookModules.set(record.id, { companyId: credential.companyId, record });
	return { status: 200, body: record };
}
