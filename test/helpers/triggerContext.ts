/**
 * Drives the trigger node through n8n-core's real HookContext (activation hooks) and
 * WebhookContext (deliveries). The Workflow object keeps its static data between calls, as n8n
 * keeps a workflow's static data between activations.
 */
import { HookContext, WebhookContext } from 'n8n-core';
import type { IDataObject, INode, IWebhookData, IWebhookResponseData, IWorkflowExecuteAdditionalData, WorkflowActivateMode } from 'n8n-workflow';
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
}

export interface DeliveryOutcome {
	result: IWebhookResponseData;
	/** What the node itself answered through the response object, if it did. */
	statusCode?: number;
	json?: unknown;
}

export class TriggerHarness {
	readonly nodeType = new CampaignCallingTrigger();

	readonly node: INode;

	readonly workflow: Workflow;

	private readonly credentials: CredentialData;

	private readonly webhookBaseUrl: string;

	constructor(parameters: IDataObject, credentials: CredentialData, webhookBaseUrl = WEBHOOK_BASE_URL) {
		this.credentials = credentials;
		this.webhookBaseUrl = webhookBaseUrl;
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
		this.workflow = new Workflow({
			id: 'trigger-workflow',
			name: 'Trigger test',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: nodeTypesFor(this.nodeType),
			staticData: {},
		});
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

	private webhookData(additionalData: IWorkflowExecuteAdditionalData): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: `${WEBHOOK_ID}/webhook`,
			webhookDescription: this.nodeType.description.webhooks![0],
			workflowId: this.workflow.id,
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
		const context = new WebhookContext(this.workflow, this.node, additionalData, 'webhook', this.webhookData(additionalData), [], null);
		const result = await this.nodeType.webhook.call(context);
		return { result, ...outcome };
	}
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
