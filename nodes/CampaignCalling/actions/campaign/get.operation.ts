import type { IDataObject } from 'n8n-workflow';

import { serviceRequest } from '../../../shared/transport';
import type { PerItemOperation } from '../types';
import { defineSimplify } from '../shared/simplify';
import { requireUuid } from '../../../shared/validation';
import { campaignIdHint, campaignIdProperty } from './fields';

/** Simplify keeps what a campaign is, whether and how far it calls, and its calling window. */
const simplify = defineSimplify({
	keptFields: [
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
	],
	leadingFields: ['id', 'name', 'status'],
});

export const getCampaign: PerItemOperation<{ campaignId: string; simplified: boolean }> = {
	value: 'get',
	title: 'Get Campaign',
	name: 'Get',
	description: 'Get a campaign with its calling rules',
	properties: [campaignIdProperty, simplify.property],
	createsOnEachSend: false,

	prepare(itemIndex) {
		return {
			campaignId: requireUuid(this.getNodeParameter('campaignId', itemIndex), 'Campaign ID', campaignIdHint),
			simplified: simplify.read(this, itemIndex),
		};
	},

	async send({ campaignId, simplified }, request) {
		const campaign = (await serviceRequest.call(this, {
			...request,
			method: 'GET',
			path: `/v1/campaigns/by-id/${encodeURIComponent(campaignId)}`,
			answer: { data: 'record', names: 'a campaign record' },
			errorHint: 'Check that the Campaign ID exists and belongs to the company of the credential\'s API key.',
		})) as IDataObject;
		return simplify.shape(campaign, simplified);
	},
};
