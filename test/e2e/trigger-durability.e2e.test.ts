/**
 * The trigger over time, in real n8n: repeated deliveries are acknowledged and start nothing (Ignore
 * Repeats), and that memory survives a restart of n8n (same user folder and database); a restarted
 * n8n keeps accepting deliveries without registering anything new at the service; then 1,000
 * distinct deliveries at concurrency 25, with 200 forged ones mixed in, give exactly 1,000
 * executions, each with its own marker once; and two copies of one event sent at the same moment
 * start one execution.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import {
	SECRET_HEADER,
	FLOOD_TEST_TIMEOUT_MS,
	TRIGGER_FLOOD,
	countBy,
	executionsBeforeMarker,
	floodN8nEnv,
	floodTrigger,
	inPool,
	itemsOf,
	randomSecretLike,
	registeredSecret,
	sendDelivery,
	settledExecutions,
	settleMarker,
	triggerUrl,
	type DeliveryAnswer,
	type FloodDelivery,
	type TriggerFloodResult,
} from './harness/deliveries.ts';
import { createUserFolder, type Execution, type N8nInstance, nodeOutput, simulatorCredential, startN8n } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { SOAK_RUN, soakOnly } from './harness/soak.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, triggerWorkflow, type CredentialRef, type WorkflowNode } from './harness/workflows.ts';

/**
 * Concurrency 25 is what makes deliveries overlap; 300 of them give each kind of overlap many times. The
 * soak run sends 1,000 (2.41.1 took 96 s for those, most of this file's time in `npm test`).
 */
const GENUINE_COUNT = SOAK_RUN ? 1000 : 300;
const FORGED_COUNT = GENUINE_COUNT / 5;
const CONCURRENCY = 25;
const PAIRS = 100;

/** Genuine repeats sent after the flood with Ignore Repeats on. */
const FLOOD_REPEATS = 100;
/** n8n's start (its migrations) on a machine this loaded can take minutes. */
const READY_TIMEOUT_MS = 300_000;

const event = (marker: string, extra: Record<string, unknown> = {}) => ({
	event_type: 'call.ended',
	event_id: randomUUID(),
	data: { contact_id: DEMO.completedContactId, marker, ...extra },
});

