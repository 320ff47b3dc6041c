import type { IDataObject } from 'n8n-workflow';

import { serviceRequest } from '../../transport';
import type { PerItemOperation } from '../router';
import { forOperation } from '../shared/display';
import { requireUuid } from '../shared/validation';
import { campaignIdHint, campaignIdProperty } from './fields';

export const description = forOperation('campaign', 'get', [campaignIdProperty]);

export const operation: PerItemOperation<string> = {
	kind: 'perItem',

	prepare(itemIndex, params) {
		return requireUuid(params.get<unknown>('campaignId', itemIndex), 'Campaign ID', campaignIdHint);
	},

	async send(campaignId, itemIndex) {
		return (await serviceRequest.call(this, {
			operation: 'Get Campaign',
			method: 'GET',
			path: `/v1/campaigns/by-id/${encodeURIComponent(campaignId)}`,
			answer: 'envelope',
			itemIndex,
			errorHint: 'Check that the Campaign ID exists and belongs to the company of the credential\'s API key.',
		})) as IDataObject;
	},
};
