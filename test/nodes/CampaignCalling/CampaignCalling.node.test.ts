import type { INode, INodeProperties } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { CampaignCalling } from '../../../nodes/CampaignCalling/CampaignCalling.node';
import { nodeTypesFor, runActionNodeExpectingError } from '../../helpers/n8nContext.ts';
import { addContact, createIntegration, getCampaign, getContact } from '../../helpers/actionParameters.ts';
import { DEMO, useSimulator, withoutRetries } from '../../helpers/kit.ts';
import { describeBadInputs } from '../../helpers/badInputs.ts';

const { description } = new CampaignCalling();

/** The parameters shown for one resource and operation (by name). */
function parametersOf(resource: string, operation: string): string[] {
	return description.properties
		.filter((property) => {
			const show = property.displayOptions?.show;
			if (!show) return true;
			return (show.resource ?? [resource]).includes(resource) && (show.operation ?? [operation]).includes(operation);
		})
		.filter((property) => property.type !== 'notice')
		.map((property) => property.name)
		.filter((name, index, names) => name !== 'resource' && name !== 'operation' && names.indexOf(name) === index);
}

/** What the editor shows for one resource and operation, in order, after Resource and Operation. */
function parametersShown(resource: string, operation: string): INodeProperties[] {
	return description.properties.filter((candidate) => {
		const show = candidate.displayOptions?.show;
		return show?.resource?.includes(resource) === true && show.operation?.includes(operation) === true;
	});
}

function property(resource: string, operation: string, name: string): INodeProperties {
	const found = description.properties.find(
		(candidate) =>
			candidate.name === name &&
			(candidate.displayOptions?.show?.resource ?? [resource]).includes(resource) &&
			(candidate.displayOptions?.show?.operation ?? [operation]).includes(operation),
	);
	if (!found) throw new Error(`no parameter ${name} for ${resource}/${operation}`);
	return found;
}

const valuesOf = (options: INodeProperties['options']) => (options ?? []).map((option) => (option as { value: string }).value);
const namesOf = (options: INodeProperties['options']) => (options ?? []).map((option) => (option as { name: string }).name);

