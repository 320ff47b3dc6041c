import type { INodePropertyOptions } from 'n8n-workflow';

/** The service's event_type values (docs/service-interface.md, "Events"), each with what happened. */
const EVENT_DESCRIPTIONS: Record<string, string> = {
	'call.started': 'A call to a contact began',
	'call.ended': 'A call finished, with its outcome',
	'call.failed': 'A call could not be placed or dropped',
	'call.voicemail_detected': 'The call reached a voicemail box',
	'conversation.transcript': 'The transcript of a conversation is ready',
	'conversation.intent_detected': 'The agent recognised what the contact wants',
	'conversation.entity_captured': 'The agent captured a value, such as a date or an email address',
	'campaign.started': 'A campaign began calling',
	'campaign.paused': 'A campaign was paused',
	'campaign.completed': 'A campaign finished calling its contacts',
	'campaign.quota_reached': 'A campaign reached its calling quota',
};

/** A word as it begins a name: "call" is "Call". */
export const capitalized = (word: string) => `${word[0].toUpperCase()}${word.slice(1)}`;

/** Named by the value spelled out (call.voicemail_detected: Call Voicemail Detected), grouped by the part before the dot. */
export const EVENT_TYPES: Array<INodePropertyOptions & { value: string; group: string }> = Object.entries(EVENT_DESCRIPTIONS).map(
	([value, description]) => ({
		group: value.split('.')[0],
		name: value.split(/[._]/).map(capitalized).join(' '),
		value,
		description,
	}),
);

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
