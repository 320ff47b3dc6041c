import type { IDataObject } from 'n8n-workflow';

import { DEMO, useSimulator } from '../../../../helpers/kit.ts';
import { addContact } from '../../../../helpers/actionParameters.ts';
import { describeBadInputs, itemsWith } from '../../../../helpers/badInputs.ts';

/*
 * How an input item becomes contacts (contactInput.ts), through Add to Campaign: each Input Mode's
 * checks, made before anything is sent.
 */

const sim = useSimulator();

const addJson = (contactsJson: string): IDataObject => ({
	resource: 'contact',
	operation: 'addToCampaign',
	campaignId: DEMO.campaignId,
	inputMode: 'json',
	contactsJson,
});

describeBadInputs(sim, [
	{
		name: 'Add to Campaign: empty first name in item 1',
		parameters: addContact({ firstName: '={{ $json.v }}' }),
		items: itemsWith('Ada', '', 1, 3),
		item: 1,
		message: /^First Name \(firstname\) is empty/,
	},
	{ name: 'Add to Campaign: last name of spaces only', parameters: addContact({ lastName: '   ' }), item: 0, message: /^Last Name \(lastname\) is empty/ },
	{ name: 'Add to Campaign: phone of letters', parameters: addContact({ phoneNumber: 'call me maybe' }), item: 0, message: /^Phone Number \(phone_number\) may hold only digits/ },
	{ name: 'Add to Campaign: phone too short', parameters: addContact({ phoneNumber: '123' }), item: 0, message: /^Phone Number \(phone_number\) must have between 5 and 15 digits, got "123"/ },
	{ name: 'Add to Campaign: phone too long', parameters: addContact({ phoneNumber: '+1234567890123456' }), item: 0, message: /^Phone Number \(phone_number\) must have between 5 and 15 digits/ },
	{ name: 'Add to Campaign: metadata as an array', parameters: addContact({ additionalFields: { metadata: '[1, 2]' } }), item: 0, message: /^Metadata must be a JSON object, got an array/ },
	{ name: 'Add to Campaign: metadata text that is not JSON', parameters: addContact({ additionalFields: { metadata: '{email: ada}' } }), item: 0, message: /^Metadata is not valid JSON: "\{email: ada\}"/ },
	{ name: 'Add to Campaign: metadata a JSON number', parameters: addContact({ additionalFields: { metadata: '42' } }), item: 0, message: /^Metadata must be a JSON object, got a number/ },
	{
		name: 'Add to Campaign: metadata null from an expression in item 1',
		parameters: addContact({ additionalFields: { metadata: '={{ $json.v }}' } }),
		items: itemsWith({ a: 1 }, 'null', 1),
		item: 1,
		message: /^Metadata must be a JSON object, got null/,
	},
	{ name: 'Add to Campaign: Contacts (JSON) not an array', parameters: addJson('{"firstname": "Ada"}'), item: 0, message: /^Contacts \(JSON\) must be a JSON array of contacts/ },
	{ name: 'Add to Campaign: Contacts (JSON) broken', parameters: addJson('[{"firstname": "Ada",'), item: 0, message: /^Contacts \(JSON\) is not valid JSON/ },
	{
		name: 'Add to Campaign: Contacts (JSON) entry without phone_number',
		parameters: addJson(JSON.stringify([{ firstname: 'Ada', lastname: 'Lovelace', phone: '+14155550101' }])),
		item: 0,
		message: /^Phone Number \(phone_number\) of contact 0 in Contacts \(JSON\) must be text, got nothing/,
	},
	{
		name: 'Add to Campaign: Contacts (JSON) entry that is not an object',
		parameters: addJson('["Ada Lovelace"]'),
		item: 0,
		message: /^Contact of contact 0 in Contacts \(JSON\) must be a JSON object, got "Ada Lovelace"/,
	},
	{
		name: 'Add to Campaign: auto-map item without a phone',
		parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: DEMO.campaignId, inputMode: 'autoMap' },
		items: [
			{ json: { firstname: 'Ada', lastname: 'Lovelace', phone: '+14155550101' } },
			{ json: { firstname: 'Grace', lastname: 'Hopper', mobile: '+442079460958' } },
		],
		item: 1,
		message: /^Phone Number \(phone_number\) must be text, got nothing/,
	},
]);
