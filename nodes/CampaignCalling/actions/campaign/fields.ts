import type { INodeProperties } from 'n8n-workflow';

export const campaignIdHint =
	'Copy it from the campaign in the calling service (it looks like 3f1c2b9a-4d5e-4f60-8a7b-9c0d1e2f3a4b), or map it from an earlier step.';

export const campaignIdProperty: INodeProperties = {
	displayName: 'Campaign ID',
	name: 'campaignId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 3f1c2b9a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
	description: 'The campaign\'s ID, as shown in the calling service, or mapped from an earlier step',
	hint: 'The service has no campaign listing to pick from: copy the ID from the calling service or map it from an earlier step',
};
