/**
 * The harness's workflow, credential and execution calls through the REST API the editor uses, with the
 * owner's session: for an n8n whose public API is off (1.x in its test mode, E2E_TESTS=true, which the
 * Community Nodes tests need for the custom-registry licence flag). Only what those tests call; 1.x's shapes.
 */
import { parse } from 'flatted';
import type { ApiResponse, Execution, ExecutionData, N8nApi } from './n8n.ts';
import type { WorkflowJson } from './workflows.ts';

type Rest = <T = unknown>(method: string, path: string, body?: unknown) => Promise<ApiResponse<T>>;

export type RestBackedCalls = Pick<N8nApi, 'createCredential' | 'createWorkflow' | 'activate' | 'deactivate' | 'deleteWorkflow' | 'listExecutions'>;

/** n8n's REST list caps its page here. */
const EXECUTIONS_PAGE = 100;

export function restBackedCalls(rest: Rest): RestBackedCalls {
	const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
		const response = await rest<{ data: T }>(method, path, body);
		if (response.status < 200 || response.status >= 300) {
			throw new Error(`${method} /rest${path}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 1000)}`);
		}
		return response.body.data;
	};
	const calls: RestBackedCalls = {
		async createCredential(name, type, data) {
			// 1.x checks this field on credential types that authenticate requests, as its public API requires it.
			return await ok('POST', '/credentials', { name, type, data: { allowedHttpRequestDomains: 'all', ...data } });
		},
		async createWorkflow(workflow: WorkflowJson) {
			// The editor sends `active` with a new workflow; 1.x's database column has no default.
			return await ok('POST', '/workflows', { active: false, ...workflow });
		},
		async activate(workflowId) {
			const { versionId } = await ok<{ versionId: string }>('GET', `/workflows/${workflowId}`);
			const activated = await ok<{ active: boolean }>('POST', `/workflows/${workflowId}/activate`, { versionId });
			if (!activated.active) throw new Error(`Activating workflow ${workflowId} left it inactive`);
		},
		async deactivate(workflowId) {
			await ok('POST', `/workflows/${workflowId}/deactivate`);
		},
		async deleteWorkflow(workflowId) {
			// Only an archived workflow can be deleted; archiving deactivates it.
			await ok('POST', `/workflows/${workflowId}/archive`);
			await ok('DELETE', `/workflows/${workflowId}`);
		},
		async listExecutions(workflowId, includeData = false) {
			const query = new URLSearchParams({ filter: JSON.stringify({ workflowId }), limit: String(EXECUTIONS_PAGE) });
			const page = await ok<{ results: Execution[] }>('GET', `/executions?${query}`);
			const executions = page.results.map((execution) => ({ ...execution, id: String(execution.id) })).sort((a, b) => Number(a.id) - Number(b.id));
			if (!includeData) return executions;
			return await Promise.all(
				executions.map(async (execution) => {
					// The editor's endpoint returns the run data serialised with flatted (it may hold cycles).
					const full = await ok<{ data: string }>('GET', `/executions/${execution.id}`);
					return { ...execution, data: parse(full.data) as ExecutionData };
				}),
			);
		},
	};
	return calls;
}
