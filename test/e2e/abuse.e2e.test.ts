/**
 * The trigger under abuse, in real n8n: 1,000 forged deliveries (no secret, a wrong secret, another
 * workflow's secret) start no execution; oversized bodies and wrong HTTP methods are refused; a
 * genuine delivery afterwards still runs, so the zero counts mean something.
 */
import { DEMO, startSimulator, type Simulator } from '../simulator/server.ts';
import {
	EVENT_HEADER,
	SECRET_HEADER,
	TRIGGER_MAX_BODY_BYTES,
	countBy,
	eventBodyOfSize,
	executionsBeforeMarker,
	inPool,
	randomSecretLike,
	registeredSecret,
	sendDelivery,
	settleMarker,
	triggerUrl,
	type DeliveryAnswer,
	type DeliveryRequest,
} from './harness/deliveries.ts';
import { type N8nInstance, simulatorCredential } from './harness/n8n.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { campaignCallingTriggerNode, triggerWorkflow, type WorkflowNode } from './harness/workflows.ts';
import { sharedN8n } from './harness/shared.ts';

const FORGED_COUNT = 1000;
const CONCURRENCY = 16;
/** n8n's own cap on any request body (N8N_PAYLOAD_SIZE_MAX, MiB; the same default in 1.x and 2.x). */
const N8N_PAYLOAD_SIZE_MAX_MIB = 16;

type ForgeryKind = 'no secret' | 'wrong secret' | "another workflow's secret";

interface Forgery {
	kind: ForgeryKind;
	variant: string;
	request: DeliveryRequest;
}

const json = (extra: Array<[string, string]> = []): Array<[string, string]> => [['content-type', 'application/json'], ...extra];

/** Flips the case of every letter: same length and alphabet, another value. */
const flipCase = (text: string) => text.replace(/[a-z]/gi, (letter) => (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()));

/**
 * The variants of each kind, cycled through until FORGED_COUNT. Header names are case-insensitive in
 * HTTP (Node lower-cases them), so an upper-case name is only a forgery with a wrong value; likewise
 * leading or trailing blanks around a value are not part of it, so no variant pads the real secret.
 */
