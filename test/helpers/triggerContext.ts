/**
 * Drives the trigger node through n8n-core's real HookContext (activation hooks), WebhookContext
 * (deliveries) and ExecuteContext (the execution a delivery starts, with the trigger as its first
 * node), with static data handled as n8n handles it. `workflow` holds the static data as saved
 * (n8n's database). Each hook runs on a copy loaded from it, saved back only when the hook returns:
 * n8n 1.x (and 2.x without its publication service) drops what a throwing create() wrote, then calls
 * delete() on a fresh copy and saves that (`activate`). Executions record repeat keys in n8n's
 * deduplication store (test/helpers/processedData.ts), which outlives a harness as n8n's database
 * outlives a restart.
 */
import { EventEmitter } from 'node:events';

import { ExecuteContext, HookContext, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	IExecuteResponsePromiseData,
	INode,
	INodeExecutionData,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow, createRunExecutionData } from 'n8n-workflow';

import { CampaignCallingTrigger } from '../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';
import { SECRET_HEADER } from '../../nodes/CampaignCallingTrigger/delivery';
import type { Simulator } from '../simulator/server.ts';
import { additionalDataFor, nodeTypesFor, type CredentialData } from './n8nContext.ts';
import { processedDataStore } from './processedData.ts';

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
	/** The node's name now, when the user renamed it; its id stays. */
	nodeName?: string;
}

/** What a restart may bring: the node renamed, another credential, another webhook URL, other parameters. */
export interface RestartChanges {
	/** Static data as n8n loads it; default as this harness saved it. */
	staticData?: IDataObject;
	nodeName?: string;
	credentials?: CredentialData;
	webhookBaseUrl?: string;
	parameters?: IDataObject;
	/** The node type of another workflow in the same restarted process, which shares its memory. */
	nodeType?: CampaignCallingTrigger;
}

/** The trigger in a restarted n8n: the node's code loaded afresh (nothing in memory), static data as saved. */
export function restartedTrigger(trigger: TriggerHarness, changes: RestartChanges = {}): TriggerHarness {
	let nodeType = changes.nodeType;
	if (!nodeType) jest.isolateModules(() => {
		const loaded = require('../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node') as { CampaignCallingTrigger: typeof CampaignCallingTrigger };
		nodeType = new loaded.CampaignCallingTrigger();
	});
	return new TriggerHarness(changes.parameters ?? trigger.node.parameters, changes.credentials ?? trigger.credentialData, changes.webhookBaseUrl ?? trigger.webhookBase, {
		workflowId: trigger.workflow.id as string,
		staticData: changes.staticData ?? trigger.savedStaticData(),
		nodeType: nodeType as CampaignCallingTrigger,
		nodeName: changes.nodeName ?? trigger.node.name,
	});
}

let workflowCount = 0;
let executionCount = 0;

/** The answer an execution gives its delivery through sendResponse. */
export interface ExecutionAnswer {
	statusCode: number;
	json: unknown;
}

export interface DeliveryOutcome {
	/** What webhook() returned. */
	result: IWebhookResponseData;
	/** The answer the sender gets: from webhook() (its response object or webhookResponse) or from execute(). */
	statusCode?: number;
	json?: unknown;
	/** Whether n8n would have created an execution (webhook() passed items on). */
	executed: boolean;
	/** What the trigger passed to the next node in that execution; undefined without an execution. */
	output?: INodeExecutionData[];
}

export class TriggerHarness {
	readonly nodeType: CampaignCallingTrigger;

	readonly node: INode;

	readonly workflow: Workflow;

	private credentials: CredentialData;

	private webhookBaseUrl: string;

