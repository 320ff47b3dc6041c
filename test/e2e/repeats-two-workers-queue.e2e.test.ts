/**
 * Ignore Repeats (at its default: the whole event is the key) in queue mode with two workers (run by
 * `npm run test:queue`): the trigger → a Set node marking the event. Each event is sent as two copies at
 * the same moment, either both to the webhook process (the trigger's in-flight wait holds the second one)
 * or one to the webhook process and one to the main (both serve production webhooks in queue mode), whose
 * executions then run on the two workers at once. Runs are counted in n8n's Postgres database. And new
 * triggers, each sent its first events at once: the two workers record a trigger's first events in
 * n8n's store at the same moment, where the store creates the trigger's row.
 *
 * n8n's deduplication store gives a node no atomic check-and-record across processes: its
 * checkProcessedAndRecord (package `n8n`, dist/deduplication/deduplication-helper.js, DeduplicationHelper
 * .checkProcessedAndRecord → handleHashedItems; the same on 1.123.81) reads the node's one row
 * (findOne), adds the new hashes in memory and writes the row back (update) with no lock or transaction.
 * Two workers recording the same key at once can both find it new: the "webhook process and the main" case
 * measures how often.
 */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSimulator, type Simulator } from '../simulator/server.ts';
import { SECRET_HEADER, countBy, inPool, registeredSecret, sendDelivery, triggerUrl, type DeliveryAnswer } from './harness/deliveries.ts';
import { drainedExecutions, postgresExecutions, type StoredExecution } from './harness/fullQueue.ts';
import { simulatorCredential } from './harness/n8n.ts';
import { log } from './harness/process.ts';
import { ensureQueueServices, startQueueN8n, type QueueN8nInstance } from './harness/queue.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { campaignCallingTriggerNode, setNode, triggerWorkflow, type CredentialRef } from './harness/workflows.ts';

const EVENTS = Number(process.env.E2E_TWO_WORKERS_EVENTS ?? 50);
/** Events whose two copies are in flight at once. */
const PAIRS_AT_ONCE = 4;
const WORKER_CONCURRENCY = 4;
/** New triggers, each sent its first events at once: n8n's store creates each one's row on the first record. */
const NEW_TRIGGERS = Number(process.env.E2E_TWO_WORKERS_NEW_TRIGGERS ?? 10);
const FIRST_EVENTS = 2 * WORKER_CONCURRENCY;
/** The in-flight wait's bound, as in the full-queue suites: a copy that waits for the first starts no execution. */
const MAX_EXECUTIONS_PER_EVENT = 1.25;
const MARKER_NODE = 'Marker';
const TEST_TIMEOUT_MS = 10 * 60_000;
/** The lost-key burst: distinct events, alternately to the webhook process and the main. */
const BURST_EVENTS = Number(process.env.E2E_TWO_WORKERS_BURST ?? 200);
const BURST_AT_ONCE = 2 * WORKER_CONCURRENCY;

interface SentEvents {
	events: number;
	executions: number;
	executionsByStatus: Record<string, number>;
	answers: Record<string, number>;
	/** Events with at least one copy answered 200. */
	eventsAnswered: number;
	ranNever: number;
	ranOnce: number;
	ranTwiceOrMore: number;
	/** Executions each worker started for this workflow, from its log. */
	perWorker: number[];
}

