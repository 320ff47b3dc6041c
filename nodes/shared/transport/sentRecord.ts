import { createHash } from 'crypto';
import type { IExecuteData, IExecuteFunctions, INode } from 'n8n-workflow';

// Retry On Fail runs the node again; a write recorded here is not sent twice (ARCHITECTURE.md, "Retry On Fail").
// Keyed weakly by n8n's execute data, the one object every try of a run shares.
const answersByRun = new WeakMap<IExecuteData, Map<string, unknown>>();

/** Under Retry On Fail, the answer an earlier try of this run got for the same write, or where to keep this one's. */
export function sentRecordEntry(
	context: { getNode(): INode },
	request: { sendOnceAs?: string; method: string; path: string; qs?: unknown; body?: unknown },
): { answered: boolean; answer: unknown; keep(answer: unknown): void } | undefined {
	const node = context.getNode();
	if (request.sendOnceAs === undefined || node.retryOnFail !== true || !('getExecuteData' in context)) return undefined;
	const run = (context as IExecuteFunctions).getExecuteData();
	const answers = answersByRun.get(run) ?? new Map<string, unknown>();
	answersByRun.set(run, answers);
	// The node's name is part of the key: as an AI tool, every tool gets the agent's execute data.
	const { method, path, qs, body } = request;
	const key = createHash('sha256').update(JSON.stringify([node.name, request.sendOnceAs, method, path, qs, body])).digest('base64url');
	return { answered: answers.has(key), answer: answers.get(key), keep: (answer) => answers.set(key, answer) };
}