function forgeryVariants(secret: string, otherSecret: string): Array<{ kind: ForgeryKind; variants: Array<[string, () => DeliveryRequest]> }> {
	const body = JSON.stringify({ event_type: 'call.ended', data: { contact_id: DEMO.completedContactId } });
	const withSecretHeader = (value: string, name = SECRET_HEADER): DeliveryRequest => ({ headers: json([[name, value]]), body });
	return [
		{
			kind: 'no secret',
			variants: [
				['no header', () => ({ headers: json(), body })],
				['empty header', () => withSecretHeader('')],
				['blank header', () => withSecretHeader('   ')],
				['real secret under a misspelled header', () => withSecretHeader(secret, 'x-campaign-calling-secrets')],
				['real secret as Authorization: Bearer', () => ({ headers: json([['authorization', `Bearer ${secret}`]]), body })],
				['real secret in the query string', () => ({ query: `?secret=${secret}`, headers: json(), body })],
				['real secret in the body', () => ({ headers: json(), body: JSON.stringify({ event_type: 'call.ended', secret }) })],
				['event header only', () => ({ headers: json([[EVENT_HEADER, 'call.ended']]), body })],
			],
		},
		{
			kind: 'wrong secret',
			variants: [
				['random, same length and alphabet', () => withSecretHeader(randomSecretLike())],
				['prefix: all but the last character', () => withSecretHeader(secret.slice(0, -1))],
				['prefix: first half', () => withSecretHeader(secret.slice(0, 32))],
				['prefix: first character', () => withSecretHeader(secret.slice(0, 1))],
				['real secret plus one character', () => withSecretHeader(`${secret}x`)],
				['last character changed', () => withSecretHeader(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`)],
				['letters in flipped case', () => withSecretHeader(flipCase(secret))],
				['upper-case header name, random value', () => withSecretHeader(randomSecretLike(), 'X-CAMPAIGN-CALLING-SECRET')],
				['header sent twice (real, then random)', () => ({ headers: json([[SECRET_HEADER, secret], [SECRET_HEADER, randomSecretLike()]]), body })],
				['secret repeated twice in one value', () => withSecretHeader(`${secret}${secret}`)],
			],
		},
		{
			kind: "another workflow's secret",
			variants: [
				["workflow B's secret", () => withSecretHeader(otherSecret)],
				["workflow B's secret, upper-case header name", () => withSecretHeader(otherSecret, 'X-Campaign-Calling-Secret')],
				["workflow B's secret with the event header", () => ({ headers: json([[SECRET_HEADER, otherSecret], [EVENT_HEADER, 'call.ended']]), body })],
			],
		},
	];
}

function buildForgeries(secret: string, otherSecret: string): Forgery[] {
	const kinds = forgeryVariants(secret, otherSecret);
	const forgeries: Forgery[] = [];
	for (let index = 0; forgeries.length < FORGED_COUNT; index++) {
		const { kind, variants } = kinds[index % kinds.length];
		const [variant, make] = variants[Math.floor(index / kinds.length) % variants.length];
		forgeries.push({ kind, variant, request: make() });
	}
	return forgeries;
}

const describeAnswer = (answer: DeliveryAnswer) => (answer.status === 0 ? `no answer (${answer.error})` : `${answer.status} ${answer.text.slice(0, 160)}`);

describeEachVersion('the trigger under abuse in n8n %s', (version) => {
	let n8n: N8nInstance;
	let simulator: Simulator;
	let triggerA: WorkflowNode;
	let triggerB: WorkflowNode;
	let workflowA: string;
	let workflowB: string;
	let urlA: string;
	let urlB: string;
	let secretA: string;
	let secretB: string;

	beforeAll(async () => {
		simulator = await startSimulator();
		n8n = await sharedN8n(version);
		const credential = await simulatorCredential(n8n.api, simulator.url);
		triggerA = campaignCallingTriggerNode(['call.ended'], credential);
		triggerB = campaignCallingTriggerNode(['call.ended'], credential);
		workflowA = (await n8n.api.createWorkflow(triggerWorkflow('e2e abuse A', triggerA))).id;
		workflowB = (await n8n.api.createWorkflow(triggerWorkflow('e2e abuse B', triggerB))).id;
		await n8n.api.activate(workflowA);
		await n8n.api.activate(workflowB);
		urlA = triggerUrl(n8n, triggerA);
		urlB = triggerUrl(n8n, triggerB);
		// As the service holds them: each workflow's secret sits in the headers of the modules it registered.
		secretA = registeredSecret(simulator, urlA);
		secretB = registeredSecret(simulator, urlB);
	});

	afterAll(async () => {
		await simulator?.close();
	});

	/**
	 * How many executions each workflow has once n8n has handled everything sent to it before: the service
	 * then delivers a new event, through each workflow's module, which must run in both; each workflow's
	 * executions are read once that event's has finished (executionsBeforeMarker), without it. Its running
	 * also shows the zero counts are not for want of a working trigger.
	 */
	async function executionsAfterAGenuineDelivery(): Promise<{ a: number; b: number }> {
		const marker = settleMarker();
		const delivered = await simulator.deliverEvent('call.ended', { data: { contact_id: DEMO.completedContactId, marker } });
		console.log(`n8n ${version}: genuine delivery through the simulator: ${JSON.stringify(delivered.map(({ url, status, attempts }) => ({ url, status, attempts })))}`);
		expect(delivered.map(({ url, ok, attempts }) => [url === urlA ? 'A' : url === urlB ? 'B' : url, ok, attempts]).sort()).toEqual([
			['A', true, 1],
			['B', true, 1],
		]);
		const [a, b] = await Promise.all([executionsBeforeMarker(n8n, workflowA, marker), executionsBeforeMarker(n8n, workflowB, marker)]);
		return { a: a.length, b: b.length };
	}

	it('each workflow has its own 64-character secret', () => {
		expect(secretA).toMatch(/^[A-Za-z0-9]{64}$/);
		expect(secretB).toMatch(/^[A-Za-z0-9]{64}$/);
		expect(secretA).not.toBe(secretB);
	});

	it(`answers ${FORGED_COUNT} forged deliveries 401 and starts no execution, then runs a genuine one`, async () => {
		const forgeries = buildForgeries(secretA, secretB);
		const startedAt = Date.now();
		const answers = await inPool(forgeries, CONCURRENCY, (forgery) => sendDelivery(urlA, forgery.request));
		const seconds = (Date.now() - startedAt) / 1000;

		const results = forgeries.map((forgery, index) => ({ ...forgery, answer: answers[index] }));
		const byKind = countBy(results, (result) => result.kind);
		const answersByKind = Object.fromEntries(
			Object.keys(byKind).map((kind) => [kind, countBy(results.filter((result) => result.kind === kind), (result) => describeAnswer(result.answer))]),
		);
		const answersByVariant = countBy(results, (result) => `${result.kind} / ${result.variant} → ${result.answer.status}`);
		console.log(
			`n8n ${version}: ${forgeries.length} forged deliveries to workflow A at concurrency ${CONCURRENCY} in ${seconds.toFixed(1)} s ` +
				`(${Math.round(forgeries.length / seconds)}/s)\n` +
				`per kind: ${JSON.stringify(byKind)}\nanswers per kind: ${JSON.stringify(answersByKind, null, 2)}\n` +
				`per variant: ${JSON.stringify(answersByVariant, null, 2)}`,
		);

		expect(forgeries).toHaveLength(FORGED_COUNT);
		expect(results.filter((result) => result.answer.status !== 401).map((result) => `${result.kind} / ${result.variant}: ${describeAnswer(result.answer)}`)).toEqual([]);
		expect(new Set(results.map((result) => result.answer.text))).toEqual(new Set([JSON.stringify({ status: 'error', message: 'Unauthorized' })]));
		// A genuine delivery sent after every forgery was answered runs; none of the forgeries did.
		expect(await executionsAfterAGenuineDelivery()).toEqual({ a: 0, b: 0 });
	});

	it('refuses bodies over the size limits and wrong HTTP methods, and starts nothing', async () => {
		const secretHeaders = (extra: Array<[string, string]> = []): Array<[string, string]> => [
			['content-type', 'application/json'],
			[SECRET_HEADER, secretA],
			...extra,
		];
		const overTrigger = eventBodyOfSize(TRIGGER_MAX_BODY_BYTES + 1);
		const overN8n = eventBodyOfSize((N8N_PAYLOAD_SIZE_MAX_MIB + 1) * 1024 * 1024);
		const small = JSON.stringify({ event_type: 'call.ended', data: { contact_id: DEMO.completedContactId } });

		const oversized: Array<[string, DeliveryRequest]> = [
			['1 MiB + 1 byte, real secret', { headers: secretHeaders(), body: overTrigger }],
			['1 MiB + 1 byte, real secret, chunked (no Content-Length)', { headers: secretHeaders(), body: overTrigger, chunked: true }],
			['4 MiB, real secret', { headers: secretHeaders(), body: eventBodyOfSize(4 * 1024 * 1024) }],
			[`${N8N_PAYLOAD_SIZE_MAX_MIB + 1} MiB (over n8n's own cap), real secret`, { headers: secretHeaders(), body: overN8n }],
			[`${N8N_PAYLOAD_SIZE_MAX_MIB + 1} MiB, real secret, chunked`, { headers: secretHeaders(), body: overN8n, chunked: true }],
			['1 MiB + 1 byte, no secret', { headers: [['content-type', 'application/json']], body: overTrigger }],
		];
		const methods: Array<[string, DeliveryRequest]> = [
			['GET', { method: 'GET', headers: secretHeaders() }],
			['HEAD', { method: 'HEAD', headers: secretHeaders() }],
			['PUT', { method: 'PUT', headers: secretHeaders(), body: small }],
			['DELETE', { method: 'DELETE', headers: secretHeaders(), body: small }],
			['PATCH', { method: 'PATCH', headers: secretHeaders(), body: small }],
		];
		// One at a time: the large bodies would only compete with each other.
		const answer = async ([label, request]: [string, DeliveryRequest]) => [label, await sendDelivery(urlA, request)] as const;
		const oversizedAnswers = [];
		for (const entry of oversized) oversizedAnswers.push(await answer(entry));
		const methodAnswers = [];
		for (const entry of methods) methodAnswers.push(await answer(entry));
		// Answered by n8n's CORS handling, not a webhook: recorded, and checked only for starting nothing.
		const options = await sendDelivery(urlA, { method: 'OPTIONS', headers: secretHeaders() });

		const show = (entries: ReadonlyArray<readonly [string, DeliveryAnswer]>) =>
			entries.map(([label, reply]) => `  ${label}: ${describeAnswer(reply)}`).join('\n');
		console.log(
			`n8n ${version}: oversized bodies to workflow A:\n${show(oversizedAnswers)}\n` +
				`wrong methods (real secret):\n${show(methodAnswers)}\n  OPTIONS: ${describeAnswer(options)}`,
		);

		const status = Object.fromEntries([...oversizedAnswers, ...methodAnswers].map(([label, reply]) => [label, reply.status]));
		// Under n8n's cap the trigger itself reads the size and answers 413, after the secret check.
		expect(status['1 MiB + 1 byte, real secret']).toBe(413);
		expect(status['1 MiB + 1 byte, real secret, chunked (no Content-Length)']).toBe(413);
		expect(status['4 MiB, real secret']).toBe(413);
		expect(status['1 MiB + 1 byte, no secret']).toBe(401);
		// Over it n8n refuses before the node runs; what it answers is recorded above (0: it closed the connection).
		for (const [label, reply] of oversizedAnswers.slice(3, 5)) {
			expect([label, reply.status >= 200 && reply.status < 300]).toEqual([label, false]);
		}
		for (const [label, reply] of methodAnswers) {
			expect([label, reply.status >= 200 && reply.status < 300]).toEqual([label, false]);
		}
		expect(await executionsAfterAGenuineDelivery()).toEqual({ a: 0, b: 0 });
	});
});
