/**
 * The trigger's size limit on what a delivery declares: a Content-Length over the limit is refused
 * on the declaration alone, whatever n8n has read of the body so far. And parseDelivery on its own:
 * what n8n hands over (its parsed body, the raw bytes) and what the trigger makes of it.
 */
import { SECRET_HEADER, parseDelivery } from '../../../nodes/CampaignCallingTrigger/delivery';

/** The largest event the trigger takes: 1 MiB (docs/trigger.md). */
const MAX_BODY_BYTES = 1024 * 1024;
import { DEMO, startSimulator, type Simulator } from '../../simulator/server.ts';
import { TriggerHarness, moduleSecret } from '../../helpers/triggerContext.ts';

let simulator: Simulator;
beforeAll(async () => {
	simulator = await startSimulator();
});
afterAll(async () => simulator.close());

async function activeTrigger() {
	const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
	await trigger.activate();
	return { trigger, secret: moduleSecret(simulator, trigger.webhookUrl) };
}

describe('a delivery that declares a Content-Length over the limit', () => {
	it.each([
		['nothing of the body read yet', ''],
		['a small, valid event read so far', JSON.stringify({ event_type: 'call.ended', data: { contact_id: DEMO.completedContactId } })],
	])('is refused with 413 and starts nothing, on the declaration alone (%s)', async (_label, raw) => {
		const { trigger, secret } = await activeTrigger();
		const outcome = await trigger.deliver({
			raw,
			headers: { [SECRET_HEADER]: secret, 'content-length': String(MAX_BODY_BYTES + 1) },
		});
		expect(outcome.statusCode).toBe(413);
		expect(outcome.json).toEqual({ status: 'error', message: `The event is larger than ${MAX_BODY_BYTES} bytes` });
		expect(outcome.executed).toBe(false);
	});

	it('is accepted when the declaration is exactly the limit and the body is a valid event', async () => {
		const { trigger, secret } = await activeTrigger();
		const outcome = await trigger.deliver({
			body: { event_type: 'call.ended' },
			headers: { [SECRET_HEADER]: secret, 'content-length': String(MAX_BODY_BYTES) },
		});
		expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
	});
});

describe('the headers a module is registered with', () => {
	// The service stores them with each module, and the trigger reuses its modules across upgrades of
	// this package: a renamed header would turn every existing module's deliveries into forgeries.
	it('are x-campaign-calling-secret and x-campaign-calling-event, and a delivery sending them (as the service does) runs as that event', async () => {
		const { trigger } = await activeTrigger();
		// The newest module for the URL: every harness of this file shares the webhook URL.
		const module = [...simulator.state.webhookModules.values()]
			.map(({ record }) => record)
			.filter((record) => record.settings.url === trigger.webhookUrl)
			.at(-1)!;
		expect(Object.keys(module.settings.headers).sort()).toEqual(['x-campaign-calling-event', 'x-campaign-calling-secret']);
		expect(module.settings.headers['x-campaign-calling-event']).toBe('call.ended');

		const outcome = await trigger.deliver({
			headers: { ...module.settings.headers },
			body: { data: { call_id: 'c-headers' } },
		});
		expect([outcome.statusCode, outcome.executed]).toEqual([200, true]);
		expect(outcome.output?.map((item) => item.json.event_type)).toEqual(['call.ended']);
	});
});

