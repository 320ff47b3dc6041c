import { EVENT_TYPES, EVENT_TYPE_VALUES, INTEGRATION_TYPES } from '../../../nodes/shared/vocabulary';

describe('EVENT_TYPES', () => {
	// The service's event_type values (docs/service-interface.md, "Events"): sent as they are and stored in users' workflows.
	it('lists the spec\'s eleven event types, grouped by what they are about', () => {
		expect(EVENT_TYPES.map(({ group, value }) => `${group}: ${value}`)).toEqual([
			'call: call.started',
			'call: call.ended',
			'call: call.failed',
			'call: call.voicemail_detected',
			'conversation: conversation.transcript',
			'conversation: conversation.intent_detected',
			'conversation: conversation.entity_captured',
			'campaign: campaign.started',
			'campaign: campaign.paused',
			'campaign: campaign.completed',
			'campaign: campaign.quota_reached',
		]);
		expect([...EVENT_TYPE_VALUES]).toEqual(EVENT_TYPES.map((event) => event.value));
	});

	it('shows each event type as its value spelled out in words', () => {
		const spelledOut = (value: string) =>
			value
				.split(/[._]/)
				.map((word) => word[0].toUpperCase() + word.slice(1))
				.join(' ');
		for (const event of EVENT_TYPES) expect(event.name).toBe(spelledOut(event.value));
	});

	it('says what happened for each event type, each in its own words', () => {
		const descriptions = EVENT_TYPES.map((event) => event.description ?? '');
		for (const description of descriptions) expect(description).toMatch(/^(A|An|The) [a-z].{10,}[^.]$/);
		expect(new Set(descriptions).size).toBe(EVENT_TYPES.length);
	});
});

describe('INTEGRATION_TYPES', () => {
	// The integration module's type values (docs/service-interface.md, "Endpoints the package calls"), stored in users' workflows.
	it('offers the spec\'s ten integration types, by the names their makers use, in alphabetical order', () => {
		expect(INTEGRATION_TYPES.map(({ name, value }) => `${name as string}: ${value as string}`)).toEqual([
			'Custom: custom',
			'Email: email',
			'HubSpot: hubspot',
			'Microsoft Dynamics: dynamics',
			'Microsoft Teams: teams',
			'Salesforce: salesforce',
			'Sheets: sheets',
			'Slack: slack',
			'Zapier: zapier',
			'Zoho: zoho',
		]);
	});
});