describe('Campaign Calling node description (the contract\'s stored names)', () => {
	it('is campaignCalling, version 1 alone, with the campaignCallingApi credential', () => {
		expect(description.name).toBe('campaignCalling');
		expect(description.displayName).toBe('Campaign Calling');
		expect(description.version).toBe(1);
		expect(description.defaultVersion).toBeUndefined();
		expect(description.credentials).toEqual([{ name: 'campaignCallingApi', required: true }]);
	});

	it('offers the five resources, under the field Resource, with the contract\'s operations', () => {
		const resource = description.properties.find((p) => p.name === 'resource');
		expect(resource?.displayName).toBe('Resource');
		expect(valuesOf(resource?.options).sort()).toEqual([
			'campaign',
			'contact',
			'integration',
			'webhookFlow',
			'webhookModule',
		]);
		const operations = Object.fromEntries(
			description.properties
				.filter((p) => p.name === 'operation')
				.map((p) => [p.displayOptions?.show?.resource?.[0], valuesOf(p.options).sort()]),
		);
		expect(operations).toEqual({
			contact: ['addToCampaign', 'get'],
			campaign: ['get', 'update'],
			webhookFlow: ['getAll'],
			integration: ['create'],
			webhookModule: ['create'],
		});
	});

	it.each([
		['contact', 'addToCampaign', ['campaignId', 'inputMode', 'firstName', 'lastName', 'phoneNumber', 'additionalFields', 'contactsJson', 'options']],
		['contact', 'get', ['contactId', 'simplify']],
		['campaign', 'get', ['campaignId', 'simplify']],
		['campaign', 'update', ['campaignId', 'updateFields']],
		['webhookFlow', 'getAll', ['workspaceId', 'returnAll', 'limit', 'simplify']],
		['integration', 'create', ['integrationType', 'url', 'options']],
		['webhookModule', 'create', ['eventType', 'url', 'options']],
	])('%s / %s reads the contract\'s parameters', (resource, operation, names) => {
		expect(parametersOf(resource, operation).sort()).toEqual([...names, 'requestOptions'].sort());
	});

	it('Add to Campaign has the three input modes, fields by default, and metadata and batch size', () => {
		const inputMode = property('contact', 'addToCampaign', 'inputMode');
		expect(inputMode.default).toBe('fields');
		expect(valuesOf(inputMode.options)).toEqual(['fields', 'autoMap', 'json']);
		expect(namesOf(property('contact', 'addToCampaign', 'additionalFields').options)).toEqual(['metadata']);
		expect(namesOf(property('contact', 'addToCampaign', 'options').options)).toEqual(expect.arrayContaining(['batchSize']));
	});

	it('Update Campaign offers the 20 update fields under their camelCase names', () => {
		expect(namesOf(property('campaign', 'update', 'updateFields').options).sort()).toEqual(
			[
				'name', 'notes', 'status', 'daysOfWeek', 'timeZone', 'contactsListSource', 'contactsListTags',
				'contactsListCategories', 'contactsListSourceMetadata', 'agentVariablesContactMetadataMapping',
				'callTimeOfDayFrom', 'callTimeOfDayTo', 'numberOfCallAttempts', 'retryDelay', 'retryDelayUnit',
				'inboundPhoneNumberId', 'outboundPhoneNumberId', 'webhookMappingVariables', 'webhookMappingVariablesSources', 'webhookId',
			].sort(),
		);
	});

	it('Get Many Webhook Flows defaults to the workspace "default"', () => {
		expect(property('webhookFlow', 'getAll', 'workspaceId').default).toBe('default');
	});

	it('offers the spec\'s ten integration types and eleven event types', () => {
		expect(valuesOf(property('integration', 'create', 'integrationType').options).sort()).toEqual(
			['salesforce', 'hubspot', 'zoho', 'dynamics', 'slack', 'teams', 'email', 'sheets', 'zapier', 'custom'].sort(),
		);
		expect(valuesOf(property('webhookModule', 'create', 'eventType').options).sort()).toEqual(
			[
				'call.started', 'call.ended', 'call.failed', 'call.voicemail_detected', 'conversation.transcript',
				'conversation.intent_detected', 'conversation.entity_captured', 'campaign.started', 'campaign.paused',
				'campaign.completed', 'campaign.quota_reached',
			].sort(),
		);
	});

	it('module options carry method (default POST), headers, timeout and retryLimit', () => {
		for (const resource of ['integration', 'webhookModule']) {
			const options = property(resource, 'create', 'options');
			expect(namesOf(options.options).sort()).toEqual(['headers', 'method', 'retryLimit', 'timeout']);
		}
	});

	it('has no leftover punctuation in its descriptions', () => {
		const texts = JSON.stringify(description.properties);
		expect(texts).not.toMatch(/ ,\./);
	});
});

/** Each operation's one name: the canvas subtitle, the node panel's action, and its errors and hints. */
const OPERATION_NAMES: Array<[string, string, string]> = [
	['contact', 'addToCampaign', 'Add to Campaign'],
	['contact', 'get', 'Get Contact'],
	['campaign', 'get', 'Get Campaign'],
	['campaign', 'update', 'Update Campaign'],
	['webhookFlow', 'getAll', 'Get Many Webhook Flows'],
	['integration', 'create', 'Create Integration'],
	['webhookModule', 'create', 'Create Webhook Module'],
];