	/**
	 * What happened to this trigger's deliveries, in order: each write to its row in n8n's deduplication
	 * store as it ends ('keys recorded', 'recording failed', 'keys removed', whichever harness of the
	 * same workflow and node wrote), each answer an execution sent ('execution answered 200') and each
	 * answer n8n sent for an execution that failed before answering ('n8n answered 500').
	 */
	readonly events: string[] = [];

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
			name: restored?.nodeName ?? 'Campaign Calling Trigger',
			type: 'n8n-nodes-campaign-calling.campaignCallingTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: WEBHOOK_ID,
			parameters: parameters as INode['parameters'],
			credentials: { campaignCallingApi: { id: 'credential-1', name: 'Campaign Calling account' } },
		};
		// Each harness is its own workflow, as two workflows in one n8n process are.
		this.workflow = this.workflowWith(restored?.workflowId ?? `trigger-workflow-${++workflowCount}`, restored?.staticData ?? {});
		processedDataStore().watch(this.workflow.id, this.node.id, (event) => this.events.push(event));
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

	get credentialData(): CredentialData {
		return this.credentials;
	}

	get webhookBase(): string {
		return this.webhookBaseUrl;
	}

	/** Points the node at other credential data: another credential, or the same one edited. */
	setCredentials(credentials: CredentialData): void {
		this.credentials = credentials;
	}

	/** Changes n8n's webhook URL, as an admin does in n8n's settings. */
	setWebhookBaseUrl(webhookBaseUrl: string): void {
		this.webhookBaseUrl = webhookBaseUrl;
	}

	/** Changes the node's parameters, as a user editing the workflow would. */
	setParameters(parameters: IDataObject): void {
		this.node.parameters = parameters as INode['parameters'];
	}

	get webhookUrl(): string {
		return `${this.webhookBaseUrl}/${WEBHOOK_ID}/webhook`;
	}

	/** The trigger's own part of the workflow's static data, where it keeps its module records (by workflow and node id). */
	get staticData(): IDataObject {
		return (this.workflow.getStaticData('global')[`campaignCallingTrigger:${this.workflow.id}:${this.node.id}`] ?? {}) as IDataObject;
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

	/**
	 * One delivery as n8n handles it (n8n 2.41.1, `webhooks/webhook-helpers.js`, `executeWebhook`):
	 * webhook(), then, when it passes items on, the execution's first node, execute(). Who answers
	 * the sender follows the responseMode the node declares, as in n8n: with 'responseNode' only
	 * execute()'s sendResponse; with 'onReceived' n8n itself, as soon as the execution is created,
	 * with webhook()'s webhookResponse or its own message (a sendResponse then reaches no one).
	 */
	async deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
		const taken = await this.take(request);
		return taken.executed ? await taken.run() : taken.outcome();
	}

	/**
	 * webhook() alone, as n8n runs it when a delivery arrives; for a delivery that starts an execution,
	 * run() is that execution, which a test may hold back as n8n's full queue does. A retry that
	 * webhook() holds resolves only when the earlier execution answers, or when hangUp() is called.
	 */
	async take(request: DeliveryRequest, response = new FakeResponse()): Promise<TakenDelivery> {
		const result = await this.runWebhook(this.workflow, request, response);
		const items = result.workflowData?.[0];
		const answerOf = () => ({ statusCode: response.statusCode, json: response.body });
		if (items === undefined) {
			// n8n sends webhookResponse itself when the node did not answer on its own.
			if (result.noWebhookResponse !== true && !response.writableEnded) response.status(200).json(result.webhookResponse);
			return { result, response, executed: false, outcome: () => ({ result, ...answerOf(), executed: false }), run: rejectRun };
		}
		if (this.declaredResponseMode() === 'onReceived') {
			// n8n answers as soon as it created the execution; a sendResponse from execute() then reaches no one.
			response.status(200).json(result.webhookResponse ?? { message: 'Workflow was started' });
		}
		const run = async (): Promise<DeliveryOutcome> => {
			// n8n sends the node's answer as the node gives it (sendResponse), not when the execution ends.
			const send = (answer: ExecutionAnswer) => {
				if (!response.writableEnded) response.status(answer.statusCode).json(answer.json);
			};
			try {
				const execution = await this.execute(items, request.mode ?? 'webhook', this.executionCancel.signal, send);
				return { result, ...answerOf(), executed: true, output: execution.output };
			} catch (error) {
				// What n8n answers when the execution fails before the node answered.
				if (!response.writableEnded) {
					response.status(500).json({ message: 'Error in workflow' });
					this.events.push('n8n answered 500');
				}
				throw error;
			}
		};
		return { result, response, executed: true, outcome: () => ({ result, ...answerOf(), executed: true }), run };
	}

	/** The webhook's responseMode as n8n reads it: 'onReceived' when the node declares none. */
	private declaredResponseMode(): 'onReceived' | 'responseNode' {
		const declared = this.nodeType.description.webhooks?.[0]?.responseMode ?? 'onReceived';
		if (declared !== 'onReceived' && declared !== 'responseNode') {
			throw new Error(`The harness models responseMode 'onReceived' and 'responseNode', not ${JSON.stringify(declared)}`);
		}
		return declared;
	}

	/** The cancel signal of the executions this harness runs: abort() it as n8n does when it cancels one. */
	executionCancel = new AbortController();

	/**
	 * The static data an execution starts from: a copy of the saved data (n8n in one process, 1.x's workers), or
	 * none ('empty': n8n 2.x's queue-mode workers, whose execution snapshot drops it).
	 */
	executionStaticData: 'saved' | 'empty' = 'saved';

	/** A node after the trigger, run on the execution's global static data (a Code node's $getWorkflowStaticData). */
	laterNode?: (global: IDataObject) => void;

	/**
	 * Runs execute() as n8n runs a trigger that has one, over the items webhook() passed on; `onAnswer`
	 * gets the node's answer (sendResponse) at the moment the node gives it.
	 */

	async execute(
		items: INodeExecutionData[],
		mode: WorkflowExecuteMode = 'webhook',
		cancelSignal = this.executionCancel.signal,
		onAnswer?: (answer: ExecutionAnswer) => void,
		executionId?: string,
	): Promise<{ answer: { statusCode?: number; json?: unknown }; output: INodeExecutionData[] }> {
		processedDataStore();
		const answer: { statusCode?: number; json?: unknown } = {};
		const additionalData = this.additionalData();
		// Each execution n8n runs has its own id; a re-run of one (n8n 1.x's stalled-job recovery) keeps it.
		additionalData.executionId = executionId ?? `trigger-execution-${++executionCount}`;
		additionalData.hooks = {
			runHook: async (name: string, [response]: [IExecuteResponsePromiseData]) => {
				if (name !== 'sendResponse' || answer.statusCode !== undefined) return;
				const sent = { statusCode: Number(response.statusCode ?? 200), json: response.body as unknown };
				Object.assign(answer, sent);
				this.events.push(`execution answered ${sent.statusCode}`);
				onAnswer?.(sent);
			},
		} as unknown as IWorkflowExecuteAdditionalData['hooks'];
		// As n8n: the execution runs on a copy, written back whole at its end only when a node changed it.
		const running = this.workflowWith(this.workflow.id as string, this.executionStaticData === 'saved' ? this.savedStaticData() : {});
		const context = new ExecuteContext(
			running,
			this.node,
			additionalData,
			mode,
			createRunExecutionData(),
			0,
			items,
			{ main: [items] },
			{ node: this.node, data: { main: [items] }, source: null },
			[],
			cancelSignal,
		);
		const [output] = await this.nodeType.execute.call(context);
		this.laterNode?.(running.getStaticData('global'));
		if (running.staticData.__dataChanged === true) this.workflow.staticData = running.staticData;
		return { answer, output };
	}

	private async runWebhook(workflow: Workflow, request: DeliveryRequest, response: FakeResponse): Promise<IWebhookResponseData> {
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
		return await this.nodeType.webhook.call(context);
	}
}

