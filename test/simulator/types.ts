/**
 * Shapes of the simulated service's records (snake_case, exactly as the spec spells them) and of
 * the simulator's own API.
 */

export type JsonObject = Record<string, unknown>;

export interface Company {
	id: string;
	name: string;
}

/** 'api-key' is a user API key; 'jwt' a user session token, which Add Contacts refuses. */
export type CredentialKind = 'api-key' | 'jwt';

export interface Credential {
	companyId: string;
	kind: CredentialKind;
}

export type CallStatus = 'completed' | 'busy' | 'no-answer' | 'in-progress';

export interface Contact {
	id: string;
	company_id: string;
	firstname: string;
	lastname: string;
	phone_number: string;
	metadata: JsonObject | null;
	number_country_code: string;
	last_call_status: CallStatus | null;
	last_call_at: string | null;
	last_call_duration: number | null;
	last_call_feedback: string | null;
	source_name: string;
	tag_name: string;
	category_name: string;
	notes: string | null;
	created_at: string;
	updated_at: string;
	campaign_id: string | null;
	status: 'active' | 'inactive' | 'deleted';
	workspace_id: string;
}

export interface Campaign {
	id: string;
	name: string;
	notes: string;
	status: string;
	campaign_type: string;
	call_progress: number;
	days_of_week: number[];
	time_zone: string;
	created_at: string;
	updated_at: string;
	workspace: string;
	contacts_list_source: string[];
	contacts_list_tags: string[];
	contacts_list_categories: string[];
	contacts_list_source_metadata: JsonObject;
	agent_variables_contact_metadata_mapping: JsonObject;
	call_time_of_day_from: string;
	call_time_of_day_to: string;
	number_of_call_attempts: number[];
	retry_delay: number[];
	retry_delay_unit: string[];
	deleted_at: string | null;
	started_at: string | null;
	ended_at: string | null;
	webhook_mapping_variables: JsonObject;
	webhook_mapping_variables_sources: JsonObject;
	// Set through Update Campaign; the spec's Campaign table does not list them, but a campaign
	// "holds phone numbers and a webhook reference", so the simulator keeps them on the record.
	inbound_phone_number_id: string | null;
	outbound_phone_number_id: string | null;
	webhook_id: string | null;
}

export interface WebhookFlowExecution {
	id: string;
	status: string;
	attempt_number: number;
	next_retry_at: string | null;
	executed_at: string | null;
	finished_at: string | null;
	error_message: string;
	created_at: string;
	updated_at: string;
}

export interface WebhookFlowStep {
	id: string;
	step_number: number;
	webhook_url: string;
	webhook_url_params: JsonObject;
	webhook_method: string;
	webhook_headers: JsonObject;
	webhook_body: JsonObject;
	webhook_timeout: number;
	depends_on_step: number;
	retry_limit: number;
	timeout: number;
	success_condition: JsonObject;
	created_at: string;
	updated_at: string;
	deleted_at: string | null;
}

export interface WebhookFlowVariable {
	name: string;
	location: string;
	stepId: number;
	type: string;
	dataType: string;
	customValue: string;
}

export interface WebhookFlow {
	id: string;
	created_by: string;
	company_id: string;
	workspace_id: string;
	name: string;
	logo: string;
	retry_delay: number;
	retry_delay_unit: string;
	max_retries: number;
	status: string;
	created_at: string;
	updated_at: string;
	deleted_at: string | null;
	executions: WebhookFlowExecution[];
	steps: WebhookFlowStep[];
	is_template: boolean;
	flow_direction: 'inbound' | 'outbound';
	flow_mapping: JsonObject;
	predefinedVariables: Array<{ name: string; value: string }>;
	variables: WebhookFlowVariable[];
	tag_name: string;
	category_name: string;
}

export type ModuleStatus = 'active' | 'paused' | 'error';

export interface IntegrationModuleRecord {
	id: string;
	type: string;
	status: ModuleStatus;
	settings: {
		webhook_method: string;
		url: string;
		headers: Record<string, string>;
		timeout: number;
		retry_limit: number;
	};
}

export interface WebhookModuleRecord {
	id: string;
	event_type: string;
	status: ModuleStatus;
	settings: {
		method: string;
		url: string;
		headers: Record<string, string>;
		timeout: number;
		retry_limit: number;
	};
}

/** A record whose spec shape carries no owner (campaigns, modules), with the owning company beside it. */
export interface Owned<RecordShape> {
	companyId: string;
	record: RecordShape;
}

export interface SimulatorState {
	companies: Map<string, Company>;
	/** bearer token → who presents it */
	credentials: Map<string, Credential>;
	campaigns: Map<string, Owned<Campaign>>;
	contacts: Map<string, Contact>;
	webhookFlows: Map<string, WebhookFlow>;
	integrationModules: Map<string, Owned<IntegrationModuleRecord>>;
	webhookModules: Map<string, Owned<WebhookModuleRecord>>;
}

/** A request to the service as the endpoints see it: path without query, body parsed from JSON. */
export interface IncomingRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string | string[] | undefined>;
	/** parsed JSON, or the raw text when not JSON, or undefined (no body, or recordBodies off) */
	body: unknown;
	receivedAt: number;
}

export type FaultKind =
	| 'http-500'
	| 'http-502'
	| 'http-503'
	| 'http-429'
	| 'http-401'
	| 'http-403'
	| 'slow'
	| 'reset'
	| 'malformed-json'
	| 'html'
	| 'empty'
	| 'error-envelope'
	| 'not-envelope'
	| 'null-data'
	| 'list-data'
	| 'redirect';

export interface FaultSpec {
	kind: FaultKind;
	/** only requests with this method */
	method?: string;
	/** only requests whose path contains this substring */
	path?: string;
	/** how many matching requests it affects (default 1) */
	times?: number;
	/** how many matching requests it lets through, answered normally, before it affects any (default 0) */
	after?: number;
	/** for http-429: sends a Retry-After header when set */
	retryAfterSeconds?: number;
	/** for 'slow': wait this long, then answer normally */
	delayMs?: number;
	/** for 'redirect': the Location it answers 302 with */
	location?: string;
}

export interface DeliveryResult {
	moduleId: string;
	url: string;
	attempts: number;
	status?: number;
	ok: boolean;
	error?: string;
}

export interface PlayCallOptions {
	contactId?: string;
	campaignId?: string;
}

export interface PlayCallResult {
	contact: Contact;
	started: DeliveryResult[];
	ended: DeliveryResult[];
}

export interface SimulatorOptions {
	host?: string;
	port?: number;
	/** default true; the benchmark turns it off to keep memory flat */
	recordBodies?: boolean;
	/** hosts other than loopback it delivers to, as URLs write them (e.g. '198.18.0.1'): a test host in a network namespace */
	deliveryHosts?: string[];
}

export interface Simulator {
	/** e.g. 'http://127.0.0.1:41234', no trailing slash */
	url: string;
	port: number;
	state: SimulatorState;
	/** every API request received (not the /__sim control routes), in order */
	requests: RecordedRequest[];
	injectFault(fault: FaultSpec): void;
	clearFaults(): void;
	/** re-seeds the data, clears the recorded requests and the faults */
	reset(): void;
	deliverEvent(eventType: string, payload?: JsonObject): Promise<DeliveryResult[]>;
	playCall(options?: PlayCallOptions): Promise<PlayCallResult>;
	/** closes the server and every open socket, and cancels deliveries in flight */
	close(): Promise<void>;
}
