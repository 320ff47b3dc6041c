/**
 * Drives the trigger node through n8n-core's real HookContext (activation hooks) and
 * WebhookContext (deliveries). The Workflow object keeps its static data between calls, as n8n
 * keeps a workflow's static data between activations. `prepareDelivery` instead does what n8n's
 * webhook server does per request: load a copy of the saved static data, run webhook(), save it.
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

	private hookContext(activation: WorkflowActivateMode = 'activate'): HookContext {
		const additionalData = this.additionalData();
		return new HookContext(this.workflow, this.node, additionalData, 'trigger', activation, this.webhookData(additionalData));
	}

	async checkExists(): Promise<boolean> {
		return await this.nodeType.webhookMethods.default.checkExists.call(this.hookContext());
	}

	async create(): Promise<boolean> {
		return await this.nodeType.webhookMethods.default.create.call(this.hookContext());
	}

	async delete(): Promise<boolean> {
		return await this.nodeType.webhookMethods.default.delete.call(this.hookContext());
	}

	/** What n8n does on activation: create only when checkExists says the webhook is missing. */
	async activate(): Promise<void> {
		if (!(await this.checkExists())) await this.create();
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

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
