/**
 * Issue 49, point 4: n8n 1.x in queue mode re-runs a stalled job, and the trigger must then run the event (run by
 * `npm run test:queue`; n8n 1.123.81 only, see below for 2.41.1).
 *
 * The workflow: the trigger at its defaults (Ignore Repeats on, the whole event as key) → a Wait of 20 s, which
 * sleeps inside its execution (under 65 s) → a Set node (`Downstream`) with the event's marker. The service (the
 * simulator's module) delivers one event; the trigger's execute() records its key in n8n's deduplication store and
 * answers 200. While the Wait sleeps, the worker's whole process group is killed (SIGKILL: no shutdown, as a crash or
 * the OOM killer ends it) and a worker is started again. Bull finds the job stalled (its lock not renewed) and hands
 * it back to the queue; the worker runs the same execution again, from its start: execute() meets the key it
 * recorded itself in the first run. Counted: deliveries and their answers, how often a worker started the
 * execution, the executions and their statuses in n8n's Postgres, the events the Downstream node ran. Then the
 * same event comes again (real repeats: through the module to the webhook process, and as a copy to the main, whose
 * execution meets the key another execution recorded), which must run nothing.
 *
 * Which worker takes the job matters on 1.x. Every n8n process of the harness shares one user folder, and a 1.x
 * worker keeps an event log there (`n8nEventLog-worker.log`: n8n/dist/eventbus/message-event-bus/message-event-bus.js:72-77).
 * A worker started on the killed worker's files reads it at start-up, finds the execution unfinished and marks it
 * crashed from its log (message-event-bus.js:89-139, n8n/dist/executions/execution-recovery.service.js:79-157)
 * before Bull hands the job back (n8n/dist/commands/worker.js:108-110: the event bus, recovery included, is set up
 * before the worker takes jobs); the job processor then skips a crashed execution (job-processor.js:80). So the
 * first case starts the replacement with an event log of its own (N8N_EVENTBUS_LOGWRITER_LOGBASENAME,
 * @n8n/config/dist/configs/event-bus.config.js:31), as another worker, on another machine or in a fresh container,
 * has: that is the re-run of issue 49. The second case measures the other path (the same worker started again on its
 * own files): the event is lost in a crashed execution, visible in n8n, whatever the trigger does.
 *
 * n8n 1.123.81 (the package `n8n` and `@n8n/config` under $CAMPAIGN_CALLING_CACHE/n8n-1.123.81/node_modules):
 * - @n8n/config/dist/configs/scaling-mode.config.js:95-98: Bull's lockDuration 60 s, lockRenewTime 10 s,
 *   stalledInterval 30 s, maxStalledCount 1; lines 102-116 read them from QUEUE_WORKER_LOCK_DURATION,
 *   QUEUE_WORKER_LOCK_RENEW_TIME, QUEUE_WORKER_STALLED_INTERVAL and QUEUE_WORKER_MAX_STALLED_COUNT.
 *   n8n/dist/scaling/scaling.service.js:88 hands them to Bull as they are. This test shortens the first three
 *   (STALL_SETTINGS) so the stall is found within about half a minute instead of one and a half.
 * - bull 4.16.4, lib/commands/moveStalledJobsToWait-7.lua:60-125: a worker's periodic check moves an active job
 *   whose lock expired back to the waiting list while its stalledCounter stays within maxStalledCount (1 here).
 * - n8n/dist/scaling/job-processor.js:71-164: processJob reads the execution from the database (with only the data
 *   the webhook process saved: progress is not saved by default), logs "Worker started execution <id> (job <n>)"
 *   again (line 83) and runs it from its start (processRunExecutionData, line 164): the trigger's execute() runs a
 *   second time in the same execution.
 *
 * n8n 2.41.1 cannot re-run it, so there is no run on that line:
 * - n8n/dist/scaling/scaling.service.js:120 creates every queue with
 *   `{ ...this.globalConfig.queue.bull.settings, maxStalledCount: 0 }`, and @n8n/config's scaling-mode.config.js
 *   (SettingsConfig, lines 166-186) no longer has a maxStalledCount to set (1.123.81's
 *   n8n/dist/modules/breaking-changes/rules/v2/queue-worker-max-stalled-count.rule.js:18-19: "The
 *   QUEUE_WORKER_MAX_STALLED_COUNT environment variable has been removed and will be ignored").
 * - bull 4.16.4, lib/commands/moveStalledJobsToWait-7.lua:80-89: the first stall makes stalledCounter 1 > 0, so the
 *   job is moved to failed ("job stalled more than allowable limit") instead of back to the waiting list, and
 *   "job stalled more than maxStalledCount" is published.
 * - n8n/dist/workflow-runner.js:526-531: the process that enqueued the job (here the webhook process) turns that into a
 *   MaxStalledCountError; processError (lines 106-230) re-reads the execution's status for up to 30 s (line 77)
 *   and then logs "Problem with execution <id>: ... Aborting." (line 210) and finishes it with status `error`
 *   (line 227). No worker runs the execution again, so execute() never meets its own key: on 2.x such an event
 *   ends in a failed execution, visible in n8n's executions list, not in a successful one that ran nothing.
 */
