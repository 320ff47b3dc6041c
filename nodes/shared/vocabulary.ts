import type { INodePropertyOptions } from 'n8n-workflow';

/** The service's event_type values (docs/service-interface.md, "Events"), grouped as the service groups them. */
export const EVENT_TYPES: Array<INodePropertyOptions & { value: string; group: 'call' | 'conversation' | 'campaign' }> = [
	{ group: 'call', name: 'Call Started', value: 'call.started', description: 'A call to a contact began' },
	{ group: 'call', name: 'Call Ended', value: 'call.ended', description: 'A call finished, with its outcome' },
	{ group: 'call', name: 'Call Failed', value: 'call.failed', description: 'A call could not be placed or dropped' },
	{
		group: 'call',
		name: 'Call Voicemail Detected',
		value: 'call.voicemail_detected',
		description: 'The call reached a voicemail box',
	},
	{
		group: 'conversation',
		name: 'Conversation Transcript',
		value: 'conversation.transcript',
		description: 'The transcript of a conversation is ready',
	},
	{
		group: 'conversation',
		name: 'Conversation Intent Detected',
		value: 'conversation.intent_detected',
		description: 'The agent recognised what the contact wants',
	},
	{
		group: 'conversation',
		name: 'Conversation Entity Captured',
		value: 'conversation.entity_captured',
		description: 'The agent captured a value, such as a date or an email address',
	},
	{ group: 'campaign', name: 'Campaign Started', value: 'campaign.started', description: 'A campaign began calling' },
	{ group: 'campaign', name: 'Campaign Paused', value: 'campaign.paused', description: 'A campaign was paused' },
	{
		group: 'campaign',
		name: 'Campaign Completed',
		value: 'campaign.completed',
		description: 'A campaign finished calling its contacts',
	},
	{
		group: 'campaign',
		name: 'Campaign Quota Reached',
		value: 'campaign.quota_reached',
		description: 'A campaign reached its calling quota',
	},
];

export const EVENT_TYPE_VALUES = new Set(EVENT_TYPES.map((event) => event.value));

/** The integration module's `type` values (docs/service-interface.md, "Endpoints the package calls"). */
export const INTEGRATION_TYPES: INodePropertyOptions[] = [
	{ name: 'Custom', value: 'custom' },
	{ name: 'Email', value: 'email' },
	{ name: 'HubSpot', value: 'hubspot' },
	{ name: 'Microsoft Dynamics', value: 'dynamics' },
	{ name: 'Microsoft Teams', value: 'teams' },
	{ name: 'Salesforce', value: 'salesforce' },
	{ name: 'Sheets', value: 'sheets' },
	{ name: 'Slack', value: 'slack' },
	{ name: 'Zapier', value: 'zapier' },
	{ name: 'Zoho', value: 'zoho' },
];
