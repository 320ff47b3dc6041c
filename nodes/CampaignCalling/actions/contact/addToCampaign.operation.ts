import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import type { BatchedOperation } from '../types';
import { InvalidInputError, requireIntegerInRange, requireOneOf, requireUuid } from '../../../shared/validation';
import { campaignIdHint, campaignIdProperty } from '../campaign/fields';
import type { CampaignContacts, ContactInput } from './contactInput';
import { INPUT_MODES, readContacts, readMappedContact } from './contactInput';
import { readItemParameters } from './readItemParameters';

const DEFAULT_BATCH_SIZE = 100;
const MAX_BATCH_SIZE = 1000;
const MAX_PARALLEL_REQUESTS = 5;

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
	{
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
				typeOptions: { minValue: 1, maxValue: MAX_BATCH_SIZE },
				default: DEFAULT_BATCH_SIZE,
				description:
					'How many contacts go in one request. Contacts of all input items bound for the same campaign are sent together. The service does not document a limit.',
			},
			{
				displayName: 'Requests in Parallel',
				name: 'parallelRequests',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_PARALLEL_REQUESTS },
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
	},
];

/** Contacts bound for one campaign, sent in one request; `itemOf` and `placeInItem` say whose each one is. */
interface Batch { number: number; campaignId: string; contacts: ContactInput[]; itemOf: number[]; placeInItem: number[] }

export const operation: BatchedOperation<CampaignContacts> = {
	kind: 'batched',
	value: 'addToCampaign',
	title: 'Add to Campaign',
	name: 'Add to Campaign',
	description: 'Add contacts to a calling campaign, in batches',
	properties,
	createsOnEachSend: true,

	prepare(itemIndex) {
		// Read as the mapped fields are: this runs for every item of a large list.
		const mode = requireOneOf(readItemParameters(this, itemIndex, ['inputMode'], ['fields'])[0], 'Input Mode', INPUT_MODES);
		if (mode === 'fields') return readMappedContact(this, itemIndex);
		const [campaignId] = readItemParameters(this, itemIndex, ['campaignId']);
		return { campaignId: requireUuid(campaignId, 'Campaign ID', campaignIdHint), contacts: readContacts(this, itemIndex, mode) };
	},

	/** Groups the items' contacts per campaign, in input order, into batches; sends them; one output item per input item. */
	async sendAll(items, request, results, failures) {
		const keptInput = (itemIndex: number): IDataObject => {
			const item = items[itemIndex];
			if (!item) return {};
			return item.contacts.length === 1 ? { campaignId: item.campaignId, contact: item.contacts[0] } : { campaignId: item.campaignId, contacts: item.contacts };
		};
		let batchSize: number;
		let parallelRequests: number;
		try {
			const options = this.getNodeParameter('options', 0, {}) as IDataObject;
			const option = (name: string, label: string, min: number, max: number, fallback: number) =>
				options[name] === undefined ? fallback : requireIntegerInRange(options[name], label, min, max);
			batchSize = option('batchSize', 'Batch Size', 1, MAX_BATCH_SIZE, DEFAULT_BATCH_SIZE);
			parallelRequests = option('parallelRequests', 'Requests in Parallel', 1, MAX_PARALLEL_REQUESTS, 1);
			const limit = option('maxContactsPerRun', 'Max Contacts per Run', 0, Number.MAX_SAFE_INTEGER, 0);
			const total = items.reduce((sum, item) => sum + (item?.contacts.length ?? 0), 0);
			if (limit > 0 && total > limit) {
				throw new InvalidInputError(
					'Max Contacts per Run',
					`is ${limit}, but this run would add ${total} contacts; nothing was sent`,
					'Raise Options → Max Contacts per Run, or send fewer contacts in one run (an AI Agent: fewer per tool call).',
				);
			}
		} catch (error) {
			failures.refuseRun(error, keptInput);
			return;
		}

		// Items bound for the same campaign share batches even when other campaigns sit between them.
		const batches: Batch[] = [];
		const batchesOfItem = items.map((): number[] => []);
		const open = new Map<string, Batch>();
		items.forEach((item, itemIndex) => {
			item?.contacts.forEach((contact, place) => {
				let batch = open.get(item.campaignId);
				if (!batch || batch.contacts.length >= batchSize) {
					batch = { number: batches.length, campaignId: item.campaignId, contacts: [], itemOf: [], placeInItem: [] };
					batches.push(batch);
					open.set(item.campaignId, batch);
				}
				batch.contacts.push(contact);
				batch.itemOf.push(itemIndex);
				batch.placeInItem.push(place);
				if (batchesOfItem[itemIndex][batchesOfItem[itemIndex].length - 1] !== batch.number) batchesOfItem[itemIndex].push(batch.number);
			});
		});

		// Each item's answers, one per contact, filled in as its batches come back.
		const answers = items.map((item) => new Array<unknown>(item?.contacts.length ?? 0));
		const sendBatch = async ({ number, campaignId, contacts, itemOf, placeInItem }: Batch) => {
			try {
				const data = await serviceRequest.call(this, {
					...request,
					itemIndex: itemOf[0],
					sendOnceAs: `batch ${number}`,
					method: 'POST',
					path: `/compaign/v1/contacts/addToCampaign/${encodeURIComponent(campaignId)}`,
					body: contacts,
					answer: 'envelope',
					errorHint:
						'The service refuses a batch when the campaign ID is unknown or belongs to another company, when the key is not a user API key, or when a contact is malformed. Check the Campaign ID and the contacts of this batch.',
					// The service lists no contacts, so the user checks what they can.
					repeatHint:
						'Check whether these contacts were added (Get Contact for contacts whose IDs you hold, or the campaign in the service\'s app) before sending them again: a repeat may call the same people twice.',
				});
				// The interface does not show `data`: one entry per contact is matched to them, else it is the whole batch's answer.
				const perContact = Array.isArray(data) && data.length === contacts.length;
				itemOf.forEach((owner, index) => (answers[owner][placeInItem[index]] = perContact ? data[index] : data));
			} catch (error) {
				for (const owner of new Set(itemOf)) {
					if (!results[owner]) failures.failItem(owner, error, keptInput(owner));
				}
			}
		};
		// At most Requests in Parallel batches in flight; after a failure, no new batch starts and the first error is thrown.
		let next = 0;
		let firstError: unknown;
		const worker = async () => {
			while (firstError === undefined && next < batches.length) {
				await sendBatch(batches[next++]).catch((error: unknown) => (firstError ??= error));
			}
		};
		await Promise.all(Array.from({ length: Math.min(parallelRequests, batches.length) }, worker));
		if (firstError !== undefined) throw firstError;

		items.forEach((item, i) => {
			if (results[i] || !item) return;
			const output: IDataObject = { ...keptInput(i) };
			if (item.contacts.length === 1) output.result = answers[i][0] as IDataObject;
			else output.results = answers[i] as IDataObject[];
			output.added = item.contacts.length;
			const numbers = batchesOfItem[i];
			output.batch = numbers.length === 1 ? numbers[0] : numbers;
			results[i] = { output: [output] };
		});
	},
};