describeEachVersion('n8n %s in queue mode with two workers: Ignore Repeats at its default, two copies of each event at the same moment', (version) => {
	let simulator: Simulator;
	let n8n: QueueN8nInstance;
	let credential: CredentialRef;

	beforeAll(async () => {
		simulator = await startSimulator({ recordBodies: false });
		n8n = await startQueueN8n({ version, readyTimeoutMs: 300_000, workers: 2, workerConcurrency: WORKER_CONCURRENCY });
		credential = await simulatorCredential(n8n.api, simulator.url);
	}, TEST_TIMEOUT_MS);

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
	});

	/**
	 * Activates a new trigger, sends each of `events` events once to each n8n process `targets` names
	 * (its copies together, `atOnce` events at a time), then counts runs once n8n's queue drained.
	 */
	const sendEvents = async (
		label: string,
		{ events, atOnce, targets }: { events: number; atOnce: number; targets: (n8n: QueueN8nInstance) => string[] },
	): Promise<SentEvents> => {
		const trigger = campaignCallingTriggerNode(['call.ended'], credential);
		const created = await n8n.api.createWorkflow(triggerWorkflow(`two workers: ${label}`, trigger, [setNode(MARKER_NODE, { marker: '={{ $json.data.marker }}' })]));
		await n8n.api.activate(created.id);
		const path = triggerUrl(n8n, trigger).slice(n8n.webhookUrl.length);
		const secret = registeredSecret(simulator, triggerUrl(n8n, trigger));
		const markers = Array.from({ length: events }, (_, index) => `${label}-${index}`);
		const logMarks = n8n.workers.map((worker) => worker.logs().length);

		const started = Date.now();
		const answers = await inPool(markers, atOnce, async (marker) => {
			const body = JSON.stringify({ event_type: 'call.ended', event_id: randomUUID(), data: { marker } });
			const send = (base: string): Promise<DeliveryAnswer> =>
				sendDelivery(`${base}${path}`, { headers: [['content-type', 'application/json'], [SECRET_HEADER, secret]], body });
			return await Promise.all(targets(n8n).map(send));
		});
		const { executions, drained } = await drainedExecutions(postgresExecutions(n8n), created.id, 5 * 60_000);
		await n8n.api.deactivate(created.id);
		expect(drained).toBe(true);

		const runs = countBy(markersRun(executions), (marker) => marker);
		const runsPerEvent = markers.map((marker) => runs[marker] ?? 0);
		const result: SentEvents = {
			events,
			executions: executions.length,
			executionsByStatus: countBy(executions, (execution) => execution.status),
			answers: countBy(answers.flat(), (answer) => String(answer.status)),
			eventsAnswered: answers.filter((pair) => pair.some((answer) => answer.status === 200)).length,
			ranNever: runsPerEvent.filter((count) => count === 0).length,
			ranOnce: runsPerEvent.filter((count) => count === 1).length,
			ranTwiceOrMore: runsPerEvent.filter((count) => count >= 2).length,
			perWorker: n8n.workers.map((worker, index) => (worker.logs().slice(logMarks[index]).match(/Worker started execution/g) ?? []).length),
		};
		log(`two workers, n8n ${version}, ${label}: ${JSON.stringify(result)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		return result;
	};

	it(`the two workers run ${WORKER_CONCURRENCY} jobs each at a time`, () => {
		expect(n8n.workers).toHaveLength(2);
		for (const worker of n8n.workers) expect(worker.logs()).toContain(` * Concurrency: ${WORKER_CONCURRENCY}\n`);
	});

	it(
		`${NEW_TRIGGERS} new triggers, each sent ${FIRST_EVENTS} events at once, run on both workers: every delivery answered 200 and each event run once ` +
			"(n8n's store creates a trigger's row with an unlocked insert, which one of two workers loses)",
		async () => {
			const lostInsertsBefore = lostFirstInserts(n8n);
			const rounds: SentEvents[] = [];
			for (let round = 0; round < NEW_TRIGGERS; round++) {
				rounds.push(await sendEvents(`first-${round}`, { events: FIRST_EVENTS, atOnce: FIRST_EVENTS, targets: (n8n) => [n8n.webhookUrl] }));
			}
			const answers = addCounts(rounds.map((round) => round.answers));
			const executions = addCounts(rounds.map((round) => round.executionsByStatus));
			const bothWorkers = rounds.filter((round) => round.perWorker.every((count) => count > 0)).length;
			// Each is a worker's insert of a trigger's row refused by Postgres, whose events the trigger recorded again.
			const lostInserts = lostFirstInserts(n8n) - lostInsertsBefore;
			log(
				`two workers, n8n ${version}, new triggers: ${NEW_TRIGGERS * FIRST_EVENTS} sent, answered ${JSON.stringify(answers)}, ` +
					`executions ${JSON.stringify(executions)}, ${bothWorkers} of ${NEW_TRIGGERS} rounds on both workers, ${lostInserts} first inserts refused by Postgres`,
			);
			expect(answers).toEqual({ 200: NEW_TRIGGERS * FIRST_EVENTS });
			expect(executions).toEqual({ success: NEW_TRIGGERS * FIRST_EVENTS });
			expect(rounds.map((round) => round.ranOnce)).toEqual(rounds.map(() => FIRST_EVENTS));
			// The rounds did put both workers to work: the race was there to lose.
			expect(bothWorkers).toBeGreaterThan(NEW_TRIGGERS / 2);
		},
		TEST_TIMEOUT_MS,
	);

	it(`copies sent to the webhook process: each of ${EVENTS} events runs exactly once, at most ${MAX_EXECUTIONS_PER_EVENT} executions per event`, async () => {
		const result = await sendEvents('webhook-webhook', { events: EVENTS, atOnce: PAIRS_AT_ONCE, targets: (n8n) => [n8n.webhookUrl, n8n.webhookUrl] });
		expect(result.answers).toEqual({ 200: 2 * EVENTS });
		expect({ ranNever: result.ranNever, ranTwiceOrMore: result.ranTwiceOrMore }).toEqual({ ranNever: 0, ranTwiceOrMore: 0 });
		expect(result.executions).toBeLessThanOrEqual(MAX_EXECUTIONS_PER_EVENT * EVENTS);
	}, TEST_TIMEOUT_MS);

	it(
		"copies sent to the webhook process and the main, run on both workers at once: measures n8n's limit (no lock across processes in its " +
			'deduplication store): no event is lost, and how many ran twice is logged',
		async () => {
			const result = await sendEvents('webhook-main', { events: EVENTS, atOnce: PAIRS_AT_ONCE, targets: (n8n) => [n8n.webhookUrl, n8n.url] });
			// Each event had a copy answered 200 (the other one is too, since the trigger records again when
			// n8n's store refuses its first insert: the "new triggers" case).
			expect(result.eventsAnswered).toBe(EVENTS);
			// Both workers took this case's executions: the copies did meet on two processes.
			expect(result.perWorker.every((count) => count > 0)).toBe(true);
			expect(result.ranNever).toBe(0);
			log(`two workers, n8n ${version}: ${result.ranTwiceOrMore} of ${EVENTS} events ran twice (n8n's store has no lock across processes)`);
		},
		TEST_TIMEOUT_MS,
	);

	it(
		`a burst of ${BURST_EVENTS} distinct events, ${BURST_AT_ONCE} at a time, half to the webhook process and half to the main, run on both workers: ` +
			"measures how many keys n8n's store loses (each event sent again to the other process runs again if its key was lost), and no event is lost",
		async () => {
			const trigger = campaignCallingTriggerNode(['call.ended'], credential);
			const created = await n8n.api.createWorkflow(triggerWorkflow('two workers: lost keys', trigger, [setNode(MARKER_NODE, { marker: '={{ $json.data.marker }}' })]));
			await n8n.api.activate(created.id);
			const path = triggerUrl(n8n, trigger).slice(n8n.webhookUrl.length);
			const secret = registeredSecret(simulator, triggerUrl(n8n, trigger));
			const bodies = Array.from({ length: BURST_EVENTS }, (_, index) =>
				JSON.stringify({ event_type: 'call.ended', event_id: randomUUID(), data: { marker: `burst-${index}` } }),
			);
			const processes = [n8n.webhookUrl, n8n.url];
			const send = async (base: string, body: string) =>
				await sendDelivery(`${base}${path}`, { headers: [['content-type', 'application/json'], [SECRET_HEADER, secret]], body });
			const logMarks = n8n.workers.map((worker) => worker.logs().length);

			// Round 1: each event once, alternately to the two processes, so both workers record different events at once.
			const first = await inPool(bodies, BURST_AT_ONCE, async (body, index) => await send(processes[index % 2], body));
			const afterFirst = await drainedExecutions(postgresExecutions(n8n), created.id, 5 * 60_000);
			const storedAfterFirst = await storedKeyCount(n8n, created.id);
			// Round 2: each event again, to the process that did not take it (it has not cached the key): a copy
			// whose key n8n's store lost runs again.
			const second = await inPool(bodies, BURST_AT_ONCE, async (body, index) => await send(processes[(index + 1) % 2], body));
			const afterSecond = await drainedExecutions(postgresExecutions(n8n), created.id, 5 * 60_000);
			await n8n.api.deactivate(created.id);
			expect([afterFirst.drained, afterSecond.drained]).toEqual([true, true]);

			const runsAfter = (executions: StoredExecution[]) => countBy(markersRun(executions), (marker) => marker);
			const markers = bodies.map((_, index) => `burst-${index}`);
			const firstRuns = runsAfter(afterFirst.executions);
			const allRuns = runsAfter(afterSecond.executions);
			const result = {
				sent: { first: first.length, second: second.length },
				answered: { first: countBy(first, (answer) => String(answer.status)), second: countBy(second, (answer) => String(answer.status)) },
				executions: { first: afterFirst.executions.length, total: afterSecond.executions.length },
				keysInStoreAfterFirst: storedAfterFirst,
				ranTwiceInFirst: markers.filter((marker) => (firstRuns[marker] ?? 0) >= 2).length,
				ranAgainInSecond: markers.filter((marker) => (allRuns[marker] ?? 0) > (firstRuns[marker] ?? 0)).length,
				ranNever: markers.filter((marker) => (allRuns[marker] ?? 0) === 0).length,
				perWorker: n8n.workers.map((worker, index) => (worker.logs().slice(logMarks[index]).match(/Worker started execution/g) ?? []).length),
			};
			log(`two workers, n8n ${version}, lost keys in a burst: ${JSON.stringify(result)}`);
			expect(result.answered.first).toEqual({ 200: BURST_EVENTS });
			expect(result.ranNever).toBe(0);
			expect(result.perWorker.every((count) => count > 0)).toBe(true);
			// A lost key is a key missing from the store after round 1, and exactly then its copy runs again.
			expect(result.ranAgainInSecond).toBe(BURST_EVENTS - storedAfterFirst);
		},
		TEST_TIMEOUT_MS,
	);
});