describe('parseDelivery', () => {
	const json = { 'content-type': 'application/json' };
	/** Raw bytes as n8n keeps them (a Buffer), or a stand-in that fails the test if the trigger reads it. */
	const raw = (text: string) => Buffer.from(text);
	const unread = (length: number) => ({
		length,
		toString: () => {
			throw new Error('the raw body was read again');
		},
	});

	it.each([
		['no Content-Type', {}, 'no Content-Type'],
		['text/plain', { 'content-type': 'text/plain' }, 'Content-Type text/plain'],
	])('refuses a body that is not JSON with 415 (%s), naming what came and what to send', (_label, headers, sent) => {
		expect(parseDelivery({ headers, body: { event_type: 'call.ended' } })).toEqual({
			ok: false,
			statusCode: 415,
			message: `The delivery came with ${sent}, whose body n8n does not read as JSON: send the event as a JSON object with Content-Type: application/json`,
		});
	});

	describe('content types: what n8n parses as JSON is read, anything else is refused with 415', () => {
		// n8n parses a webhook body as JSON only for the media type application/json (middlewares/body-parser.js
		// parseBody on 1.x and 2.x): its parameters and letter case do not matter.
		it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'])('reads %s', (contentType) => {
			const body = { event_type: 'call.ended' };
			expect(parseDelivery({ headers: { 'content-type': contentType }, body, rawBody: raw(JSON.stringify(body)) })).toEqual({ ok: true, entries: [body] });
		});

		// Not parsed by n8n: 2.x does not even read the bytes of these for a node above version 1 (webhook-helpers.js
		// isParsableContentType), so the body n8n hands over is empty; the answer says which type came and what to send.
		// n8n takes the type as written before the `;` (parseContentType), so "application/json ; charset=utf-8" is not JSON to it.
		it.each(['application/json ', 'application/vnd.campaign+json', 'text/json', 'application/problem+json', 'application/json-patch+json', 'application/x-ndjson'])(
			'refuses %s with 415, naming the type and application/json',
			(contentType) => {
				const refused = parseDelivery({ headers: { 'content-type': `${contentType}; charset=utf-8` }, body: undefined });
				expect(refused).toEqual({
					ok: false,
					statusCode: 415,
					message: `The delivery came with Content-Type ${contentType}, whose body n8n does not read as JSON: send the event as a JSON object with Content-Type: application/json`,
				});
			},
		);
	});

	it('refuses raw bytes over the limit with 413 when no Content-Length was declared, and takes exactly the limit', () => {
		const event = JSON.stringify({ event_type: 'call.ended', padding: '' });
		const atLimit = JSON.stringify({ event_type: 'call.ended', padding: 'x'.repeat(MAX_BODY_BYTES - event.length) });
		expect(atLimit).toHaveLength(MAX_BODY_BYTES);
		expect(parseDelivery({ headers: json, body: JSON.parse(atLimit), rawBody: raw(atLimit) })).toMatchObject({ ok: true });
		expect(parseDelivery({ headers: json, body: JSON.parse(atLimit), rawBody: raw(`${atLimit} `) })).toMatchObject({ ok: false, statusCode: 413 });
	});

	it.each([
		['an object', { event_type: 'call.ended' }],
		['an array', [{ event_type: 'call.ended' }]],
	])('takes the body n8n parsed (%s) without reading the raw bytes again', (_label, body) => {
		expect(parseDelivery({ headers: json, body, rawBody: unread(40) })).toEqual({ ok: true, entries: [{ event_type: 'call.ended' }] });
	});

	it('parses the raw bytes when n8n left an empty body, and refuses malformed JSON with 400', () => {
		expect(parseDelivery({ headers: json, body: {}, rawBody: raw('{"event_type":"call.ended"}') })).toEqual({ ok: true, entries: [{ event_type: 'call.ended' }] });
		expect(parseDelivery({ headers: json, body: {}, rawBody: raw('{"event_type":') })).toEqual({
			ok: false,
			statusCode: 400,
			message: 'The body must be a JSON object or an array of objects',
		});
	});

	it('takes an empty delivery (no bytes) as one event without fields, typed later by the module\'s event header', () => {
		expect(parseDelivery({ headers: json, body: {}, rawBody: raw('') })).toEqual({ ok: true, entries: [{}] });
	});

	it.each([
		['null', null],
		['a number', 5],
		['an array with one non-object', [{ event_type: 'call.ended' }, 5]],
	])('refuses a body that is %s with 400', (_label, body) => {
		expect(parseDelivery({ headers: json, body, rawBody: raw(JSON.stringify(body)) })).toMatchObject({ ok: false, statusCode: 400 });
	});
});
