import type { IDataObject } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import type { PerItemOperation } from '../types';
import { readSimplify, shapeRecord, simplifyProperty } from '../shared/simplify';
import { requireUuid } from '../../../shared/validation';
import { campaignIdHint, campaignIdProperty } from './fields';

/** What Simplify keeps of a campaign: what it is, whether and how far it calls, and its calling window. */
const SIMPLIFIED_CAMPAIGN_FIELDS = [
	'id',
	'name',
	'status',
	'campaign_type',
	'call_progress',
	'days_of_week',
	'time_zone',
	'call_time_of_day_from',
	'call_time_of_day_to',
	'ended_at',
] as const;

const LEADING_FIELDS = ['id', 'name', 'status'] as const;

export const operation: PerItemOperation<{ campaignId: string; simplify: boolean }> = {
	value: 'get',
	title: 'Get Campaign',
	name: 'Get',
	description: 'Get a campaign with its calling rules',
	properties: [campaignIdProperty, simplifyProperty(SIMPLIFIED_CAMPAIGN_FIELDS)],
	createsOnEachSend: false,

	prepare(itemIndex) {
		return {
			campaignId: requireUuid(this.getNodeParameter('campaignId', itemIndex), 'Campaign ID', campaignIdHint),
			simplify: readSimplify(this, itemIndex),
		};
	},

	async send({ campaignId, simplify }, request) {
		const campaign = (await serviceRequest.call(this, {
			...request,
			method: 'GET',
			path: `/v1/campaigns/by-id/${encodeURIComponent(campaignId)}`,
			answer: { data: 'record', names: 'a campaign record' },
			errorHint: 'Check that the Campaign ID exists and belongs to the company of the credential\'s API key.',
		})) as IDataObject;
		return shapeRecord(campaign, {
			simplify,
			keptFields: SIMPLIFIED_CAMPAIGN_FIELDS,
			leadingFields: LEADING_FIELDS,
		});
	},
};