describe('Campaign Calling node in the editor', () => {
	/** Evaluates the subtitle as n8n's canvas does, with n8n's own expression engine. */
	function subtitleFor(resource: string, operation: string): unknown {
		const node: INode = {
			id: 'subtitle',
			name: 'Campaign Calling',
			type: 'n8n-nodes-campaign-calling.campaignCalling',
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource, operation },
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: nodeTypesFor(new CampaignCalling()) });
		return workflow.expression.getSimpleParameterValue(node, description.subtitle as string, 'internal', {});
	}

	it.each(OPERATION_NAMES)('shows the subtitle of %s / %s as "%s"', (resource, operation, title) => {
		expect(subtitleFor(resource, operation)).toBe(title);
	});

	it.each(OPERATION_NAMES)('names %s / %s "%s" in the node panel too (its action, in sentence case)', (resource, operation, title) => {
		const operations = description.properties.find((candidate) => candidate.name === 'operation' && candidate.displayOptions?.show?.resource?.includes(resource));
		const option = (operations?.options as Array<{ value: string; action: string }>).find((candidate) => candidate.value === operation);
		expect(option?.action).toBe(title.charAt(0) + title.slice(1).toLowerCase());
	});

	it.each([
		['contact', 'get'],
		['campaign', 'get'],
		['webhookFlow', 'getAll'],
	])('%s / %s has one Simplify toggle, on by default', (resource, operation) => {
		const toggles = description.properties.filter(
			(candidate) => candidate.name === 'simplify' && candidate.displayOptions?.show?.resource?.includes(resource) && candidate.displayOptions?.show?.operation?.includes(operation),
		);
		expect(toggles.map((toggle) => [toggle.type, toggle.default])).toEqual([['boolean', true]]);
	});

	it('Auto-Map shows a notice naming every field spelling it reads', () => {
		const notice = property('contact', 'addToCampaign', 'autoMapNotice');
		expect(notice.type).toBe('notice');
		expect(notice.displayOptions?.show?.inputMode).toEqual(['autoMap']);
		for (const spelling of ['firstname', 'first_name', 'firstName', 'lastname', 'last_name', 'lastName', 'phone_number', 'phone', 'phoneNumber', 'metadata']) {
			expect(notice.displayName).toMatch(new RegExp(`\\b${spelling}\\b`));
		}
		const autoMap = (property('contact', 'addToCampaign', 'inputMode').options as Array<{ value: string; description: string }>).find(
			(option) => option.value === 'autoMap',
		);
		// n8n's dropdown shows about two lines of an option's description.
		expect(autoMap?.description.length).toBeLessThanOrEqual(100);
	});

	it('warns on Add to Campaign, above its fields, that added contacts may be called and billed, and names Max Contacts per Run', () => {
		const shown = parametersShown('contact', 'addToCampaign');
		expect(shown[0].name).toBe('callsNotice');
		expect(shown[0].type).toBe('notice');
		expect(shown[0].displayName).toMatch(/may be called.*billed/);
		expect(shown[0].displayName).toMatch(/Max Contacts per Run/);
		expect(parametersShown('contact', 'get').map((shownParameter) => shownParameter.name)).not.toContain('callsNotice');
	});

	it('says where no list exists for an ID, so the user knows where to take it from', () => {
		for (const [resource, operation, name] of [
			['contact', 'addToCampaign', 'campaignId'],
			['contact', 'get', 'contactId'],
			['campaign', 'get', 'campaignId'],
			['campaign', 'update', 'campaignId'],
		]) {
			expect(property(resource, operation, name).hint).toMatch(/no (campaign|contact) listing to pick from/);
		}
	});
});

describe('each operation\'s errors', () => {
	const sim = useSimulator();

	it.each([
		['Add to Campaign', addContact()],
		['Get Contact', getContact()],
		['Get Campaign', getCampaign()],
		['Update Campaign', { resource: 'campaign', operation: 'update', campaignId: DEMO.campaignId, updateFields: { name: 'Spring' } }],
		['Get Many Webhook Flows', { resource: 'webhookFlow', operation: 'getAll', workspaceId: 'default', returnAll: true }],
		['Create Integration', createIntegration()],
		['Create Webhook Module', { resource: 'webhookModule', operation: 'create', eventType: 'call.ended', url: 'https://hooks.example.com/x' }],
	])('name the operation as the editor does: "%s failed: …"', async (name, parameters) => {
		const error = await runActionNodeExpectingError({ credentials: sim.credentials('not-a-key-of-the-service'), parameters: withoutRetries(parameters) });
		expect(error.message.startsWith(`${name} failed: `)).toBe(true);
	});
});


describe('the credential\'s Base URL refused before any request', () => {
	const sim = useSimulator();
	describeBadInputs(sim, [
		{
			name: 'Credential: Base URL without a scheme',
			parameters: { resource: 'campaign', operation: 'get', campaignId: DEMO.campaignId },
			credentials: (url) => ({ baseUrl: url.replace(/^http:\/\//, ''), apiKey: DEMO.apiKey }),
			item: 0,
			message: /^Get Campaign failed: The credential's Base URL "127\.0\.0\.1:\d+" is not a web address/,
		},
		{
			name: 'Credential: Base URL with an ftp scheme',
			parameters: { resource: 'contact', operation: 'get', contactId: DEMO.completedContactId },
			credentials: () => ({ baseUrl: 'ftp://api.example.com', apiKey: DEMO.apiKey }),
			item: 0,
			message: /^Get Contact failed: The credential's Base URL "ftp:\/\/api.example.com" is not a web address/,
		},
		{
			name: 'Credential: empty Base URL',
			parameters: addContact({}),
			credentials: () => ({ baseUrl: '', apiKey: DEMO.apiKey }),
			item: 0,
			message: /^Add to Campaign failed: The credential's Base URL "" is not a web address/,
		},
	]);
});