import { randomUUID } from 'node:crypto';
import { DEMO, startSimulator, type DeliveryResult, type Simulator } from '../simulator/server.ts';
import { countBy, sendDelivery, triggerUrl } from './harness/deliveries.ts';
import { callEndedEvent, drainedExecutions, itemsPassedOn, markersRunBy, postgresExecutions } from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { log, sleep } from './harness/process.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { TRIGGER_NODE_NAME, campaignCallingTriggerNode, chain, node, setNode, workflow, type CredentialRef } from './harness/workflows.ts';

/** How long the Wait sleeps inside the execution (under 65 s n8n does not park it): the worker is killed meanwhile. */
const WAIT_SECONDS = 20;
const WAIT_NODE = 'Wait';
const DOWNSTREAM_NODE = 'Downstream';
/**
 * Bull's stall detection, shortened from 1.x's 60 s lock and 30 s check: a lock not renewed for 20 s is expired,
 * and a worker checks every 5 s. A live worker renews its locks every 5 s, so it keeps them with room to spare.
 */
const STALL_SETTINGS = {
	QUEUE_WORKER_LOCK_DURATION: '20000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '5000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};
/** From the kill until n8n's database holds the execution finished: lock expiry, two checks, the worker's start, the Wait. */
const RECOVERY_TIMEOUT_MS = 4 * 60_000;
const TEST_TIMEOUT_MS = 10 * 60_000;

/** The line a worker logs each time it starts running an execution (n8n/dist/scaling/job-processor.js:83). */
const workerStarted = (executionId: string) => `Worker started execution ${executionId} (job `;

const answers = (results: DeliveryResult[]) => countBy(results, (result) => `${result.status ?? 'none'} after ${result.attempts} attempt(s)`);

/** The replacement worker's own event log: it stands for another worker, on another machine or in a fresh container. */
const ANOTHER_WORKER = { N8N_EVENTBUS_LOGWRITER_LOGBASENAME: 'n8nEventLog-replacement' };

interface KilledDuringWait {
	workflowId: string;
	/** The trigger's production webhook path, after a process's base URL. */
	path: string;
	executionId: string;
	event: Record<string, unknown>;
	marker: string;
	delivered: DeliveryResult[];
	/** The execution's status in n8n's database when the worker was killed. */
	statusAtKill: string[];
	killedAfterAnswerMs: number;
	recovered: Awaited<ReturnType<typeof drainedExecutions>>;
	/** How many times a worker logged that it started the execution. */
	workerStarts: number;
}

