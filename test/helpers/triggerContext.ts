/**
 * Drives the trigger node through n8n-core's real HookContext (activation hooks) and
 * WebhookContext (deliveries), with static data handled as n8n handles it. `workflow` holds the
 * static data as saved (n8n's database). Each hook runs on a copy loaded from it, saved back only
 * when the hook returns: n8n 1.x (and 2.x without its publication service) drops what a throwing
 * create() wrote, then calls delete() on a fresh copy and saves that (`activate`). `prepareDelivery`
 * does what n8n's webhook server does per request: load a copy, run webhook(), save it.
 */
import { HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { CampaignCallingTrigger } from '../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { SECRET_HEADER } from '../../nodes/CampaignCallingTrigger/delivery';
import type { Simulator } from '../simulator/server.ts';
import { additionalDataFor, nodeTypesFor, type CredentialData } from './n8nContext.ts';

export const WEBHOOK_BASE_URL = 'http://127.0.0.1:5678/webhook';
export const WEBHOOK_ID = '0b5c4f8e-2d1a-4c3b-9e7f-6a5b4c3d2e1f';

export interface DeliveryRequest {
	headers?: Record<string, string>;
	body?: unknown;
	/** The bytes as received; defaults to JSON of `body`. */
	raw?: string;
	/** 'manual' for a delivery to the test URL (the editor's "Listen for test event"). */
	mode?: WorkflowExecuteMode;
}

/** What a restarted n8n process starts from: the saved static data, a freshly loaded node type. */
export interface RestoredTrigger {
	workflowId: string;
	staticData: IDataObject;
	nodeType: CampaignCallingTrigger;
}

let workflowCount = 0;

export interface DeliveryOutcome {
	result: IWebhookResponseData;
	/** What the node itself answered through the response object, if it did. */
	statusCode?: number;
	json?: unknown;
}

export class TriggerHarness {
	readonly nodeType: CampaignCallingTrigger;

	readonly node: INode;

	readonly workflow: Workflow;

	private readonly credentials: CredentialData;

	private readonly webhookBaseUrl: string;

	constructor(
		parameters: IDataObject,
		credentials: CredentialData,
		webhookBaseUrl = WEBHOOK_BASE_URL,
		restored?: RestoredTrigger,
	) {
		this.credentials = credentials;
		this.webhookBaseUrl = webhookBaseUrl;
		this.nodeType = restored?.nodeType ?? new CampaignCallingTrigger();
		this.node = {
			id: 'trigger-under-test',
			name: 'Campaign Calling Trigger',
			type: 'n8n-nodes-campaign-calling.campaignCallingTrigger',
			typeVersion: 1.1,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			parameters: parameters as INode['parameters'],
			credentials: { campaignCallingApi: { id: 'credential-1', name: 'Campaign Calling account' } },
		};
		// Each harness is its own workflow, as two workflows in one n8n process are.
		this.workflow = this.workflowWith(restored?.workflowId ?? `trigger-workflow-${++workflowCount}`, restored?.staticData ?? {});
	}

	private workflowWith(id: string, staticData: IDataObject): Workflow {
		return new Workflow({
			id,
			name: 'Trigger test',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: nodeTypesFor(this.nodeType),
			staticData: structuredClone(staticData),
		});
	}

	/** The static data as n8n would have saved it, for a harness standing in for a restarted n8n. */
	savedStaticData(): IDataObject {
		return JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	/** Changes the node's parameters, as a user editing the workflow would. */
	setParameters(parameters: IDataObject): void {
		this.node.parameters = parameters as INode['parameters'];
	}

	get webhookUrl(): string {
		return `${this.webhookBaseUrl}/${WEBHOOK_ID}/webhook`;
	}

	get staticData(): IDataObject {
		return this.workflow.getStaticData('node', this.node);
	}

	private additionalData() {
		const data = additionalDataFor(this.credentials);
		data.webhookBaseUrl = this.webhookBaseUrl;
		return data;
	}

	private webhookData(additionalData: IWorkflowExecuteAdditionalData, workflow = this.workflow): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: `${WEBHOOK_ID}/webhook`,
			webhookDescription: this.nodeType.description.webhooks![0],
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: WEBHOOK_ID,
		};
	}

	private hookContext(workflow: Workflow, activation: WorkflowActivateMode = 'activate'): HookContext {
		const additionalData = this.additionalData();
		return new HookContext(workflow, this.node, additionalData, 'trigger', activation, this.webhookData(additionalData, workflow));
	}

	async checkExists(): Promise<boolean> {
		return await this.runHooks(async (context) => await this.hooks.checkExists.call(context));
	}

	async create(): Promise<boolean> {
		return await this.runHooks(async (context) => await this.hooks.create.call(context));
	}

	/** What n8n does on deactivation. */
	async delete(): Promise<boolean> {
		return await this.runHooks(async (context) => await this.hooks.delete.call(context));
	}

	/**
	 * What n8n 1.x does on activation: create only when checkExists says the webhook is missing, on a
	 * copy of the saved static data, saved only if both return. When one throws, n8n calls delete()
	 * on a copy freshly loaded from the database and saves it, then fails the activation.
	 */
	async activate(): Promise<void> {
		try {
			await this.runHooks(async (context) => {
				if (!(await this.hooks.checkExists.call(context))) await this.hooks.create.call(context);
			});
		} catch (error) {
			await this.delete();
			throw error;
		}
	}

	private get hooks() {
		return this.nodeType.webhookMethods.default;
	}

	/** Runs hooks on a copy of the saved static data; the copy is saved only if they return. */
	private async runHooks<T>(hooks: (context: HookContext) => Promise<T>): Promise<T> {
		const loaded = this.workflowWith(this.workflow.id, this.savedStaticData());
		const result = await hooks(this.hookContext(loaded));
		if (loaded.staticData.__dataChanged === true) this.workflow.staticData = loaded.staticData;
		return result;
	}

	/** Runs `webhook()` for one delivery, as n8n's webhook server would. */
	async deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
		return await this.runWebhook(this.workflow, request);
	}

	/**
	 * Loads a copy of the saved static data now, as n8n does when a request arrives; `run()` then
	 * runs webhook() on that copy and saves it over the stored one (the last save wins, as in n8n).
	 * Preparing two deliveries before running either is two requests handled at the same time.
	 */
	prepareDelivery(request: DeliveryRequest): { run(): Promise<DeliveryOutcome> } {
		const requestWorkflow = this.workflowWith(this.workflow.id, this.savedStaticData());
		return {
			run: async () => {
				const outcome = await this.runWebhook(requestWorkflow, request);
				if (requestWorkflow.staticData.__dataChanged === true) {
					this.workflow.staticData = requestWorkflow.staticData;
				}
				return outcome;
			},
		};
	}

	private async runWebhook(workflow: Workflow, request: DeliveryRequest): Promise<DeliveryOutcome> {
		const raw = request.raw ?? (request.body === undefined ? '' : JSON.stringify(request.body));
		const headers: Record<string, string> = {
			'content-type': 'application/json',
			'content-length': String(Buffer.byteLength(raw)),
			...lowerCaseKeys(request.headers ?? {}),
		};
		let parsed: unknown = {};
		try {
			parsed = raw === '' ? {} : JSON.parse(raw);
		} catch {
			parsed = {};
		}
		const outcome: { statusCode?: number; json?: unknown } = {};
		const response = {
			status(code: number) {
				outcome.statusCode = code;
				return response;
			},
			json(body: unknown) {
				outcome.json = body;
				return response;
			},
			send(body: unknown) {
				outcome.json = body;
				return response;
			},
			end() {
				return response;
			},
		};
		const httpRequest = { headers, body: parsed, rawBody: Buffer.from(raw), query: {}, params: {} };
		const additionalData = this.additionalData();
		Object.assign(additionalData, { httpRequest, httpResponse: response });
		const context = new WebhookContext(
			workflow,
			this.node,
			additionalData,
			request.mode ?? 'webhook',
			this.webhookData(additionalData, workflow),
			[],
			null,
		);
		const result = await this.nodeType.webhook.call(context);
		return { result, ...outcome };
	}
}

/** The modules the service holds for `url`, oldest first: event type, id and the secret each sends. */
export function modulesFor(simulator: Simulator, url: string): Array<{ event: string; id: string; secret: string }> {
	return [...simulator.state.webhookModules.values()]
		.map(({ record }) => record)
		.filter((record) => record.settings.url === url)
		.map((record) => ({ event: record.event_type, id: record.id, secret: record.settings.headers[SECRET_HEADER] }));
}

/** The secret of the newest module for `url`: the one every module of the latest activation sends. */
export function moduleSecret(simulator: Simulator, url: string): string {
	const newest = modulesFor(simulator, url).at(-1);
	if (newest === undefined) throw new Error(`The service holds no module for ${url}`);
	return newest.secret;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
