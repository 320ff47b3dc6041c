/** Parameters of the action node's operations, as the transport tests run them, with `extra` laid over. */
import type { IDataObject } from 'n8n-workflow';

import { DEMO } from './kit.ts';

export const getContact = (extra: IDataObject = {}) => ({
	resource: 'contact',
	operation: 'get',
	contactId: DEMO.completedContactId,
	...extra,
});

export const getCampaign = (extra: IDataObject = {}) => ({ resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId, ...extra });

export const addContact = (extra: IDataObject = {}) => ({
	resource: 'contact',
	operation: 'addToCampaign',
	campaignId: DEMO.campaignId,
	firstName: 'Ada',
	lastName: 'Lovelace',
	phoneNumber: '+14155550199',
	...extra,
});

export const createIntegration = (extra: IDataObject = {}) => ({
	resource: 'integration',
	operation: 'create',
	integrationType: 'custom',
	url: 'https://hooks.example.com/x',
	...extra,
});
