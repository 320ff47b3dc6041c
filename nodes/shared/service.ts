import type { IDataObject } from 'n8n-workflow';

import type { DeliverySettings } from './moduleSettings';
import type { RequestTuning, ServiceContext } from './transport';
import { serviceRequest } from './transport';

/*
 * The service's endpoints, one function each (service spec, "Endpoints"): its path, method, body
 * and answer shape, the name errors give it and what they tell the user to check. Both nodes call
 * the service only through these.
 */

/**
 * Who asks: the input item a call serves, and, for a caller that is not the operation, its own name
 * and hint; and how hard to try (the action node's Request Options).
 */
export interface ServiceCall {
	itemIndex?: number;
	operation?: string;
	errorHint?: string;
	tuning?: RequestTuning;
}

/** The request's name, hint and item: the caller's where it gives them, else the endpoint's own. */
function asCalledBy(call: ServiceCall, operation: string, errorHint?: string) {
	return { operation: call.operation ?? operation, errorHint: call.errorHint ?? errorHint, itemIndex: call.itemIndex, tuning: call.tuning };
}

/** What a write whose outcome is unknown tells the caller to check before repeating it (the service lists no contacts or modules). */
const CHECK_ADDED_CONTACTS =
	'Check whether these contacts were added (Get Contact for contacts whose IDs you hold, or the campaign in the service\'s app) before sending them again: a repeat may call the same people twice.';
const CHECK_CAMPAIGN_UPDATE = 'Read the campaign with Get Campaign to see whether the change was applied before you repeat it.';
const CHECK_CREATED_MODULE =
	'Check in the service\'s app whether the module was created before you create it again: the service offers no way to list or delete modules, and a second one would act on every event twice.';

/** A contact in the service's own input shape (spec, "Contact input"). */
export interface ContactInput extends IDataObject {
	firstname: string;
	lastname: string;
	phone_number: string;
	metadata?: IDataObject;
}

/** Adds contacts to a campaign; resolves to the answer's `data`, which the spec does not show. */
export async function addContacts(
	this: ServiceContext,
	campaignId: string,
	contacts: ContactInput[],
	call: ServiceCall = {},
): Promise<unknown> {
	return await serviceRequest.call(this, {
		method: 'POST',
		path: `/compaign/v1/contacts/addToCampaign/${encodeURIComponent(campaignId)}`,
		body: contacts,
		answer: 'envelope',
		checkBeforeRepeating: CHECK_ADDED_CONTACTS,
		...asCalledBy(
			call,
			'Add to Campaign',
			'The service refuses a batch when the campaign ID is unknown or belongs to another company, when the key is not a user API key, or when a contact is malformed. Check the Campaign ID and the contacts of this batch.',
		),
	});
}

export async function getContact(this: ServiceContext, contactId: string, call: ServiceCall = {}): Promise<IDataObject> {
	return (await serviceRequest.call(this, {
		method: 'GET',
		path: `/contacts/${encodeURIComponent(contactId)}`,
		answer: { data: 'record', names: 'a contact record' },
		...asCalledBy(
			call,
			'Get Contact',
			'The service gives this answer when the contact does not exist or belongs to another company. Check the Contact ID.',
		),
	})) as IDataObject;
}

export async function getCampaign(this: ServiceContext, campaignId: string, call: ServiceCall = {}): Promise<IDataObject> {
	return (await serviceRequest.call(this, {
		method: 'GET',
		path: `/v1/campaigns/by-id/${encodeURIComponent(campaignId)}`,
		answer: { data: 'record', names: 'a campaign record' },
		...asCalledBy(
			call,
			'Get Campaign',
			'Check that the Campaign ID exists and belongs to the company of the credential\'s API key.',
		),
	})) as IDataObject;
}

/** Sends only the fields in `body`; the spec does not show the answer, so it resolves to the body as it came. */
export async function updateCampaign(
	this: ServiceContext,
	campaignId: string,
	body: IDataObject,
	call: ServiceCall = {},
): Promise<unknown> {
	return await serviceRequest.call(this, {
		method: 'POST',
		path: `/v1/campaigns/update/${encodeURIComponent(campaignId)}`,
		body,
		answer: 'passThrough',
		checkBeforeRepeating: CHECK_CAMPAIGN_UPDATE,
		...asCalledBy(
			call,
			'Update Campaign',
			'Check the Campaign ID and the values of the fields you update.',
		),
	});
}

/**
 * The webhook flows of a workspace; without one, the service's default listing. An answer without
 * data is no flows; data that is not a list of objects fails, rather than hide a changed answer.
 */
export async function listWebhookFlows(
	this: ServiceContext,
	query: { workspaceId?: string },
	call: ServiceCall = {},
): Promise<IDataObject[]> {
	return (await serviceRequest.call(this, {
		method: 'GET',
		path: '/v1/webhooks',
		qs: query.workspaceId === undefined ? undefined : { workspaceId: query.workspaceId },
		answer: { data: 'list', names: 'a list of webhook flows' },
		...asCalledBy(call, 'Get Many Webhook Flows', 'Check the Workspace ID and the API key.'),
	})) as IDataObject[];
}

/** Registers an integration module (spec, endpoint 5); resolves to the module's record. */
export async function createIntegrationModule(
	this: ServiceContext,
	type: string,
	settings: DeliverySettings,
	call: ServiceCall = {},
): Promise<IDataObject> {
	const body: IDataObject = { type, settings: settingsBody(settings, 'webhook_method') };
	return (await serviceRequest.call(this, {
		method: 'POST',
		path: '/v1/modules/integration',
		body,
		answer: 'record',
		checkBeforeRepeating: CHECK_CREATED_MODULE,
		...asCalledBy(call, 'Create Integration'),
	})) as IDataObject;
}

/** Registers a webhook module (spec, endpoint 7) for one event type; resolves to the module's record. */
export async function createWebhookModule(
	this: ServiceContext,
	eventType: string,
	settings: DeliverySettings,
	call: ServiceCall = {},
): Promise<IDataObject> {
	const body: IDataObject = { event_type: eventType, settings: settingsBody(settings, 'method') };
	return (await serviceRequest.call(this, {
		method: 'POST',
		path: '/v1/modules/webhook',
		body,
		answer: 'record',
		checkBeforeRepeating: CHECK_CREATED_MODULE,
		...asCalledBy(call, 'Create Webhook Module'),
	})) as IDataObject;
}

/** A module's settings in the service's names; the two module kinds name the method field differently (spec, endpoints 5 and 7). */
function settingsBody(settings: DeliverySettings, methodField: 'webhook_method' | 'method'): IDataObject {
	return {
		[methodField]: settings.method,
		url: settings.url,
		headers: settings.headers,
		timeout: settings.timeout,
		retry_limit: settings.retryLimit,
	};
}