describeEachVersion('the trigger in n8n %s: repeats, restarts and load', (version) => {
	let simulator: Simulator;
	let n8n: N8nInstance;
	let userFolder: string;
	let credential: CredentialRef;

	const modules = () => [...simulator.state.webhookModules.values()].map((owned) => owned.record);

	/** When the last restart asked the old process to stop, and when it had exited (Date.now()). */
	let lastStopAskedAt = 0;
	let lastStoppedAt = 0;

	/**
	 * Stops n8n and starts it again on the same user folder (its SQLite database, the package installed
	 * there) and port: the webhook URLs registered at the service stay the same, as on a real server.
	 */
	async function restart(): Promise<number> {
		const { port } = n8n;
		lastStopAskedAt = Date.now();
		await n8n.stop();
		lastStoppedAt = Date.now();
		n8n = await startN8n({ version, userFolder, port, readyTimeoutMs: READY_TIMEOUT_MS, extraEnv: floodN8nEnv() });
		return n8n.startToReadyMs;
	}

	/** An active workflow started by the trigger, with the URL and secret a module of the service uses. */
	async function activeTrigger(name: string, options: Record<string, unknown>) {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential, options);
		const workflow = await n8n.api.createWorkflow(triggerWorkflow(name, trigger));
		await n8n.api.activate(workflow.id);
		const url = triggerUrl(n8n, trigger);
		return { trigger, workflowId: workflow.id, url, secret: registeredSecret(simulator, url) };
	}

	const deliver = async (url: string, secret: string, body: unknown): Promise<DeliveryAnswer> =>
		await sendDelivery(url, {
			headers: [
				['content-type', 'application/json'],
				[SECRET_HEADER, secret],
			],
			body: JSON.stringify(body),
		});

	const markers = (executions: Execution[]) =>
		executions.flatMap((execution) => nodeOutput(execution, TRIGGER_NODE_NAME).map((item) => (item.data as { marker?: string }).marker));

	/**
	 * The trigger's executions once n8n has handled every delivery answered so far: a new event sent after
	 * them must run, and runs after them (executionsBeforeMarker); its execution is left out.
	 */
	async function executionsSoFar(target: { workflowId: string; url: string; secret: string }): Promise<Execution[]> {
		const marker = settleMarker();
		const answer = await deliver(target.url, target.secret, event(marker));
		expect(answer.status).toBe(200);
		return await executionsBeforeMarker(n8n, target.workflowId, marker, 300_000);
	}

	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
		userFolder = createUserFolder(`durability-${version}`);
		n8n = await startN8n({ version, userFolder, withPackage: true, readyTimeoutMs: READY_TIMEOUT_MS, extraEnv: floodN8nEnv() });
		credential = await simulatorCredential(n8n.api, simulator.url);
	});

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		if (userFolder && !process.env.E2E_KEEP_WORK) rmSync(userFolder, { recursive: true, force: true });
	});

	describe('what the trigger reads of a delivery', () => {
		const send = async (url: string, secret: string, contentType: string, body: string): Promise<DeliveryAnswer> =>
			await sendDelivery(url, { headers: [['content-type', contentType], [SECRET_HEADER, secret], ['x-request-id', 'r-e2e']], body });

		it("reads what n8n parses as JSON (application/json, with parameters); answers any other JSON type 415, naming it and application/json, and starts nothing", async () => {
			const target = await activeTrigger('content types', { ignoreRepeats: true });
			const { url, secret } = target;
			const refused = ['application/vnd.campaign+json', 'text/json', 'application/problem+json'];
			for (const contentType of refused) {
				const answer = await send(url, secret, `${contentType}; charset=utf-8`, JSON.stringify(event(`refused ${contentType}`)));
				expect([answer.status, JSON.parse(answer.text)]).toEqual([
					415,
					{
						status: 'error',
						message: `The delivery came with Content-Type ${contentType}, whose body n8n does not read as JSON: send the event as a JSON object with Content-Type: application/json`,
					},
				]);
			}
			const read = await send(url, secret, 'Application/JSON; charset=UTF-8', JSON.stringify(event('read')));
			expect([read.status, JSON.parse(read.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }]);
			// Once n8n has handled all of them: the refused ones started nothing.
			expect(markers(await executionsSoFar(target))).toEqual(['read']);
		});

		it("Include Headers keeps an event's own headers field, and gives the delivery's headers (without the secret) to an event without one", async () => {
			const target = await activeTrigger('include headers', { includeHeaders: true, ignoreRepeats: false });
			const { url, secret } = target;
			const own = { ...event('own headers'), headers: { from: '+14155550123', sip: ['a', 'b'] } };
			const plain = event('no headers');
			const answer = await send(url, secret, 'application/json', JSON.stringify([own, plain]));
			expect(answer.status).toBe(200);
			const [execution] = await executionsSoFar(target);
			const [first, second] = nodeOutput(execution, TRIGGER_NODE_NAME);
			expect(first).toEqual(own);
			expect(second).toMatchObject({ ...plain, headers: { 'x-request-id': 'r-e2e', 'content-type': 'application/json' } });
			expect(JSON.stringify(second)).not.toContain(secret);
		});

		it('Repeat Key on an id beyond 2^53: ids that differ only in digits a double drops run each, the same id again is a repeat, answered by this process without an execution', async () => {
			const target = await activeTrigger('big ids', { ignoreRepeats: true, repeatKey: 'data.id' });
			const { url, secret } = target;
			const raw = (id: string, marker: string) => `{"event_type":"call.ended","data":{"id":${id},"marker":"${marker}"}}`;
			const answers: Array<[number, unknown]> = [];
			for (const [id, marker] of [['12345678901234567891', 'one'], ['12345678901234567892', 'two'], ['12345678901234567891', 'one again']]) {
				const answer = await send(url, secret, 'application/json', raw(id, marker));
				answers.push([answer.status, JSON.parse(answer.text)]);
			}
			expect(answers).toEqual([
				[200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }],
				[200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }],
				[200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }],
			]);
			// Two executions once n8n has handled all four deliveries: the repeat started none.
			const executions = await executionsSoFar(target);
			expect([executions.length, markers(executions)]).toEqual([2, ['one', 'two']]);
		});
	});

	let wholeBody: { trigger: WorkflowNode; workflowId: string; url: string; secret: string };
	let byCallId: { trigger: WorkflowNode; workflowId: string; url: string; secret: string };
	const firstEvent = event('whole-1');
	const firstCall = event('call-1', { call_id: 'c-1' });

	it('Ignore Repeats: the same event twice starts one execution; another event starts another; off, both run', async () => {
		wholeBody = await activeTrigger('repeats: whole body', { ignoreRepeats: true });
		byCallId = await activeTrigger('repeats: data.call_id', { ignoreRepeats: true, repeatKey: 'data.call_id' });
		const off = await activeTrigger('repeats: off', { ignoreRepeats: false });

		// The service's own delivery, then the same event again as its retry would send it.
		const first = await deliver(wholeBody.url, wholeBody.secret, firstEvent);
		const again = await deliver(wholeBody.url, wholeBody.secret, firstEvent);
		const other = await deliver(wholeBody.url, wholeBody.secret, event('whole-2'));
		expect([first.status, JSON.parse(first.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 1, repeats: 0 }]);
		expect([again.status, JSON.parse(again.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
		expect(other.status).toBe(200);
		expect(markers(await executionsSoFar(wholeBody))).toEqual(['whole-1', 'whole-2']);

		// Keyed on data.call_id: another event_id with the same call is a repeat; a body without the key never is.
		await deliver(byCallId.url, byCallId.secret, firstCall);
		const sameCall = await deliver(byCallId.url, byCallId.secret, event('call-1-again', { call_id: 'c-1' }));
		expect(JSON.parse(sameCall.text)).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 1 });
		const keyless = event('no-key');
		await deliver(byCallId.url, byCallId.secret, keyless);
		await deliver(byCallId.url, byCallId.secret, keyless);
		expect(markers(await executionsSoFar(byCallId))).toEqual(['call-1', 'no-key', 'no-key']);

		const repeated = event('off');
		await deliver(off.url, off.secret, repeated);
		await deliver(off.url, off.secret, repeated);
		expect(markers(await executionsSoFar(off))).toEqual(['off', 'off']);
		await n8n.api.deleteWorkflow(off.workflowId);
	});

	it('after a restart of n8n: repeats are still known, deliveries are accepted, nothing new is registered at the service', async () => {
		const registered = modules().length;
		const readyMs = await restart();
		log(`n8n ${version}: restarted on the same database, ready in ${(readyMs / 1000).toFixed(1)} s`);

		const again = await deliver(wholeBody.url, wholeBody.secret, firstEvent);
		expect([again.status, JSON.parse(again.text)]).toEqual([200, { status: 'ok', received: 1, accepted: 0, repeats: 1 }]);
		const sameCall = await deliver(byCallId.url, byCallId.secret, event('call-1-after-restart', { call_id: 'c-1' }));
		expect(JSON.parse(sameCall.text)).toEqual({ status: 'ok', received: 1, accepted: 0, repeats: 1 });

		// The service's own delivery of a new event still reaches the restarted n8n and runs the workflow.
		const delivered = await simulator.deliverEvent('call.ended', { data: { marker: 'after-restart' } });
		const statusAt = (url: string) => delivered.find((result) => result.url === url)?.status;
		expect([statusAt(wholeBody.url), statusAt(byCallId.url)]).toEqual([200, 200]);
		expect(markers(await executionsSoFar(wholeBody))).toEqual(['whole-1', 'whole-2', 'after-restart']);
		expect(markers(await executionsSoFar(byCallId))).toEqual(['call-1', 'no-key', 'no-key', 'after-restart']);
		expect(modules()).toHaveLength(registered);
	});

	it(`${GENUINE_COUNT} distinct deliveries at concurrency ${CONCURRENCY} with ${FORGED_COUNT} forged ones: every genuine one answered 2xx, ${GENUINE_COUNT} executions, each marker once`, async () => {
		// The trigger's default options, as most workflows have them.
		const load = await activeTrigger('load', {});
		const { workflowId, url, secret } = load;
		const genuine = Array.from({ length: GENUINE_COUNT }, (_, index) => event(`load-${index}`));
		// After every fifth genuine delivery a forged one: another secret of the same shape, a marker of its own.
		const work: Array<{ body: unknown; secret: string; forged: boolean }> = [];
		genuine.forEach((body, index) => {
			work.push({ body, secret, forged: false });
			if (index % 5 === 4) work.push({ body: event(`forged-${index}`), secret: randomSecretLike(), forged: true });
		});
		expect(work.filter((entry) => entry.forged)).toHaveLength(FORGED_COUNT);

		const started = Date.now();
		const answers = await inPool(work, CONCURRENCY, async (entry) => await deliver(url, entry.secret, entry.body));
		const seconds = (Date.now() - started) / 1000;
		log(
			`n8n ${version}: ${work.length} deliveries (${GENUINE_COUNT} genuine, ${FORGED_COUNT} forged) at concurrency ${CONCURRENCY} ` +
				`in ${seconds.toFixed(1)} s: ${(work.length / seconds).toFixed(1)} deliveries/s`,
		);

		const statuses = (forged: boolean) => countBy(answers.filter((_, index) => work[index].forged === forged), (answer) => String(answer.status));
		expect(statuses(false)).toEqual({ 200: GENUINE_COUNT });
		expect(statuses(true)).toEqual({ 401: FORGED_COUNT });

		const executions = await executionsSoFar(load);
		expect(executions).toHaveLength(GENUINE_COUNT);
		expect(countBy(executions, (execution) => execution.status)).toEqual({ success: GENUINE_COUNT });
		expect(markers(executions).sort()).toEqual(genuine.map((body) => body.data.marker).sort());
		await n8n.api.deleteWorkflow(workflowId);
	});

	it(`Ignore Repeats with both copies of ${PAIRS} events delivered at the same moment (concurrency ${CONCURRENCY}): ${PAIRS} executions`, async () => {
		const pairs = await activeTrigger('concurrent repeats', { ignoreRepeats: true, repeatKey: 'event_id' });
		const { url, secret } = pairs;
		const events = Array.from({ length: PAIRS }, (_, index) => event(`pair-${index}`));
		// Each event twice in a row: the pool sends both copies before either is answered.
		const answers = await inPool(events.flatMap((body) => [body, body]), CONCURRENCY, async (body) => await deliver(url, secret, body));
		expect(countBy(answers, (answer) => `${answer.status} repeats ${(JSON.parse(answer.text) as { repeats: number }).repeats}`)).toEqual({
			'200 repeats 0': PAIRS,
			'200 repeats 1': PAIRS,
		});
		const executions = await executionsSoFar(pairs);
		expect(markers(executions).sort()).toEqual(events.map((body) => body.data.marker).sort());
	});

	const floodOf = async (label: string, triggerOptions: Record<string, unknown>, during?: Parameters<typeof floodTrigger>[0]['during'], settings = TRIGGER_FLOOD) =>
		await floodTrigger({ n8n: () => n8n, simulator, credential, label: `${version} ${label}`, triggerOptions, loadLogFile: `${userFolder}/busy-load.log`, during, settings });

	/** Every event answered 2xx and in exactly one successful execution, whose downstream node ran once. */
	function expectNoneLostNoneDoubled({ counts, downstreamRuns }: TriggerFloodResult) {
		expect({ answered: counts.answered, executed: counts.executed, lost: counts.lost, doubled: counts.doubled, downstreamRuns }).toEqual({
			answered: TRIGGER_FLOOD.events,
			executed: TRIGGER_FLOOD.events,
			lost: 0,
			doubled: 0,
			downstreamRuns: TRIGGER_FLOOD.events,
		});
	}

	// Soak run only: the code before issue 19 passed this flood on both lines too (bench/RESULTS.md, 2c).
	soakOnly()(`flood, Ignore Repeats off: ${TRIGGER_FLOOD.events} distinct events at concurrency ${TRIGGER_FLOOD.concurrency}, retried up to ${TRIGGER_FLOOD.retries} times: none lost; an event runs twice only when its answer came too late`, async () => {
		const { counts, downstreamRuns, workflowId } = await floodOf('off', { ignoreRepeats: false });
		expect({ answered: counts.answered, executed: counts.executed, lost: counts.lost }).toEqual({
			answered: TRIGGER_FLOOD.events,
			executed: TRIGGER_FLOOD.events,
			lost: 0,
		});
		// Without Ignore Repeats nothing tells a retry from a new event: an attempt whose answer missed the
		// sender's timeout (its execution existed) runs again when retried. Only retried events can double.
		expect(counts.doubled).toBeLessThanOrEqual(counts.retried);
		expect(downstreamRuns).toBe(TRIGGER_FLOOD.events + counts.doubled);
		await n8n.api.deleteWorkflow(workflowId);
	}, FLOOD_TEST_TIMEOUT_MS);

	// On 1.x soak run only: the code before issue 19 lost no event there either (bench/RESULTS.md, 2c);
	// on 2.x it lost 740 of 1,000, so the flood stays in `npm test`.
	soakOnly(version.startsWith('1.'))(`flood, Ignore Repeats on: ${TRIGGER_FLOOD.events} distinct events, then ${FLOOD_REPEATS} genuine repeats: none lost, none doubled, the repeats start no execution`, async () => {
		const result = await floodOf('on', { ignoreRepeats: true, repeatKey: 'event_id' });
		expectNoneLostNoneDoubled(result);

		const repeats = await inPool(result.bodies.slice(0, FLOOD_REPEATS), CONCURRENCY, async (body) => await deliver(result.url, result.secret, body));
		expect(countBy(repeats, (answer) => `${answer.status} ${answer.text}`)).toEqual({
			[`200 ${JSON.stringify({ status: 'ok', received: 1, accepted: 0, repeats: 1 })}`]: FLOOD_REPEATS,
		});
		const after = await settledExecutions(n8n, result.workflowId);
		log(`n8n ${version}: ${FLOOD_REPEATS} repeats after the flood: executions ${result.executions.length} before, ${after.length} after`);
		expect(after).toHaveLength(result.executions.length);
		await n8n.api.deleteWorkflow(result.workflowId);
	}, FLOOD_TEST_TIMEOUT_MS);

	// What this measures is n8n's documented limit on the delivery guarantee (docs/trigger.md, Restarts):
	// n8n keeps taking deliveries while it shuts down and waits for running executions up to its grace
	// period (N8N_GRACEFUL_SHUTDOWN_TIMEOUT, 30 s); under a flood they never drain, so n8n exits with some
	// running, marked crashed at the next start (2.x keeping the event it saved on creating them). 1.x also
	// cancels at once those whose webhook answers from the workflow, mostly without their event. Such an
	// event was answered, so it is not sent again. So an answered event may be missing from every successful
	// execution only inside an execution n8n stopped (canceled or crashed) after the trigger answered; none
	// may double. An execution n8n cancels before the answer gets the sender an error, and its retry must
	// then run as a new event (docs/trigger.md), not be acknowledged as a repeat.
	// In `npm test` on both lines: 2.x's lost 644 of 1,000 events with the code before issue 19, and 1.x's
	// is the only real-n8n test of the take-back of a key a cancelled execution recorded (21 of 21 without it).
	it(`flood with n8n restarted in the middle, Ignore Repeats on: ${TRIGGER_FLOOD.events} distinct events, all answered, none doubled; an answered event is missing only from an execution n8n stopped after the answer (n8n's documented Restarts limit: 2.x keeps each in it, 1.x's kept none matched by such executions), and at most the one execution recording when n8n cancelled it (1.x) or exited lets its retry be taken for a repeat`, async () => {
		const before = n8n;
		let restarts = 0;
		let restarting: Promise<unknown> | undefined;
		const result = await floodOf('restart', { ignoreRepeats: true, repeatKey: 'event_id' }, {
			// Not awaited here: deliveries go on while n8n stops and starts, and are retried until it is back.
			onStart: (index) => {
				if (index === Math.floor(TRIGGER_FLOOD.events * 0.4)) {
					restarts += 1;
					restarting = restart().then((ms) => log(`n8n ${version}: restarted mid-flood, ready in ${(ms / 1000).toFixed(1)} s`));
				}
			},
			settled: async () => await restarting,
		},
		// Retries spread over 5 minutes (10 s, 20 s, ... 160 s): a loaded machine takes minutes to start n8n again.
		{ ...TRIGGER_FLOOD, backoffMs: (retry) => 5000 * 2 ** retry });
		const { counts, downstreamRuns, executions } = result;
		const marker = new RegExp(`"${version.replace(/\./g, '\\.')} restart-\\d+"`);
		const stopped = executions.filter((execution) => execution.status !== 'success');
		const stoppedJson = stopped.map((execution) => ({ status: execution.status, startedAt: Date.parse(execution.startedAt), json: JSON.stringify(execution.data ?? {}) }));
		const stoppedKeepingNoEvent = stoppedJson.filter((execution) => !marker.test(execution.json)).length;
		const lostInNoStoppedExecutionFound = counts.lost - counts.lostInUnfinishedExecution;
		const failedAttempts = result.deliveries.flatMap((delivery) => delivery.attempts).filter((answer) => answer.status < 200 || answer.status >= 300);
		// n8n's answer to a sender whose execution it cancelled at shutdown before the trigger answered (n8n-workflow's SystemShutdownExecutionCancelledError).
		const isCancelledBeforeAnswer = (answer: DeliveryAnswer) => answer.status === 500 && answer.text.includes('cancelled because the system is shutting down');
		// docs/trigger.md: a delivery answered with an error is sent again and treated as a new event, not as a
		// repeat. Counted only for events that ran nowhere: a retry whose execution ran the event but answered
		// after the sender's wait is rightly followed by a repeat answer to the next attempt.
		const ranDownstream = new Set(
			executions
				.filter((execution) => execution.status === 'success')
				.flatMap((execution) => itemsOf(execution, TRIGGER_NODE_NAME).map((item) => (item.data as { marker: string }).marker)),
		);
		const lostEvents = result.deliveries.filter((delivery, index) => delivery.acknowledged && !ranDownstream.has(result.bodies[index].data.marker));
		const answeredAsRepeat = (delivery: FloodDelivery) => Boolean(delivery.attempts.at(-1)?.text.includes('"repeats":1'));
		const isRepeatAfterCancel = (delivery: FloodDelivery) => delivery.attempts.some(isCancelledBeforeAnswer) && answeredAsRepeat(delivery);
		const repeatAfterCancel = lostEvents.filter(isRepeatAfterCancel).length;
		const lostAfterAnswer = counts.lost - repeatAfterCancel;
		// Sent after the old process had exited, an attempt was answered by the new one. Such a lost event can only
		// be one the old process recorded in an execution that then crashed without its answer reaching the sender
		// (the one recording when n8n exited), so the new process finds its key: a repeat.
		const answeredByNewProcess = lostEvents.filter((delivery) => !isRepeatAfterCancel(delivery) && (delivery.attempts.at(-1)?.sentAt ?? 0) >= lastStoppedAt);
		const repeatAfterExit = answeredByNewProcess.filter(answeredAsRepeat).length;
		// n8n 1.x's start serves webhooks before its event bus's recovery pass marks every execution still
		// "running" in the database as crashed (server.js: the handlers, then MessageEventBus.initialize): an
		// execution the new process started for a retry in that window is stopped after its trigger answered.
		const markerOf = (delivery: FloodDelivery) => result.bodies[result.deliveries.indexOf(delivery)].data.marker;
		const crashedByNewStart = answeredByNewProcess.filter(
			(delivery) =>
				!answeredAsRepeat(delivery) &&
				stoppedJson.some((execution) => execution.status === 'crashed' && execution.startedAt >= lastStoppedAt && execution.json.includes(`"${markerOf(delivery)}"`)),
		).length;
		const lostAnsweredAfterStop = answeredByNewProcess.length - repeatAfterExit - crashedByNewStart;
		// Each lost event's attempts, timed from the stop request, and the stopped execution holding it: what a failure is read from.
		const lostDetail = lostEvents.map((delivery) => {
			const eventMarker = markerOf(delivery);
			const attempts = delivery.attempts.map((attempt) => `${attempt.status || attempt.error} at ${((attempt.sentAt - lastStopAskedAt) / 1000).toFixed(1)} s ${attempt.text.slice(0, 60)}`);
			const holder = stoppedJson.find((execution) => execution.json.includes(`"${eventMarker}"`))?.status ?? 'none';
			return `${eventMarker}: [${attempts.join('; ')}], in a stopped execution: ${holder}`;
		});
		log(
			`n8n ${version}, restart mid-flood: ${counts.answered} of ${counts.sent} answered 2xx, ${counts.retried} retried; ` +
				`failed attempts ${JSON.stringify(countBy(failedAttempts, (answer) => `${answer.status} ${answer.text.slice(0, 120)}`))}; ` +
				`executions n8n stopped: ${JSON.stringify(countBy(stopped, (execution) => execution.status))}, ${stoppedKeepingNoEvent} of them keeping no event; ` +
				`answered events in no successful execution: ${counts.lost} (${counts.lostInUnfinishedExecution} found in a stopped execution, ${lostInNoStoppedExecutionFound} not found in any): ` +
				`${lostAfterAnswer - repeatAfterExit} answered before n8n stopped their execution, ${repeatAfterCancel} answered as repeats when sent again after n8n cancelled their execution before the answer, ` +
				`${repeatAfterExit} answered as repeats by the new process after the old one exited without answering, ` +
				`${crashedByNewStart} answered by the new process in an execution it started and then marked crashed while starting; ` +
				`the old process exited ${((lastStoppedAt - lastStopAskedAt) / 1000).toFixed(1)} s after the stop request; lost events: ${lostDetail.join(' | ') || 'none'}`,
		);
		expect({ restarts, restartedProcess: n8n !== before }).toEqual({ restarts: 1, restartedProcess: true });
		// No retry is needed when the old process, still taking deliveries while it waits for its
		// executions, answers the rest of a short flood before it exits (2.x, a quiet machine).
		expect({ answered: counts.answered, doubled: counts.doubled }).toEqual({ answered: TRIGGER_FLOOD.events, doubled: 0 });
		// n8n stops executions at shutdown by cancelling them (1.x) or leaving them to be marked crashed; no other kind of failure.
		expect(stopped.filter((execution) => !['canceled', 'crashed'].includes(execution.status))).toEqual([]);
		// An event whose execution n8n cancelled before the answer, then acknowledged as a repeat when sent
		// again, runs nowhere. The trigger takes back the key a cancelled execution recorded, and one waiting
		// to record records nothing. n8n 1.x marks the execution cancelled and exits without waiting for that
		// node code, so the take-back of the one execution that was recording at that moment (the trigger
		// records one delivery at a time per process) can be cut off: at most one per trigger and restart
		// (measured: 1 of 21 cancellations, in each of 4 runs; 21 of 21 before the take-back). That is part
		// of 1.x's Restarts limit (docs/trigger.md); 2.x cancels nothing at shutdown.
		expect(repeatAfterCancel).toBeLessThanOrEqual(version.startsWith('2.') ? 0 : 1);
		// Likewise on exit: the execution recording its key when the old process exited (2.x at the end of its
		// grace period) may have recorded it without answering; its retry reaches the new process as a repeat,
		// the event kept in the crashed execution (2.x). At most one per trigger and restart, on both lines
		// (CI, 2026-12-02: 1 on 2.41.1; 0 in 7 loaded runs here and the next CI run).
		expect(repeatAfterExit).toBeLessThanOrEqual(1);
		// Every other lost event was answered by the process n8n then stopped: none the new process took as new is
		// lost, but in an execution n8n 1.x's start marked crashed (crashedByNewStart, the Restarts limit; 17 of
		// 300 in a clean-clone run on 2026-12-06, the old process gone 4.7 s after the stop request). (The count
		// this replaces, losses plus cancelled attempts against stopped executions, sat at its limit on every
		// quiet 1.x run, one attempt more than 1.x lists, and failed CI on 1.x in 2 of about 12 runs.)
		expect({ lostAnsweredAfterStop }).toEqual({ lostAnsweredAfterStop: 0 });
		if (version.startsWith('2.')) {
			expect(lostInNoStoppedExecutionFound).toBe(0);
		} else {
			// 1.x's cancellation mostly drops the event from the execution: each answered event found in no
			// execution must be matched by a stopped execution that kept none.
			expect(lostInNoStoppedExecutionFound).toBeLessThanOrEqual(stoppedKeepingNoEvent);
		}
		expect(downstreamRuns).toBe(counts.executed);
		await n8n.api.deleteWorkflow(result.workflowId);
	}, FLOOD_TEST_TIMEOUT_MS);
});
