/**
 * The harness itself, against each pinned n8n: the packed package loads, and a webhook-driven workflow
 * created and activated through the public API runs and answers with its last node's items.
 */
import { startN8n } from './harness/n8n.ts';
import type { N8nInstance } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import {
	ACTION_NODE_TYPE,
	CREDENTIAL_TYPE,
	setNode,
	splitOutNode,
	TRIGGER_NODE_TYPE,
	WEBHOOK_NODE_NAME,
	webhookDriven,
} from './harness/workflows.ts';

describeEachVersion('n8n %s', (version) => {
	let n8n: N8nInstance | undefined;

	beforeAll(async () => {
		n8n = await startN8n({ version, withPackage: true });
	});

	afterAll(async () => {
		await n8n?.stop();
	});

	const running = (): N8nInstance => {
		if (!n8n) throw new Error(`n8n ${version} did not start`);
		return n8n;
	};

	it('loads both nodes and the credential of the installed package', async () => {
		const { api } = running();
		const nodeTypes = (await api.nodeTypes()).map((type) => type.name);
		expect(nodeTypes).toEqual(expect.arrayContaining([ACTION_NODE_TYPE, TRIGGER_NODE_TYPE]));
		const credentialTypes = (await api.credentialTypes()).map((type) => type.name);
		expect(credentialTypes).toContain(CREDENTIAL_TYPE);
	});

	it('runs a Webhook → Set workflow created and activated through the public API', async () => {
		const { api } = running();
		const workflow = await api.createWorkflow(
			webhookDriven('smoke-set', [
				setNode('Set', { greeting: '={{ "hello " + $json.body.name }}', count: 3, enabled: true, nested: { a: 1 } }),
			]),
		);
		try {
			await api.activate(workflow.id);

			const reply = await api.callWebhook('smoke-set', { name: 'world' });

			expect(reply).toEqual({ status: 200, body: [{ greeting: 'hello world', count: 3, enabled: true, nested: { a: 1 } }] });
			const [execution] = await api.waitForExecutions(workflow.id, 1);
			expect(execution.status).toBe('success');
			expect(Object.keys(execution.data?.resultData.runData ?? {})).toEqual([WEBHOOK_NODE_NAME, 'Set']);
		} finally {
			await api.deleteWorkflow(workflow.id);
		}
	});

	it('answers 404 on the webhook of a deactivated workflow', async () => {
		const { api } = running();
		const workflow = await api.createWorkflow(webhookDriven('smoke-off', [setNode('Set', { on: true })]));
		try {
			await api.activate(workflow.id);
			expect((await api.callWebhook('smoke-off', {})).status).toBe(200);

			await api.deactivate(workflow.id);

			expect((await api.callWebhook('smoke-off', {})).status).toBe(404);
		} finally {
			await api.deleteWorkflow(workflow.id);
		}
	});

	it('turns a posted array into one item each (Split Out), as node cases feeding many items do', async () => {
		const { api } = running();
		const workflow = await api.createWorkflow(
			webhookDriven('smoke-split', [splitOutNode('Split Out', 'body.contacts'), setNode('Set', { phone: '={{ $json.phone }}' })]),
		);
		try {
			await api.activate(workflow.id);

			const reply = await api.callWebhook('smoke-split', { contacts: [{ phone: '+1' }, { phone: '+2' }] });

			expect(reply.body).toEqual([{ phone: '+1' }, { phone: '+2' }]);
		} finally {
			await api.deleteWorkflow(workflow.id);
		}
	});
});
