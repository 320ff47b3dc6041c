/**
 * Issue 61, point 6 (a): a queue-mode job whose lock is not renewed while its worker is still alive (run by
 * `npm run test:queue`, both lines). Two workers; Bull's lock is short (QUEUE_WORKER_LOCK_DURATION 3 s) and its
 * renewal far later (QUEUE_WORKER_LOCK_RENEW_TIME 10 min), as when a worker's event loop is blocked or its Redis
 * connection drops for longer than the lock: the worker keeps running the execution, but Bull no longer knows it.
 *
 * The workflow: the trigger at its defaults (Ignore Repeats on, the whole event as key) → a Wait of WAIT_SECONDS,
 * which sleeps inside its execution (under 65 s) → a Set node (`Downstream`) with the event's marker → an HTTP
 * Request (`Record`) that posts the marker and the execution's id to a recorder on 127.0.0.1. The recorder counts
 * every run of the downstream nodes: n8n's database keeps only the run data the last worker to finish wrote, so a
 * second run of the same execution would not show there.
 *
 * The settings, in the installed n8n (the packages `n8n`, `@n8n/config` and `bull` under
 * $CAMPAIGN_CALLING_CACHE/n8n-<version>/node_modules):
 * - 1.123.81: @n8n/config/dist/configs/scaling-mode.config.js:94-116 (lockDuration 60 s, lockRenewTime 10 s,
 *   stalledInterval 30 s, maxStalledCount 1, read from QUEUE_WORKER_LOCK_DURATION, QUEUE_WORKER_LOCK_RENEW_TIME,
 *   QUEUE_WORKER_STALLED_INTERVAL, QUEUE_WORKER_MAX_STALLED_COUNT); n8n/dist/scaling/scaling.service.js:88 hands them
 *   to Bull as they are.
 * - 2.41.1: the same three variables (scaling-mode.config.js:169-185), but scaling.service.js:120 creates the queue
 *   with `maxStalledCount: 0`.
 * - bull 4.16.4, lib/queue.js:1160-1172: the lock is extended only every lockRenewTime, so with a renew time past
 *   the lock's duration the lock of a running job expires; lib/queue.js:1047-1080 (moveUnlockedJobsToWait, every
 *   stalledInterval on each worker): a job whose lock expired goes back to the waiting list while its stalled count
 *   stays within maxStalledCount ("stalled"), else to the failed list ("job stalled more than allowable limit").
 * - 1.x: n8n/dist/scaling/job-processor.js:71-83: the worker that takes the re-queued job reads the execution from
 *   the database and logs "Worker started execution <id> (job <n>)" again, then runs it from its start
 *   (processRunExecutionData / runManually): the trigger's execute() runs a second time in the same execution, while
 *   the first run is still sleeping in its Wait on the other worker.
 *
 * Measured (2026-12-07, both lines, one event and 20 at once):
 * - 2.41.1: every job's lock expired (its worker logs "Missing key for job <n>" when it finishes: Bull failed the job,
 *   maxStalledCount 0) and no worker ran it again. The webhook process's processError (n8n/dist/workflow-runner.js:
 *   106-135) re-reads the execution's status within its grace window and finds it `success`: each event ran once,
 *   every execution success.
 * - 1.123.81: every job was handed back and run again from its start (by either worker, the first one too) while its
 *   first run still slept; the re-run's execute() finds the event's key with the companion naming its own execution
 *   (nodes/CampaignCallingTrigger/repeats.ts, checkAndRecordKeys: `toRun` keeps a key whose companion was already
 *   recorded, the re-run of issue 49 point 4) and passes the event on again: every event ran twice downstream, in one
 *   execution, which n8n's database shows once (`success`, one run). The re-run stalled too and Bull failed it: "job
 *   stalled more than maxStalledCount (execution <id>)" in the webhook process's log (workflow-runner.js:302-310).
 *   A re-queued job that finds no free slot waits until a run finishes; the worker that then takes it finds the
 *   execution finished, with nothing left on its stack, and runs no node: hence WORKER_CONCURRENCY.
 *
 * The 1.x double run is n8n's, not the trigger's: n8n's own Webhook node (Respond Immediately) in front of the same
 * Wait, Downstream and Record, in the same n8n under the same settings, runs every event twice downstream too (the
 * last case; measured 2026-12-07, 20 events: 1.123.81 40 runs downstream in 20 executions, 40 worker starts, 20
 * "stalled" lines, as the trigger's 40 in 20; 2.41.1 20 in 20, as the trigger's). The trigger keeps passing on the re-run's events: it cannot tell this re-run from the
 * re-run after a killed worker (trigger-recovery-queue.e2e.test.ts, issue 49), whose event would otherwise be lost, and
 * a lost event is worse than one run twice. docs/trigger-reference.md, "Limits of the delivery guarantee", says what
 * to set (QUEUE_WORKER_LOCK_DURATION above the longest time a worker's event loop can be blocked).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type DeliveryResult, type Simulator } from '../simulator/server.ts';
import { countBy, inPool, triggerUrl } from './harness/deliveries.ts';
import { callEndedEvent, drainedExecutions, itemsPassedOn, markersRunBy, postgresExecutions } from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import {
	WEBHOOK_NODE_NAME,
	campaignCallingTriggerNode,
	chain,
	node,
	setNode,
	workflow,
	type CredentialRef,
	type WorkflowNode,
} from './harness/workflows.ts';

/** How long the Wait sleeps inside the execution: well past the lock's duration and two stall checks. */
const WAIT_SECONDS = 8;
const WAIT_NODE = 'Wait';
const DOWNSTREAM_NODE = 'Downstream';
const RECORD_NODE = 'Record';
/** Bull's lock expires 3 s after a worker took the job and is not renewed for 10 minutes; each worker checks every second. */
const STALL_SETTINGS = {
	QUEUE_WORKER_LOCK_DURATION: '3000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '600000',
	QUEUE_WORKER_STALLED_INTERVAL: '1000',
};
const WORKERS = 2;
/** Distinct events of the second case, all sent at once. */
const EVENTS = Number(process.env.E2E_STALLED_EVENTS ?? 20);
/**
 * Jobs each worker runs at once: every event's job fits on either worker, so a re-queued job finds a free slot while
 * its first run still sleeps. (With every slot busy, the re-queued job waits until a run finishes; a worker that then
 * takes it finds the execution finished in the database, with nothing left on its stack, and runs no node.)
 */