/** The markers of the events whose Marker node ran, once per run. */
function markersRun(executions: StoredExecution[]): string[] {
	return executions.flatMap((execution) =>
		(execution.data?.resultData.runData[MARKER_NODE] ?? []).flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => String(item.json.marker))),
	);
}

/** Per-status counts added up. */
function addCounts(counts: Array<Record<string, number>>): Record<string, number> {
	const total: Record<string, number> = {};
	for (const count of counts) for (const [status, n] of Object.entries(count)) total[status] = (total[status] ?? 0) + n;
	return total;
}

/** Inserts of a trigger's row in n8n's deduplication store that Postgres refused as a duplicate, so far. */
function lostFirstInserts(n8n: QueueN8nInstance): number {
	const lines = readFileSync(n8n.postgres.logFile, 'utf8').split('\n');
	return lines.filter((line, index) => line.includes('duplicate key value violates unique constraint') && /INSERT INTO "public"\."processed_data"/.test(lines[index + 2] ?? '')).length;
}

/**
 * How many event keys n8n's deduplication store holds for the workflow's trigger (its one processed_data row): half
 * its entries, since each key is written with its execution's companion, in the same write, and lost with it.
 */
async function storedKeyCount(n8n: QueueN8nInstance, workflowId: string): Promise<number> {
	const { postgresBin } = await ensureQueueServices();
	const { port, database, user, password } = n8n.postgres;
	const sql = `SELECT coalesce(sum(json_array_length((value::json)->'data')), 0) FROM processed_data WHERE "workflowId" = '${workflowId}'`;
	const { stdout } = await promisify(execFile)(join(postgresBin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-At', '-c', sql], {
		env: { ...process.env, PGPASSWORD: password },
	});
	return Number(stdout.trim()) / 2;
}