async function rejectRun(): Promise<DeliveryOutcome> {
	throw new Error('This delivery started no execution');
}

export interface TakenDelivery {
	/** What webhook() returned. */
	result: IWebhookResponseData;
	response: FakeResponse;
	/** Whether n8n would create an execution (webhook() passed items on). */
	executed: boolean;
	/** The answer so far. */
	outcome: () => DeliveryOutcome;
	/** The execution: execute(), then n8n's answer through the response. */
	run: () => Promise<DeliveryOutcome>;
}

/**
 * The parts of Express's response that the trigger and n8n use: status, json/send and end (which n8n
 * calls to answer, also after the sender hung up), 'close' when the answer is written or the connection goes.
 */
export class FakeResponse extends EventEmitter {
	statusCode = 200;

	body: unknown;

	writableEnded = false;

	closed = false;

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	json(body: unknown): this {
		this.body = body;
		// As Express's res.json does: the serialized body goes out through end().
		return this.end(JSON.stringify(body));
	}

	send(body: unknown): this {
		return this.json(body);
	}

	end(_chunk?: unknown): this {
		if (this.writableEnded) return this;
		this.writableEnded = true;
		// As Node's response does once the answer is written (a moment later): 'close', which is no hang-up.
		setImmediate(() => this.emitCloseOnce());
		return this;
	}

	/** The sender stops waiting (its timeout), as a closed connection tells Express. */
	hangUp(): void {
		this.closed = true;
		this.emitCloseOnce();
	}

	private closeEmitted = false;

	/** Node emits a response's 'close' once, whether the answer was written or the connection went first. */
	private emitCloseOnce(): void {
		if (this.closeEmitted) return;
		this.closeEmitted = true;
		this.emit('close');
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
