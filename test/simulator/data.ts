/**
 * The seed: a demo company with campaigns, contacts and webhook flows, and a second company whose
 * records the demo credentials must not reach. Ids are fixed so tests and the demo can name them.
 */
import type { Campaign, Contact, SimulatorState, WebhookFlow } from './types.ts';

export const DEMO = {
	companyId: 'a0000000-0000-4000-8000-000000000001',
	userId: 'a0000000-0000-4000-8000-0000000000e1',
	/** user API key of the demo company: accepted by every endpoint */
	apiKey: 'demo-api-key-0123456789abcdef',
	/** a second user API key of the demo company, as after a key rotation: the same company's records */
	rotatedApiKey: 'demo-api-key-rotated-9876543210',
	/** session token (JWT) of the demo user: accepted everywhere except Add Contacts */
	jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhMDAwMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwZTEiLCJjb21wYW55X2lkIjoiYTAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIiwiaWF0IjoxNzY3MjI1NjAwfQ.X7vBbrjJ13IE-x5a4YbVEOrgbyKsUa4uA6U0yF2Nk08',
	workspaceId: 'default',
	/** active campaign with every call rule filled in */
	campaignId: 'ca000000-0000-4000-8000-000000000001',
	secondCampaignId: 'ca000000-0000-4000-8000-000000000002',
	pausedCampaignId: 'ca000000-0000-4000-8000-000000000003',
	/** in campaignId, last_call_status null */
	neverCalledContactId: 'c0000000-0000-4000-8000-000000000001',
	/** in campaignId, a completed call with duration and feedback */
	completedContactId: 'c0000000-0000-4000-8000-000000000002',
	/** in campaignId, last call not answered */
	noAnswerContactId: 'c0000000-0000-4000-8000-000000000003',
	/** in no campaign (campaign_id null) */
	unassignedContactId: 'c0000000-0000-4000-8000-000000000004',
	outboundFlowId: 'f0000000-0000-4000-8000-000000000001',
	secondOutboundFlowId: 'f0000000-0000-4000-8000-000000000002',
	inboundFlowId: 'f0000000-0000-4000-8000-000000000003',
	otherWorkspaceId: 'staging',
	otherWorkspaceFlowId: 'f0000000-0000-4000-8000-000000000004',
	otherCompanyId: 'a0000000-0000-4000-8000-000000000002',
	otherUserId: 'a0000000-0000-4000-8000-0000000000e2',
	/** user API key of the other company */
	otherApiKey: 'other-api-key-fedcba9876543210',
	otherCampaignId: 'ca000000-0000-4000-8000-0000000000b1',
	otherContactId: 'c0000000-0000-4000-8000-0000000000b1',
	otherFlowId: 'f0000000-0000-4000-8000-0000000000b1',
} as const;

const SEEDED_AT = '2026-01-05T09:00:00.000Z';
const UPDATED_AT = '2026-01-12T16:30:00.000Z';

export function createEmptyState(): SimulatorState {
	return {
		companies: new Map(),
		credentials: new Map(),
		campaigns: new Map(),
		contacts: new Map(),
		webhookFlows: new Map(),
		integrationModules: new Map(),
		webhookModules: new Map(),
	};
}

/** Empties the state in place (holders of `state` keep a live reference) and fills in the seed. */
export function seedState(state: SimulatorState): void {
	for (const store of Object.values(state)) (store as Map<string, unknown>).clear();

	state.companies.set(DEMO.companyId, { id: DEMO.companyId, name: 'Sunrise Realty' });
	state.companies.set(DEMO.otherCompanyId, { id: DEMO.otherCompanyId, name: 'Harbor Insurance' });
	state.credentials.set(DEMO.apiKey, { companyId: DEMO.companyId, kind: 'api-key' });
	state.credentials.set(DEMO.rotatedApiKey, { companyId: DEMO.companyId, kind: 'api-key' });
	state.credentials.set(DEMO.jwt, { companyId: DEMO.companyId, kind: 'jwt' });
	state.credentials.set(DEMO.otherApiKey, { companyId: DEMO.otherCompanyId, kind: 'api-key' });

	for (const campaign of seedCampaigns()) {
		const companyId = campaign.id === DEMO.otherCampaignId ? DEMO.otherCompanyId : DEMO.companyId;
		state.campaigns.set(campaign.id, { companyId, record: campaign });
	}
	for (const contact of seedContacts()) state.contacts.set(contact.id, contact);
	for (const flow of seedWebhookFlows()) state.webhookFlows.set(flow.id, flow);
}