const WORKER_CONCURRENCY = EVENTS;
const DRAIN_TIMEOUT_MS = 4 * 60_000;
const TEST_TIMEOUT_MS = 10 * 60_000;

/** n8n 1.x hands a job whose lock lapsed back to the queue and runs it again from its start (maxStalledCount 1); 2.x fails it. */
const RUNS_PER_EVENT = (version: string) => (version.startsWith('1.') ? 2 : 1);

/** The line a worker logs each time it starts running an execution (1.x job-processor.js:83; the same on 2.x). */
const WORKER_STARTED = /Worker started execution (\d+) \(job /g;
/** Bull refusing a worker's update of a job it lost: its lock taken by a stall check (bull/lib/scripts.js:289, finishedErrors). */
const LOST_LOCK = /Missing (lock|key) for job (\d+)/g;

/** Counts every run of the downstream nodes as it happens: the marker and the execution it ran in. */
interface Recorder {
	url: string;
	runs: Array<{ marker: string; execution: string }>;
	close: () => Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
	const runs: Recorder['runs'] = [];
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			try {
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { marker?: unknown; execution?: unknown };
				runs.push({ marker: String(body.marker), execution: String(body.execution) });
			} catch {
				runs.push({ marker: 'unreadable', execution: 'unknown' });
			}
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/runs`,
		runs,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** A core HTTP Request node (4.2, on both lines) posting the marker and the execution's id to the recorder. */
function recordNode(url: string) {
	return node(RECORD_NODE, 'n8n-nodes-base.httpRequest', 4.2, {
		method: 'POST',
		url,
		sendBody: true,
		contentType: 'json',
		specifyBody: 'keypair',
		bodyParameters: {
			parameters: [
				{ name: 'marker', value: '={{ $json.marker }}' },
				{ name: 'execution', value: '={{ $execution.id }}' },
			],
		},
		options: {},
	});
}

/** n8n's own Webhook node, answering at once (Respond Immediately): the event is under `body`. */
function webhookNode(): WorkflowNode {
	return node(WEBHOOK_NODE_NAME, 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path: `stalled-job-${randomUUID()}`, responseMode: 'onReceived', options: {} }, { webhookId: randomUUID() });
}

/** An event's answer: its status (none when the connection failed) and how many attempts the sender made. */
type Answer = Pick<DeliveryResult, 'status' | 'attempts'>;

/** One POST of the event to n8n's Webhook node, as a sender without retries would. */
async function postToWebhookNode(url: string, body: Record<string, unknown>): Promise<Answer> {
	try {
		const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event_type: 'call.ended', ...body }) });
		await answer.text();
		return { status: answer.status, attempts: 1 };
	} catch {
		return { status: undefined, attempts: 1 };
	}
}

interface StalledRun {
	sent: number;
	answered: Record<string, number>;
	executions: Record<string, number>;
	/** How many times a worker logged that it started one of the executions, over both workers. */
	workerStarts: number;
	/** Worker starts per worker. */
	startsPerWorker: number[];
	/** Runs the recorder counted (every run of the downstream nodes). */
	runDownstream: number;
	/** Distinct executions those runs were in: a run twice in one execution is a re-run of that execution. */
	executionsRunDownstream: number;
	/** Events by how many times they ran downstream: `{ '1': 19, '2': 1 }`. */
	runsPerEvent: Record<string, number>;
	/** Downstream runs of the events in n8n's stored run data. */
	inDatabase: number;
	triggerPassedOn: number[];
	/** "stalled" in the webhook process's log (1.x: its MaxStalledCountError, once a re-run job stalled again). */
	stalledLines: number;
	/** Jobs Bull no longer let their first worker finish (its lock gone: "Missing lock for job <n>" on 1.x, "Missing key for job <n>" on 2.x). */
	jobsThatLostTheirLock: number;
	drained: boolean;
}

describeEachVersion(
	"n8n %s in queue mode, two workers, a job whose lock expires while its worker is alive (QUEUE_WORKER_LOCK_DURATION 3 s, renewed only after 10 min): n8n 2.x fails the job, n8n 1.x runs it again from its start (n8n 1.x's limit)",
	(version) => {
		let simulator: Simulator;
		let recorder: Recorder;
		let n8n: QueueN8nInstance;
		let credential: CredentialRef;

		beforeAll(async () => {
			simulator = await startSimulator();
			recorder = await startRecorder();
			n8n = await startQueueN8n({ version, workers: WORKERS, workerConcurrency: WORKER_CONCURRENCY, readyTimeoutMs: 300_000, extraEnv: STALL_SETTINGS });
			credential = await simulatorCredential(n8n.api, simulator.url);
		}, TEST_TIMEOUT_MS);

		const activated: string[] = [];
		afterEach(async () => {
			for (const id of activated.splice(0)) await n8n.api.deactivate(id);
		});

		afterAll(async () => {
			await n8n?.stop();
			await recorder?.close();
			await simulator?.close();
		});

		const workerLogs = () => n8n.workers.map((worker) => worker.logs());
		const lostLocks = () => new Set(workerLogs().flatMap((text) => [...text.matchAll(LOST_LOCK)].map((match) => match[2])));

		/**
		 * Activates trigger → Wait → Downstream → Record (or n8n's Webhook node in the trigger's place), has the service
		 * deliver `events` distinct events at once (the test posts them to the Webhook node), and counts.
		 */
		const deliverAndCount = async (label: string, events: number, first: 'trigger' | 'webhook node' = 'trigger'): Promise<StalledRun> => {
			simulator.reset();
			const start = first === 'trigger' ? campaignCallingTriggerNode(['call.ended'], credential) : webhookNode();
			const nodes = [
				start,
				node(WAIT_NODE, 'n8n-nodes-base.wait', 1.1, { resume: 'timeInterval', amount: WAIT_SECONDS, unit: 'seconds' }, { webhookId: randomUUID() }),
				// The trigger passes the event on as it is; the Webhook node under `body`.
				setNode(DOWNSTREAM_NODE, { marker: first === 'trigger' ? '={{ $json.data.marker }}' : '={{ $json.body.data.marker }}' }),
				recordNode(recorder.url),
			];
			const created = await n8n.api.createWorkflow(workflow(`stalled job: ${label}`, nodes, chain(nodes.map((each) => each.name))));
			await n8n.api.activate(created.id);
			activated.push(created.id);
			const url = first === 'trigger' ? triggerUrl(n8n, start) : `${n8n.webhookUrl}webhook/${start.parameters.path as string}`;
			const stalledBefore = n8n.processes.webhook.logs().split('stalled').length - 1;
			const startsBefore = workerLogs().map((text) => [...text.matchAll(WORKER_STARTED)].length);
			const recordedBefore = recorder.runs.length;
			const lostLocksBefore = lostLocks();

			const markers = Array.from({ length: events }, (_, index) => `stalled-${label.replace(/\W+/g, '-')}-${index}-${randomUUID()}`);
			const delivered: Answer[] =
				first === 'trigger'
					? (await inPool(markers, events, async (marker) => await simulator.deliverEvent('call.ended', callEndedEvent(marker)))).flatMap((results) =>
							results.filter((result) => result.url === url),
						)
					: await inPool(markers, events, async (marker) => await postToWebhookNode(url, callEndedEvent(marker)));
			const drained = await drainedExecutions(postgresExecutions(n8n), created.id, DRAIN_TIMEOUT_MS);
			// The later run of a re-run execution may still be sleeping when the database shows it finished: wait for the recorder to hold still.
			let held = recorder.runs.length;
			for (let still = 0; still < 3; ) {
				await new Promise((resolve) => setTimeout(resolve, (WAIT_SECONDS * 1000) / 2));
				still = recorder.runs.length === held ? still + 1 : 0;
				held = recorder.runs.length;
			}

			const ours = new Set(markers);
			const runs = recorder.runs.slice(recordedBefore).filter((run) => ours.has(run.marker));
			const perMarker = countBy(runs, (run) => run.marker);
			const startsPerWorker = workerLogs().map((text, index) => [...text.matchAll(WORKER_STARTED)].length - startsBefore[index]);
			const counts: StalledRun = {
				sent: markers.length,
				answered: countBy(delivered, (result) => `${result.status ?? 'none'} after ${result.attempts} attempt(s)`),
				executions: countBy(drained.executions, (each) => each.status),
				workerStarts: startsPerWorker.reduce((sum, each) => sum + each, 0),
				startsPerWorker,
				runDownstream: runs.length,
				executionsRunDownstream: new Set(runs.map((run) => run.execution)).size,
				runsPerEvent: countBy(markers, (marker) => String(perMarker[marker] ?? 0)),
				inDatabase: markersRunBy(drained.executions, DOWNSTREAM_NODE).filter((marker) => ours.has(marker)).length,
				triggerPassedOn: itemsPassedOn(drained.executions, start.name),
				stalledLines: n8n.processes.webhook.logs().split('stalled').length - 1 - stalledBefore,
				jobsThatLostTheirLock: [...lostLocks()].filter((job) => !lostLocksBefore.has(job)).length,
				drained: drained.drained,
			};
			log(`stalled job, n8n ${version}, ${first}, ${label}: ${JSON.stringify(counts)}`);
			return counts;
		};

		const runs = RUNS_PER_EVENT(version);
		/** What each case asserts of how often the events ran: once on 2.x; twice on 1.x, n8n's limit. */
		const ranTitle = runs === 1 ? 'runs exactly once downstream' : "runs twice downstream: n8n 1.x's limit, the job run again from its start";

		it(
			`one event: answered 200 once, one execution, and the event ${ranTitle}`,
			async () => {
				const counts = await deliverAndCount('one event', 1);
				expect(counts.drained).toBe(true);
				expect(counts.answered).toEqual({ '200 after 1 attempt(s)': 1 });
				// The stall did happen: Bull took the job from its first worker while it ran.
				expect(counts.jobsThatLostTheirLock).toBe(1);
				expect(Object.values(counts.executions).reduce((sum, each) => sum + each, 0)).toBe(1);
				expect({ runDownstream: counts.runDownstream, executionsRunDownstream: counts.executionsRunDownstream, runsPerEvent: counts.runsPerEvent }).toEqual({
					runDownstream: runs,
					executionsRunDownstream: 1,
					runsPerEvent: { [String(runs)]: 1 },
				});
			},
			TEST_TIMEOUT_MS,
		);

		/** Every one of the EVENTS events answered 200 at its first attempt, in one execution of its own, and run `runs` times downstream. */
		function expectEachAnsweredAndRun(counts: Awaited<ReturnType<typeof deliverAndCount>>): void {
			expect(counts.drained).toBe(true);
			expect(counts.answered).toEqual({ '200 after 1 attempt(s)': EVENTS });
			expect(counts.jobsThatLostTheirLock).toBe(EVENTS);
			expect(Object.values(counts.executions).reduce((sum, each) => sum + each, 0)).toBe(EVENTS);
			expect({ runDownstream: counts.runDownstream, executionsRunDownstream: counts.executionsRunDownstream, runsPerEvent: counts.runsPerEvent }).toEqual({
				runDownstream: runs * EVENTS,
				executionsRunDownstream: EVENTS,
				runsPerEvent: { [String(runs)]: EVENTS },
			});
		}

		it(
			`${EVENTS} events at once: each answered 200 once, one execution each, and each ${ranTitle}`,
			async () => {
				expectEachAnsweredAndRun(await deliverAndCount(`${EVENTS} events`, EVENTS));
			},
			TEST_TIMEOUT_MS,
		);

		it(
			`n8n's own Webhook node (Respond Immediately) in the trigger's place, ${EVENTS} events at once: each answered 200, one execution each, and each ${
				runs === 1 ? 'runs exactly once downstream' : "runs twice downstream as well: n8n 1.x's limit, whatever starts the workflow"
			}`,
			async () => {
				expectEachAnsweredAndRun(await deliverAndCount(`${EVENTS} events`, EVENTS, 'webhook node'));
			},
			TEST_TIMEOUT_MS,
		);
	},
);
