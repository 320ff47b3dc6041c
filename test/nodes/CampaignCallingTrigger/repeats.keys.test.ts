/**
 * The events repeat keys are taken from (repeats.ts, keySources): numbers a double does not hold are
 * kept as their exact value, alike on Node 21 and later and on Node 20, whose reviver gets no number text.
 */
import { keySources, repeatKeyHash } from '../../../nodes/CampaignCallingTrigger/repeats';

type Modules = { keySources: typeof keySources; repeatKeyHash: typeof repeatKeyHash };

/** The modules as a Node without the reviver's number text (Node 20) loads them. */
function onNode20(): Modules {
	let loaded: Modules | undefined;
	jest.isolateModules(() => {
		const parse = JSON.parse;
		const withoutSourceText = jest.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) =>
			reviver === undefined ? parse(text) : parse(text, function (this: unknown, key: string, value: unknown) {
				return reviver.call(this, key, value);
			}),
		);
		loaded = {
			keySources: (require('../../../nodes/CampaignCallingTrigger/repeats') as Modules).keySources,
			repeatKeyHash: (require('../../../nodes/CampaignCallingTrigger/repeats') as Modules).repeatKeyHash,
		};
		withoutSourceText.mockRestore();
	});
	return loaded!;
}

const thisNode: Modules = { keySources, repeatKeyHash };
const sourceOf = ({ keySources: sources }: Modules, raw: string) => sources([JSON.parse(raw)], raw)[0];
const hashOf = (modules: Modules, raw: string, path: string[] = []) => modules.repeatKeyHash(sourceOf(modules, raw), path, 'call.ended');
const big = (id: string) => `{"event_type":"call.ended","data":{"id":${id},"note":"x"}}`;