function campaignDefaults(): Omit<Campaign, 'id' | 'name' | 'status'> {
	return {
		notes: '',
		campaign_type: 'outbound',
		call_progress: 0,
		days_of_week: [],
		time_zone: 'UTC',
		created_at: SEEDED_AT,
		updated_at: SEEDED_AT,
		workspace: DEMO.workspaceId,
		contacts_list_source: [],
		contacts_list_tags: [],
		contacts_list_categories: [],
		contacts_list_source_metadata: {},
		agent_variables_contact_metadata_mapping: {},
		call_time_of_day_from: '09:00',
		call_time_of_day_to: '17:00',
		number_of_call_attempts: [1],
		retry_delay: [0],
		retry_delay_unit: ['minutes'],
		deleted_at: null,
		started_at: null,
		ended_at: null,
		webhook_mapping_variables: {},
		webhook_mapping_variables_sources: {},
		inbound_phone_number_id: null,
		outbound_phone_number_id: null,
		webhook_id: null,
	};
}

// Campaign field values are "not shown" by the spec. The simulator's choices: status is a free
// string (the seed uses active, draft, paused), days_of_week counts 1 = Monday … 7 = Sunday, the
// time of day is "HH:MM" in the campaign's time_zone, and retry_delay[i] is in retry_delay_unit[i].
function seedCampaigns(): Campaign[] {
	return [
		{
			...campaignDefaults(),
			id: DEMO.campaignId,
			name: 'Spring open house follow-up',
			notes: 'Call everyone who visited an open house in March.',
			status: 'active',
			call_progress: 35,
			days_of_week: [1, 2, 3, 4, 5],
			time_zone: 'America/New_York',
			updated_at: UPDATED_AT,
			contacts_list_source: ['website', 'csv import'],
			contacts_list_tags: ['open-house', 'hot-lead'],
			contacts_list_categories: ['buyer'],
			contacts_list_source_metadata: { form_id: 'open-house-2026', imported_file: 'march-visitors.csv' },
			agent_variables_contact_metadata_mapping: { property: 'property_interest', company: 'company_name' },
			call_time_of_day_from: '09:30',
			call_time_of_day_to: '18:00',
			number_of_call_attempts: [3],
			retry_delay: [2, 24],
			retry_delay_unit: ['hours', 'hours'],
			started_at: '2026-01-06',
			ended_at: '2026-03-31',
			webhook_mapping_variables: { outcome: 'last_call_status', summary: 'last_call_feedback' },
			webhook_mapping_variables_sources: { outcome: 'call', summary: 'call' },
			outbound_phone_number_id: 'b0000000-0000-4000-8000-000000000001',
			webhook_id: DEMO.outboundFlowId,
		},
		{
			...campaignDefaults(),
			id: DEMO.secondCampaignId,
			name: 'New listings newsletter callers',
			status: 'draft',
		},
		{
			...campaignDefaults(),
			id: DEMO.pausedCampaignId,
			name: 'Renewal reminders',
			notes: 'Paused over the holidays.',
			status: 'paused',
			call_progress: 80,
			days_of_week: [2, 4],
			time_zone: 'Europe/London',
			number_of_call_attempts: [2],
			retry_delay: [1],
			retry_delay_unit: ['days'],
			started_at: '2025-11-01',
		},
		{
			...campaignDefaults(),
			id: DEMO.otherCampaignId,
			name: 'Harbor policy check-ins',
			status: 'active',
			days_of_week: [1, 3, 5],
			time_zone: 'Europe/Berlin',
		},
	];
}

function contactDefaults(): Omit<Contact, 'id' | 'firstname' | 'lastname' | 'phone_number' | 'number_country_code'> {
	return {
		company_id: DEMO.companyId,
		metadata: null,
		last_call_status: null,
		last_call_at: null,
		last_call_duration: null,
		last_call_feedback: null,
		source_name: 'manual entry',
		tag_name: '',
		category_name: '',
		notes: null,
		created_at: SEEDED_AT,
		updated_at: SEEDED_AT,
		campaign_id: DEMO.campaignId,
		status: 'active',
		workspace_id: DEMO.workspaceId,
	};
}

