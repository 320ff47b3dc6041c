/** Parameters of the action node's operations, as the tests run them, with `extra` laid over. */
import type { IDataObject } from 'n8n-workflow';

import { DEMO } from '../simulator/server.ts';

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

/** Add to Campaign with each item's `first`, `last` and `phone` mapped in, as a user maps a sheet's columns. */
export const addMappedLeads = (extra: IDataObject = {}) => ({
	resource: 'contact',
	operation: 'addToCampaign',
	campaignId: DEMO.campaignId,
	firstName: '={{ $json.first }}',
	lastName: '={{ $json.last }}',
	phoneNumber: '={{ $json.phone }}',
	...extra,
});

/** `count` leads with the fields addMappedLeads reads: Lead0 Doe +14155550000, Lead1 Doe +14155550001, ... */
export const leadFields = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ first: `Lead${i}`, last: 'Doe', phone: `+1415555${String(i).padStart(4, '0')}` }));
