/** The action node run between its outputs, as the On Error cases (error items, Retry On Fail) need it. */
import type { Execution, N8nInstance } from './n8n.ts';
import { node, splitOutNode, webhookDriven, type Connections, type WorkflowNode } from './workflows.ts';

export type OnError = NonNullable<WorkflowNode['onError']>;

/**
 * Webhook → Split Out (body.items) → `action`; its output 0 feeds "Sent", and with "Continue (using
 * error output)" its error output feeds "Failed". Activates the workflow, calls it once with `items`,
 * returns the execution and deletes the workflow.
 */
export async function runBetweenOutputs(n8n: N8nInstance, path: string, action: WorkflowNode, items: unknown[]): Promise<Execution> {
	const sent = node('Sent', 'n8n-nodes-base.noOp', 1, {});
	const failed = node('Failed', 'n8n-nodes-base.noOp', 1, {});
	const outputs = [[{ node: 'Sent', type: 'main' as const, index: 0 }]];
	if (action.onError === 'continueErrorOutput') outputs.push([{ node: 'Failed', type: 'main' as const, index: 0 }]);
	const connections: Connections = {
		Items: { main: [[{ node: action.name, type: 'main', index: 0 }]] },
		[action.name]: { main: outputs },
	};
	const workflow = await n8n.api.createWorkflow(webhookDriven(path, [splitOutNode('Items', 'body.items'), action, sent, failed], connections));
	try {
		await n8n.api.activate(workflow.id);
		await n8n.api.callWebhook(path, { items });
		const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
		return execution;
	} finally {
		await n8n.api.deleteWorkflow(workflow.id);
	}
}
