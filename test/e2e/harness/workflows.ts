/** Builders for the workflow JSON the public API takes, in the shape n8n stores. */
import { randomUUID } from 'node:crypto';

export const PACKAGE_NAME = 'n8n-nodes-campaign-calling';
export const ACTION_NODE_TYPE = `${PACKAGE_NAME}.campaignCalling`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.campaignCallingTrigger`;
export const CREDENTIAL_TYPE = 'campaignCallingApi';
export const WEBHOOK_NODE_NAME = 'Webhook';
export const TRIGGER_NODE_NAME = 'Campaign Calling Trigger';

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, CredentialRef>;
	webhookId?: string;
	/** The node's Settings > On Error: 'continueRegularOutput' is the editor's "Continue" (Continue On Fail). */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
}

export interface CredentialRef {
	id: string;
	name: string;
}

export type Connections = Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;

export interface WorkflowJson {
	name: string;
	nodes: WorkflowNode[];
	connections: Connections;
	settings: Record<string, unknown>;
}

export function node(
	name: string,
	type: string,
	typeVersion: number,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode {
	return { id: randomUUID(), name, type, typeVersion, position: [0, 0], parameters, ...extra };
}

/** The action node (version 1) with the given parameters, using a campaignCallingApi credential. */
export function campaignCallingNode(name: string, parameters: Record<string, unknown>, credential: CredentialRef): WorkflowNode {
	return node(name, ACTION_NODE_TYPE, 1, parameters, { credentials: { [CREDENTIAL_TYPE]: credential } });
}

/** The trigger node (version 2); its webhookId is part of its production URL: `webhook/<webhookId>/<path>`. */
export function campaignCallingTriggerNode(
	events: string[],
	credential: CredentialRef,
	options: Record<string, unknown> = {},
	name = TRIGGER_NODE_NAME,
): WorkflowNode {
	return node(name, TRIGGER_NODE_TYPE, 2, { events, options }, {
		credentials: { [CREDENTIAL_TYPE]: credential },
		webhookId: randomUUID(),
	});
}

type FieldValue = string | number | boolean | Record<string, unknown> | unknown[];

/** A core Set node (3.4, known to 1.x and 2.x) that outputs only the given fields; values may be expressions. */
export function setNode(name: string, fields: Record<string, FieldValue>): WorkflowNode {
	const assignments = Object.entries(fields).map(([field, value]) => ({
		id: randomUUID(),
		name: field,
		type: Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value,
		value: typeof value === 'object' ? JSON.stringify(value) : value,
	}));
	return node(name, 'n8n-nodes-base.set', 3.4, {
		mode: 'manual',
		assignments: { assignments },
		includeOtherFields: false,
		options: {},
	});
}

/** A core Split Out node: one item per element of the array at `field` (e.g. 'body.contacts' after a Webhook). */
export function splitOutNode(name: string, field: string): WorkflowNode {
	return node(name, 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: field, include: 'noOtherFields', options: {} });
}

/** Connects the nodes one after the other, each one's first output to the next one's input. */
export function chain(names: string[]): Connections {
	const connections: Connections = {};
	for (let index = 0; index < names.length - 1; index++) {
		connections[names[index]] = { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/**
 * A Webhook node in front of the nodes under test: a POST to `<webhookUrl>webhook/<path>` runs the workflow
 * (once it is active) and answers with the last node's items as a JSON array. Without `connections` the
 * nodes run in the given order; with it, the Webhook still feeds the first node.
 */
export function webhookDriven(path: string, nodes: WorkflowNode[], connections?: Connections): WorkflowJson {
	const webhook = node(
		WEBHOOK_NODE_NAME,
		'n8n-nodes-base.webhook',
		2,
		{ httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
		{ webhookId: randomUUID() },
	);
	const all = [webhook, ...nodes];
	const wiring = connections
		? { ...chain([WEBHOOK_NODE_NAME, nodes[0].name]), ...connections }
		: chain(all.map((each) => each.name));
	return workflow(`e2e ${path}`, all, wiring);
}

/** A workflow started by the package's trigger, optionally followed by more nodes in a row. */
export function triggerWorkflow(name: string, trigger: WorkflowNode, after: WorkflowNode[] = []): WorkflowJson {
	const all = [trigger, ...after];
	return workflow(name, all, chain(all.map((each) => each.name)));
}

export function workflow(name: string, nodes: WorkflowNode[], connections: Connections): WorkflowJson {
	// Laid out left to right, as the editor would show them.
	const placed = nodes.map((each, index) => ({ ...each, position: [index * 240, 0] as [number, number] }));
	return { name, nodes: placed, connections, settings: { executionOrder: 'v1' } };
}
