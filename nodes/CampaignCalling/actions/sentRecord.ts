import { createHash } from 'crypto';
import type { IExecuteData, IExecuteFunctions } from 'n8n-workflow';

import type { Operation } from './types';

/*
 * With the node setting Retry On Fail, n8n runs the whole node again when it throws or, under Continue
 * On Fail, when its first output item carries `error` (n8n-core WorkflowExecute: runNode again, up to
 * Max Tries, in the same process). Every try would send again what an earlier try already did: contacts
 * added (and called) twice, modules created twice. So, for operations that create something on each
 * send, the router records what succeeded in this run of the node and a later try takes the recorded
 * answer instead of sending again; only what failed is sent again.
 *
 * A run is identified by n8n's execute data: each try of a run gets the same object (n8n 1.x and 2.x),
 * each run of a node and each execution a new one. It is held weakly, so a run's record goes when n8n
 * lets go of the run; nothing is timed and nothing outlives the execution. A record holds one answer per
 * item or batch that succeeded, no more than the run's own output. A WeakMap and not an argument: n8n
 * calls execute() afresh for each try, and its execute data is the only thing the tries share.
 */
const runs = new WeakMap<IExecuteData, Map<string, unknown>>();

/** Sends a unit of work (an item's request, a batch), or takes the answer an earlier try of this run got. */
type SendOnce = <Answer>(unit: string, content: unknown, send: () => Promise<Answer>) => Promise<Answer>;

const sendEachTime: SendOnce = async (_unit, _content, send) => await send();

/**
 * `unit` names the work within the run (`item 3`, `batch 0`); `content` is what is sent, so a try whose
 * parameters come out differently (an expression with $now) sends again rather than take an answer that
 * belongs to other content. Without Retry On Fail, or for an operation whose sends repeat harmlessly,
 * every send goes out.
 */
export function sendOnceFor(context: IExecuteFunctions, operation: Pick<Operation, 'createsOnEachSend'>): SendOnce {
	const node = context.getNode();
	if (node.retryOnFail !== true || !operation.createsOnEachSend) return sendEachTime;
	const run = context.getExecuteData();
	const recorded = runs.get(run) ?? new Map<string, unknown>();
	runs.set(run, recorded);
	return async <Answer>(unit: string, content: unknown, send: () => Promise<Answer>): Promise<Answer> => {
		// The node's name is part of the key: as an AI tool, n8n gives every tool the agent's execute data.
		const key = createHash('sha256').update(JSON.stringify([node.name, unit, content])).digest('base64url');
		if (recorded.has(key)) return recorded.get(key) as Answer;
		const answer = await send();
		recorded.set(key, answer);
		return answer;
	};
}