describeEachVersion(
	'n8n %s in queue mode: the worker killed (SIGKILL) while the Wait sleeps, after the trigger answered the delivery 200',
	(version) => {
		let simulator: Simulator;
		let n8n: QueueN8nInstance;
		let credential: CredentialRef;

		beforeAll(async () => {
			simulator = await startSimulator();
			n8n = await startQueueN8n({ version, readyTimeoutMs: 300_000, extraEnv: STALL_SETTINGS });
			credential = await simulatorCredential(n8n.api, simulator.url);
		}, TEST_TIMEOUT_MS);

		/** Workflows a case activated: deactivated after it, passed or failed, so no later event reaches them. */
		const activated: string[] = [];
		afterEach(async () => {
			for (const id of activated.splice(0)) await n8n.api.deactivate(id);
		});

		afterAll(async () => {
			await n8n?.stop();
			await simulator?.close();
		});

		/**
		 * Activates trigger → Wait → Downstream, has the service deliver one event, kills the worker once it runs the
		 * execution, starts a worker again with `workerEnv`, and waits until n8n's database holds the execution finished.
		 */
		const killDuringWait = async (label: string, workerEnv: Record<string, string>): Promise<KilledDuringWait> => {
			// The service holds only this case's module (the simulator's reset drops the earlier cases' ones).
			simulator.reset();
			const trigger = campaignCallingTriggerNode(['call.ended'], credential);
			const nodes = [
				trigger,
				node(WAIT_NODE, 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: WAIT_SECONDS, unit: 'seconds' }, { webhookId: randomUUID() }),
				setNode(DOWNSTREAM_NODE, { marker: '={{ $json.data.marker }}' }),
			];
			const created = await n8n.api.createWorkflow(workflow(`recovery: ${label}`, nodes, chain(nodes.map((each) => each.name))));
			await n8n.api.activate(created.id);
			activated.push(created.id);
			const store = postgresExecutions(n8n);
			const marker = `recovery-${randomUUID()}`;
			const event = callEndedEvent(marker);

			// The service delivers the event through the trigger's module; execute() answers it once recorded.
			const delivered = (await simulator.deliverEvent('call.ended', event)).filter((result) => result.url === triggerUrl(n8n, trigger));
			const answeredAt = Date.now();
			const running = await store(created.id);
			const executionId = running[0]?.id ?? 'none';
			// The worker has taken the job (its log may trail the database by a moment).
			const deadline = Date.now() + 10_000;
			while (!n8n.processes.worker.logs().includes(workerStarted(executionId)) && Date.now() < deadline) await sleep(200);
			const killedAfterAnswerMs = Date.now() - answeredAt;
			await n8n.restart('worker', { kill: true, extraEnv: workerEnv });
			const workerBackMs = Date.now() - answeredAt;

			const recovered = await drainedExecutions(store, created.id, RECOVERY_TIMEOUT_MS);
			// The restarted worker appends to the killed one's log file: both runs are counted there.
			const workerStarts = n8n.processes.worker.logs().split(workerStarted(executionId)).length - 1;
			const counts = {
				deliveriesSent: 1,
				answered: answers(delivered),
				statusAtKill: running.map((each) => each.status),
				killedAfterAnswerMs,
				workerStartedExecution: workerStarts,
				executions: countBy(recovered.executions, (each) => each.status),
				triggerPassedOn: itemsPassedOn(recovered.executions, TRIGGER_NODE_NAME),
				waitPassedOn: itemsPassedOn(recovered.executions, WAIT_NODE),
				eventsRunDownstream: markersRunBy(recovered.executions, DOWNSTREAM_NODE).length,
			};
			log(
				`recovery, n8n ${version}, ${label}: ${JSON.stringify(counts)}; worker back ${(workerBackMs / 1000).toFixed(1)} s and execution ${executionId} ` +
					`finished ${((recovered.drainedAt - answeredAt) / 1000).toFixed(1)} s after the answer${recovered.drained ? '' : ' (not drained: still running in the database)'}`,
			);
			return { workflowId: created.id, path: triggerUrl(n8n, trigger).slice(n8n.webhookUrl.length), executionId, event, marker, delivered, statusAtKill: counts.statusAtKill, killedAfterAnswerMs, recovered, workerStarts };
		};

		/** Killed after the answer, while the Wait slept (it started right after the answer and sleeps WAIT_SECONDS). */
		const expectKilledAfterAnswerDuringWait = (killed: KilledDuringWait) => {
			expect(killed.delivered.map((each) => each.status)).toEqual([200]);
			expect(killed.statusAtKill).toEqual(['running']);
			expect(killed.killedAfterAnswerMs).toBeLessThan(WAIT_SECONDS * 1000);
			expect(killed.recovered.drained).toBe(true);
		};

		it(
			'another worker takes the stalled job and runs the execution again: the event runs exactly once downstream and the execution ends success; ' +
				'the service sending the same event again afterwards runs nothing',
			async () => {
				const killed = await killDuringWait('another worker re-runs the job', ANOTHER_WORKER);
				expectKilledAfterAnswerDuringWait(killed);
				// A worker did run the execution a second time: Bull re-ran the stalled job.
				expect(killed.workerStarts).toBe(2);
				expect({ executions: countBy(killed.recovered.executions, (each) => each.status), downstream: markersRunBy(killed.recovered.executions, DOWNSTREAM_NODE) }).toEqual({
					executions: { success: 1 },
					downstream: [killed.marker],
				});

				// Real repeats: the service sends the same event again, to the webhook process; and a copy of it (the body the
				// simulator built: its defaults are all given) reaches the main, which never took the event, so its execution
				// on the worker meets the key execution 1 recorded: another execution's, a repeat. An answer comes once
				// execute() ran in an execution, if one was created, so the drain below sees that execution.
				const again = await simulator.deliverEvent('call.ended', killed.event);
				const [module] = [...simulator.state.webhookModules.values()].map((owned) => owned.record);
				const copy = await sendDelivery(`${n8n.url}${killed.path}`, {
					headers: [['content-type', 'application/json'], ...Object.entries(module.settings.headers)],
					body: JSON.stringify({ event_type: 'call.ended', company_id: DEMO.companyId, ...killed.event }),
				});
				const after = await drainedExecutions(postgresExecutions(n8n), killed.workflowId, RECOVERY_TIMEOUT_MS);
				log(
					`recovery, n8n ${version}, the same event sent again: through the module ${JSON.stringify(answers(again))}, to the main ${copy.status} ${copy.text}; ` +
						`executions ${JSON.stringify(countBy(after.executions, (each) => each.status))}, trigger passed on ${JSON.stringify(itemsPassedOn(after.executions, TRIGGER_NODE_NAME))}, ` +
						`events run downstream ${markersRunBy(after.executions, DOWNSTREAM_NODE).length}`,
				);
				expect(again.map((each) => each.status)).toEqual([200]);
				expect(`${copy.status} ${copy.text}`).toBe(`200 ${JSON.stringify({ status: 'ok', received: 1, accepted: 0, repeats: 1 })}`);
				expect(after.drained).toBe(true);
				expect(countBy(after.executions, (each) => each.status)).toEqual({ success: after.executions.length });
				expect(markersRunBy(after.executions, DOWNSTREAM_NODE)).toEqual([killed.marker]);
			},
			TEST_TIMEOUT_MS,
		);

		it(
			"the same worker started again on its own files (measures n8n): its crash recovery marks the execution crashed from its event log before Bull " +
				'hands the job back, so the event answered 200 runs nothing downstream and the execution shows crashed',
			async () => {
				// The worker now runs with ANOTHER_WORKER's event log: started again with it, it reads what it wrote itself.
				const killed = await killDuringWait('the same worker started again', ANOTHER_WORKER);
				expectKilledAfterAnswerDuringWait(killed);
				expect({
					workerStarts: killed.workerStarts,
					executions: countBy(killed.recovered.executions, (each) => each.status),
					downstream: markersRunBy(killed.recovered.executions, DOWNSTREAM_NODE),
				}).toEqual({ workerStarts: 1, executions: { crashed: 1 }, downstream: [] });
			},
			TEST_TIMEOUT_MS,
		);
	},
	['1.123.81'],
);