describe('the events repeat keys are taken from', () => {
	it('are the parsed events for a body without long numbers, which is not parsed again', () => {
		const raw = '{"event_type":"call.ended","data":{"call_id":"c-1","scores":[1,23],"tags":["a","b"]}}';
		const entries = [JSON.parse(raw)];
		expect(keySources(entries, raw)).toBe(entries);
		expect(repeatKeyHash(keySources(entries, raw)[0], [], 'call.ended')).toBe('7aHYcMz-uEdAjU34');
		// 15 significant digits: a double holds them exactly.
		const fifteen = '{"id":123456789012345}';
		expect(keySources([JSON.parse(fifteen)], fifteen)[0]).toEqual({ id: 123456789012345 });
	});

	it(`hash alike on this Node (${process.version}) and on Node 20, whose reviver gets no number text`, () => {
		const node20 = onNode20();
		const bodies = [
			big('12345678901234567891'),
			big('-12345678901234567891'),
			'{"a":1e400,"b":-0,"c":1.0,"d":0.1000000000000000055511151231257827,"e":"12345678901234567891"}',
			'{"v":[{"__proto__":{"x":1},"n":null,"t":true,"f":false}],"big":12345678901234567891}',
			' { "s" : "\\u00e9\\"\\\\" , "deep" : [ [ [ 1.5e-7 , 2E+21 ] ] ] , "big" : 12345678901234567891 } ',
			'{"a":1,"a":2,"big":12345678901234567891}',
			'{"e":{},"a":[],"o":{ },"l":[ ],"big":12345678901234567891}',
			// Pretty-printed: runs of spaces, tabs and line ends between the tokens.
			'{\n  "event_type": "call.ended",\r\n\t\t"data": {\n    "id": 12345678901234567891\n  }\n}\n',
		];
		for (const body of bodies) {
			expect(hashOf(node20, body)).toBe(hashOf(thisNode, body));
			expect(JSON.stringify(sourceOf(node20, body))).toBe(JSON.stringify(sourceOf(thisNode, body)));
		}
		const withProto = sourceOf(node20, '{"__proto__":{"x":1},"big":12345678901234567891}') as object;
		expect([Object.getPrototypeOf(withProto), Object.keys(withProto)]).toEqual([Object.prototype, ['__proto__', 'big']]);
		// Plain data properties, as JSON.parse makes them: enumerable, writable and configurable.
		const descriptors = (modules: Modules) => Object.getOwnPropertyDescriptors(sourceOf(modules, '{"__proto__":{"x":1},"big":12345678901234567891}') as object);
		expect(descriptors(node20)).toEqual(descriptors(thisNode));
		// Malformed JSON (each with a long number, which makes it parsed again): JSON.parse refuses it, and
		// the events n8n parsed are hashed.
		const malformedBodies = [
			...['{"a":}', '[1,]', '{"a":1} x', '"\\u00"', '01'].map((text) => `${text} 12345678901234567891`),
			'{"a"=12345678901234567891}',
			'[12345678901234567891;2]',
		];
		for (const malformed of malformedBodies) {
			const entries = [{ a: 1 }];
			expect(node20.keySources(entries, malformed)).toBe(entries);
		}
	});

	it('write a number a double does not hold as its significant digits and power of ten, in full up to 20 zeros, on this Node and on Node 20', () => {
		const textOf = (modules: Modules, number: string) => (sourceOf(modules, `{"n":${number}}`) as { n: { text?: string } }).n.text;
		for (const modules of [thisNode, onNode20()]) {
			expect(textOf(modules, '12345678901234567891')).toBe('12345678901234567891');
			expect(textOf(modules, '-1234567890123456789.1e1')).toBe('-12345678901234567891');
			expect(textOf(modules, '1234567890123456789100000000000000000000')).toBe('1234567890123456789100000000000000000000');
			expect(textOf(modules, '12345678901234567891e21')).toBe('12345678901234567891e21');
			expect(textOf(modules, '0.00012345678901234567891')).toBe('12345678901234567891e-23');
			expect(textOf(modules, '1e400')).toBe('1e400');
			expect(textOf(modules, '1234567890123456789.1e-29')).toBe('12345678901234567891e-30');
			// -0 in any form is a number a double holds: no text.
			expect(textOf(modules, '-0.0e400')).toBeUndefined();
		}
	});

	it('keep texts as texts beside a long number: events that differ only in a text stay apart, on this Node and on Node 20', () => {
		for (const modules of [thisNode, onNode20()]) {
			expect((sourceOf(modules, big('12345678901234567891')) as { data: { note: unknown } }).data.note).toBe('x');
			expect(hashOf(modules, '{"id":12345678901234567891,"note":"a"}')).not.toBe(hashOf(modules, '{"id":12345678901234567891,"note":"b"}'));
		}
	});

	it('keep numbers a double holds as numbers, and the others as one text per value, on this Node and on Node 20', () => {
		for (const modules of [thisNode, onNode20()]) {
			expect(hashOf(modules, '{"n":1e400}')).not.toBe(hashOf(modules, '{"n":null}'));
			expect(hashOf(modules, '{"n":1e-400}')).not.toBe(hashOf(modules, '{"n":0}'));
			// Trailing zeros and a negative exponent: 1e-5 and 1e-30 as a double holds them.
			expect(hashOf(modules, '{"n":1.000000000000000e-5,"m":1.000000000000000e-30}')).toBe(hashOf(modules, '{"n":0.00001,"m":1e-30}'));
			expect(hashOf(modules, '{"n":12345678901234567891}')).toBe(hashOf(modules, '{"n":1234567890123456789.1e1}'));
			expect(hashOf(modules, '{"n":12345678901234567891}')).not.toBe(hashOf(modules, '{"n":12345678901234567890}'));
			expect(hashOf(modules, '{"n":1.0,"m":12345678901234567891}')).toBe(hashOf(modules, '{"n":1,"m":12345678901234567891}'));
			// Ids that differ only in digits a double drops stay apart.
			expect(hashOf(modules, big('12345678901234567891'), ['data', 'id'])).not.toBe(hashOf(modules, big('12345678901234567892'), ['data', 'id']));
		}
	});
});
