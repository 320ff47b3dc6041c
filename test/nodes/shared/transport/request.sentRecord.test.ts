import { setFlagsFromString } from 'v8';
import { runInNewContext } from 'vm';
import type { IExecuteData, IExecuteFunctions, INode } from 'n8n-workflow';

import { sentRecordEntry } from '../../../../nodes/shared/transport/request';

/** Requests as operations make them: named by `sendOnceAs` when each send creates something, unnamed when it repeats harmlessly. */
const CREATES = true;
const READS = false;

/** What serviceRequest does with a request: takes the answer recorded for it, or sends and records the answer. */
function sendOnceFor(context: IExecuteFunctions, createsOnEachSend: boolean) {
	return async <Answer>(unit: string, content: unknown, send: () => Promise<Answer>): Promise<Answer> => {
		const entry = sentRecordEntry(context, { sendOnceAs: createsOnEachSend ? unit : undefined, method: 'POST', path: '/v1/modules/webhook', body: content });
		if (entry?.answered) return entry.answer as Answer;
		const answer = await send();
		entry?.keep(answer);
		return answer;
	};
}

/** A run of the node as n8n identifies it to each try: its execute data object. */
function newRun(): IExecuteData {
	return { data: { main: [[]] }, node: {} as INode, source: null };
}

/** What n8n hands one try of a run. */
function tryOf(run: IExecuteData, node: Partial<INode> = {}): IExecuteFunctions {
	return {
		getNode: () => ({ name: 'Campaign Calling', retryOnFail: true, ...node }) as INode,
		getExecuteData: () => run,
	} as unknown as IExecuteFunctions;
}

/** A send that counts its calls and answers with the call's number, or fails while `failing` says so. */
function countingSend(failing: () => boolean = () => false) {
	const sender = {
		calls: 0,
		send: async () => {
			sender.calls++;
			if (failing()) throw new Error('refused');
			return { call: sender.calls };
		},
	};
	return sender;
}

describe('sentRecordEntry', () => {
	it('a send that failed is not recorded: the next try sends it again, and a later one takes its answer', async () => {
		const run = newRun();
		let refuse = true;
		const sender = countingSend(() => refuse);
		await expect(sendOnceFor(tryOf(run), CREATES)('batch 0', ['campaign', ['Ada']], sender.send)).rejects.toThrow('refused');
		refuse = false;
		expect(await sendOnceFor(tryOf(run), CREATES)('batch 0', ['campaign', ['Ada']], sender.send)).toEqual({ call: 2 });
		expect(await sendOnceFor(tryOf(run), CREATES)('batch 0', ['campaign', ['Ada']], sender.send)).toEqual({ call: 2 });
		expect(sender.calls).toBe(2);
	});

	it('a later try of the same run takes the recorded answer and sends nothing', async () => {
		const run = newRun();
		const sender = countingSend();
		const first = await sendOnceFor(tryOf(run), CREATES)('item 1', { eventType: 'call.ended' }, sender.send);
		const second = await sendOnceFor(tryOf(run), CREATES)('item 1', { eventType: 'call.ended' }, sender.send);
		expect(second).toBe(first);
		expect(sender.calls).toBe(1);
	});

	it('sends again when the unit, its content or the node differs', async () => {
		const run = newRun();
		const sender = countingSend();
		await sendOnceFor(tryOf(run), CREATES)('item 1', { url: 'https://a.example.com' }, sender.send);
		await sendOnceFor(tryOf(run), CREATES)('item 2', { url: 'https://a.example.com' }, sender.send);
		// An expression that came out differently on this try ($now): other content, so it is sent.
		await sendOnceFor(tryOf(run), CREATES)('item 1', { url: 'https://b.example.com' }, sender.send);
		// Two tools of one AI agent share the agent's execute data; each node keeps its own record.
		await sendOnceFor(tryOf(run, { name: 'Other Tool' }), CREATES)('item 1', { url: 'https://a.example.com' }, sender.send);
		expect(sender.calls).toBe(4);
	});

	it('different runs (another execution, or another run of the node) share nothing', async () => {
		const sender = countingSend();
		await sendOnceFor(tryOf(newRun()), CREATES)('batch 0', ['campaign', ['Ada']], sender.send);
		await sendOnceFor(tryOf(newRun()), CREATES)('batch 0', ['campaign', ['Ada']], sender.send);
		expect(sender.calls).toBe(2);
	});

	it('without Retry On Fail, or for an operation whose sends repeat harmlessly, every send goes out', async () => {
		const run = newRun();
		const sender = countingSend();
		for (let i = 0; i < 2; i++) await sendOnceFor(tryOf(run, { retryOnFail: false }), CREATES)('batch 0', ['c', ['Ada']], sender.send);
		for (let i = 0; i < 2; i++) await sendOnceFor(tryOf(run, { retryOnFail: undefined }), CREATES)('batch 0', ['c', ['Ada']], sender.send);
		for (let i = 0; i < 2; i++) await sendOnceFor(tryOf(run), READS)('item 0', 'contact-id', sender.send);
		expect(sender.calls).toBe(6);
	});

	it('a run\'s record goes when n8n lets go of the run: nothing outlives it', async () => {
		setFlagsFromString('--expose-gc');
		const collectGarbage = runInNewContext('gc') as () => void;
		const recordedAnswer = await (async () => {
			const run = newRun();
			const answer = await sendOnceFor(tryOf(run), CREATES)('batch 0', ['campaign', ['Ada']], async () => ({ id: 'contact' }));
			return new WeakRef(answer);
		})();
		// A WeakRef keeps its target until the current job ends.
		await new Promise((resolve) => setImmediate(resolve));
		collectGarbage();
		expect(recordedAnswer.deref()).toBeUndefined();
	});
});
