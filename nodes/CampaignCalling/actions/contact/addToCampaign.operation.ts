import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InvalidInputError, serviceRequest } from '../../../shared/transport';
import type { BatchedOperation, RequestSettings } from '../types';
import type { CampaignContacts, ContactInput } from '../../../shared/validation';
import { campaignIdProperty } from '../campaign/fields';
import { readCampaignContacts } from './contactInput';

const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Batch Size',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1000 },
			default: 100,
			description:
				'How many contacts go in one request. Contacts of all input items bound for the same campaign are sent together. The service does not document a limit.',
		},
		{
			displayName: 'Requests in Parallel',
			name: 'parallelRequests',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 5 },
			default: 1,
			description:
				'How many batches may be on their way at once. The service does not document rate limits, so one at a time is the safe default.',
		},
		{
			displayName: 'Max Contacts per Run',
			name: 'maxContactsPerRun',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				'Stops the run before anything is sent when it would add more contacts than this (0: no limit). Each added contact may be called, so set it when an AI Agent uses this node as a tool.',
		},
	],
};

const properties: INodeProperties[] = [
	{
		displayName:
			'Each contact added may be called, and each call may be billed. While testing, set Options → Max Contacts per Run.',
		name: 'callsNotice',
		type: 'notice',
		default: '',
	},
	{ ...campaignIdProperty, description: 'The ID of the campaign that will call these contacts' },
	{
		displayName: 'Input Mode',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'fields',
		options: [
			{
				name: 'Map Each Field',
				value: 'fields',
				description: 'Each input item is one contact; map its name and phone number below',
			},
			{
				name: 'Auto-Map Input Fields',
				value: 'autoMap',
				description: 'Each input item is one contact, its fields read by name (listed below). Fastest for large lists.',
			},
			{
				name: 'JSON Array',
				value: 'json',
				description: 'Each input item carries a JSON array of contacts in the service\'s own shape',
			},
		],
	},
	{
		displayName:
			'Auto-Map reads these fields of each input item: firstname (or first_name, firstName), lastname (or last_name, lastName), phone_number (or phone, phoneNumber), and optionally metadata, a JSON object. Other fields are not sent; rename differently named fields with an Edit Fields node first.',
		name: 'autoMapNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { inputMode: ['autoMap'] } },
	},
	{
		displayName: 'First Name',
		name: 'firstName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Ada',
		description: 'The contact\'s first name',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	{
		displayName: 'Last Name',
		name: 'lastName',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Lovelace',
		description: 'The contact\'s last name',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	{
		displayName: 'Phone Number',
		name: 'phoneNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description: 'The number to call, with its country code. Spaces, dashes, dots and brackets are fine: the service stores the number in international form (+ and country code).',
		hint: 'Include the country code (+1, +44, ...): the number is sent as typed, and the service shows no default country',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: { inputMode: ['fields'] } },
		options: [
			{
				displayName: 'Metadata',
				name: 'metadata',
				type: 'json',
				default: '{}',
				description:
					'Free-form JSON object stored with the contact, e.g. {"email": "ada@example.com", "company_name": "Acme", "job_title": "CTO"}. The calling agent can use these values.',
			},
		],
	},
	{
		displayName: 'Contacts (JSON)',
		name: 'contactsJson',
		type: 'json',
		required: true,
		default: '[\n  {\n    "firstname": "Ada",\n    "lastname": "Lovelace",\n    "phone_number": "+14155550123",\n    "metadata": { "email": "ada@example.com" }\n  }\n]',
		description: 'A JSON array of contacts, each with firstname, lastname, phone_number and optionally a metadata object. An expression may return the array directly, for example one that reads the contacts field of the input item.',
		displayOptions: { show: { inputMode: ['json'] } },
	},
	optionsProperty,
];

export const addToCampaign: BatchedOperation<CampaignContacts> = {
	value: 'addToCampaign',
	title: 'Add to Campaign',
	name: 'Add to Campaign',
	description: 'Add contacts to a calling campaign, in batches',
	properties,
	createsOnEachSend: true,
	runOptions: optionsProperty,

	prepare: readCampaignContacts,

	async sendAll(items, request, { batchSize, parallelRequests, maxContactsPerRun }, results, failures) {
		// Asked only for prepared items: one that failed to prepare already has its own error item.
		const keptInput = (itemIndex: number) => keptInputOf(items[itemIndex] as CampaignContacts);
		const total = items.reduce((sum, item) => sum + (item?.contacts.length ?? 0), 0);
		if (maxContactsPerRun > 0 && total > maxContactsPerRun) {
			const refusal = new InvalidInputError(
				'Max Contacts per Run',
				`is ${maxContactsPerRun}, but this run would add ${total} contacts; nothing was sent`,
				'Raise Options → Max Contacts per Run, or send fewer contacts in one run (an AI Agent: fewer per tool call).',
			);
			failures.refuseRun(refusal, keptInput);
			return;
		}
		// Per item, one entry per contact: the service's answer and the batch it went in, filled in as the batches come back.
		const answers = items.map((): unknown[] => []);
		const batchOf = items.map((): number[] => []);
		await sendInParallel(packBatches(items, batchSize), parallelRequests, async (batch) => {
			try {
				const data = await sendBatch.call(this, batch, request);
				// The interface does not show `data`: one entry per contact is matched to them, else it is the whole batch's answer.
				const perContact = Array.isArray(data) && data.length === batch.members.length;
				batch.members.forEach(({ itemIndex, place }, index) => {
					answers[itemIndex][place] = perContact ? data[index] : data;
					batchOf[itemIndex][place] = batch.number;
				});
			} catch (error) {
				for (const itemIndex of new Set(batch.members.map((member) => member.itemIndex))) {
					if (!results[itemIndex]) failures.failItem(itemIndex, error, keptInput(itemIndex));
				}
			}
		});
		items.forEach((item, itemIndex) => {
			if (item && !results[itemIndex]) results[itemIndex] = [outputOf(item, answers[itemIndex], [...new Set(batchOf[itemIndex])])];
		});
	},
};

/** What an item's output and error items keep of it: its campaign, and its contact or contacts. */
function keptInputOf(item: CampaignContacts): IDataObject {
	return item.contacts.length === 1 ? { campaignId: item.campaignId, contact: item.contacts[0] } : { campaignId: item.campaignId, contacts: item.contacts };
}

/** Contacts bound for one campaign, sent in one request, each with the input item it came from and its place there. */
interface Batch {
	number: number;
	campaignId: string;
	members: Array<{ itemIndex: number; place: number; contact: ContactInput }>;
}

/** The items' contacts in batches per campaign, in input order: items bound for one campaign share batches even when other campaigns sit between them. */
function packBatches(items: Array<CampaignContacts | undefined>, batchSize: number): Batch[] {
	const batches: Batch[] = [];
	const openBatchOf = new Map<string, Batch>();
	items.forEach((item, itemIndex) => {
		item?.contacts.forEach((contact, place) => {
			let batch = openBatchOf.get(item.campaignId);
			if (!batch || batch.members.length >= batchSize) {
				batch = { number: batches.length, campaignId: item.campaignId, members: [] };
				batches.push(batch);
				openBatchOf.set(item.campaignId, batch);
			}
			batch.members.push({ itemIndex, place, contact });
		});
	});
	return batches;
}

/** Runs `send` over the batches, at most `parallel` at once; after a failure none starts, and the first failure is thrown once those in flight settled. */
async function sendInParallel(batches: Batch[], parallel: number, send: (batch: Batch) => Promise<void>): Promise<void> {
	let next = 0;
	let firstError: unknown;
	const worker = async () => {
		while (firstError === undefined && next < batches.length) {
			await send(batches[next++]).catch((error: unknown) => (firstError ??= error));
		}
	};
	await Promise.all(Array.from({ length: Math.min(parallel, batches.length) }, worker));
	if (firstError !== undefined) throw firstError;
}

async function sendBatch(this: IExecuteFunctions, { number, campaignId, members }: Batch, request: RequestSettings): Promise<unknown> {
	return await serviceRequest.call(this, {
		...request,
		itemIndex: members[0].itemIndex,
		sendOnceAs: `batch ${number}`,
		method: 'POST',
		path: `/compaign/v1/contacts/addToCampaign/${encodeURIComponent(campaignId)}`,
		body: members.map((member) => member.contact),
		answer: 'envelope',
		errorHint:
			'The service refuses a batch when the campaign ID is unknown or belongs to another company, when the key is not a user API key, or when a contact is malformed. Check the Campaign ID and the contacts of this batch.',
		// The service lists no contacts, so the user checks what they can.
		repeatHint:
			'Check whether these contacts were added (Get Contact for contacts whose IDs you hold, or the campaign in the service\'s app) before sending them again: a repeat may call the same people twice.',
	});
}

/** An item's output: its campaign and contacts, the service's answer for each, how many were added, and the batch or batches they went in. */
function outputOf(item: CampaignContacts, answers: unknown[], batchNumbers: number[]): IDataObject {
	const output = keptInputOf(item);
	if (item.contacts.length === 1) output.result = answers[0] as IDataObject;
	else output.results = answers as IDataObject[];
	output.added = item.contacts.length;
	output.batch = batchNumbers.length === 1 ? batchNumbers[0] : batchNumbers;
	return output;
}