function seedContacts(): Contact[] {
	return [
		{
			...contactDefaults(),
			id: DEMO.neverCalledContactId,
			firstname: 'Ada',
			lastname: 'Lovelace',
			phone_number: '+14155550101',
			number_country_code: '+1',
			metadata: { email: 'ada.lovelace@example.com', property_interest: '3-bed house', source: 'open-house form' },
			source_name: 'website',
			tag_name: 'open-house',
			category_name: 'buyer',
		},
		{
			...contactDefaults(),
			id: DEMO.completedContactId,
			firstname: 'Grace',
			lastname: 'Hopper',
			phone_number: '+442079460958',
			number_country_code: '+44',
			metadata: { email: 'grace.hopper@example.com', company_name: 'Navy Yard Ltd', job_title: 'Director' },
			last_call_status: 'completed',
			last_call_at: '2026-01-10T14:05:12.000Z',
			last_call_duration: 184,
			last_call_feedback: 'Interested in a viewing next Tuesday afternoon.',
			source_name: 'csv import',
			tag_name: 'hot-lead',
			category_name: 'buyer',
			notes: 'Prefers calls after 2pm.',
			updated_at: '2026-01-10T14:08:00.000Z',
		},
		{
			...contactDefaults(),
			id: DEMO.noAnswerContactId,
			firstname: 'Alan',
			lastname: 'Turing',
			phone_number: '+4930901820',
			number_country_code: '+49',
			last_call_status: 'no-answer',
			last_call_at: '2026-01-11T10:00:00.000Z',
			last_call_duration: 0,
			last_call_feedback: null,
			source_name: 'website',
			tag_name: 'open-house',
			category_name: 'buyer',
			updated_at: '2026-01-11T10:01:00.000Z',
		},
		{
			...contactDefaults(),
			id: DEMO.unassignedContactId,
			firstname: 'Katherine',
			lastname: 'Johnson',
			phone_number: '+61291234567',
			number_country_code: '+61',
			campaign_id: null,
			status: 'inactive',
		},
		{
			...contactDefaults(),
			id: DEMO.otherContactId,
			company_id: DEMO.otherCompanyId,
			firstname: 'Edsger',
			lastname: 'Dijkstra',
			phone_number: '+33142685300',
			number_country_code: '+33',
			campaign_id: DEMO.otherCampaignId,
		},
	];
}

// The inner structure of flow_mapping, success_condition, webhook_body and the variables is "not
// shown" by the spec: the seed fills them with small plausible objects.
function seedWebhookFlows(): WebhookFlow[] {
	const flow = (
		id: string,
		name: string,
		fields: Partial<WebhookFlow> = {},
	): WebhookFlow => ({
		id,
		created_by: DEMO.userId,
		company_id: DEMO.companyId,
		workspace_id: DEMO.workspaceId,
		name,
		logo: 'https://cdn.example.com/logos/webhook.svg',
		retry_delay: 30,
		retry_delay_unit: 'seconds',
		max_retries: 3,
		status: 'scheduled',
		created_at: SEEDED_AT,
		updated_at: SEEDED_AT,
		deleted_at: null,
		executions: [],
		steps: [flowStep(id.replace(/^f0/, 'f1'), 1, 'https://crm.example.com/api/leads')],
		is_template: false,
		flow_direction: 'outbound',
		flow_mapping: { contact_id: '{{contact.id}}', outcome: '{{call.status}}' },
		predefinedVariables: [{ name: 'source', value: 'campaign-calling' }],
		variables: [
			{ name: 'lead_id', location: 'response.body', stepId: 1, type: 'output', dataType: 'string', customValue: '' },
		],
		tag_name: '',
		category_name: '',
		...fields,
	});
	return [
		flow(DEMO.outboundFlowId, 'Push call outcomes to CRM', {
			tag_name: 'crm',
			category_name: 'sync',
			executions: [
				{
					id: 'e0000000-0000-4000-8000-000000000001',
					status: 'scheduled',
					attempt_number: 1,
					next_retry_at: '2026-01-12T16:31:00.000Z',
					executed_at: '2026-01-12T16:30:00.000Z',
					finished_at: '2026-01-12T16:30:02.000Z',
					error_message: '',
					created_at: '2026-01-12T16:30:00.000Z',
					updated_at: '2026-01-12T16:30:02.000Z',
				},
			],
			steps: [
				flowStep('f0000000-0000-4000-8000-000000000051', 1, 'https://crm.example.com/api/leads'),
				{
					...flowStep('f0000000-0000-4000-8000-000000000052', 2, 'https://crm.example.com/api/notes'),
					depends_on_step: 1,
				},
			],
		}),
		flow(DEMO.secondOutboundFlowId, 'Notify sales channel', { logo: 'https://cdn.example.com/logos/slack.svg' }),
		flow(DEMO.inboundFlowId, 'Inbound lead capture', { flow_direction: 'inbound' }),
		flow(DEMO.otherWorkspaceFlowId, 'Staging CRM sync', { workspace_id: DEMO.otherWorkspaceId }),
		flow(DEMO.otherFlowId, 'Harbor policy sync', { company_id: DEMO.otherCompanyId, created_by: DEMO.otherUserId }),
	];
}

function flowStep(id: string, stepNumber: number, url: string): WebhookFlow['steps'][number] {
	return {
		id,
		step_number: stepNumber,
		webhook_url: url,
		webhook_url_params: {},
		webhook_method: 'POST',
		webhook_headers: { 'Content-Type': 'application/json' },
		webhook_body: { contact_id: '{{contact.id}}', status: '{{call.status}}' },
		webhook_timeout: 30,
		depends_on_step: 0,
		retry_limit: 3,
		timeout: 30,
		success_condition: { status_code: 200 },
		created_at: SEEDED_AT,
		updated_at: SEEDED_AT,
		deleted_at: null,
	};
}
