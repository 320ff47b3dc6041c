import type { IDataObject } from 'n8n-workflow';

/**
 * A number of the delivery whose JSON text a double does not hold (an id beyond 2^53, say): it is
 * hashed by its exact decimal value, so ids that differ only in digits a double drops stay apart.
 */
export class ExactNumber {
	readonly text: string;

	constructor(text: string) {
		this.text = text;
	}
}

/**
 * Whether a body may hold a number that JSON parsing changed: one with 16 or more digits, or an
 * exponent of three digits. Any other JSON number has at most 15 significant digits within a double's
 * normal range, which a double holds exactly, so most deliveries skip the second parse.
 */
const MAY_LOSE_DIGITS = /\d(?:\.?\d){15}|[eE][+-]?\d{3}/;

/**
 * The events to take repeat keys from: the parsed ones, or, when the body may hold numbers that JSON
 * parsing rounded, the same events parsed again from the raw body with those numbers kept exactly.
 */
export function keySources(entries: IDataObject[], rawBody: string | undefined): unknown[] {
	if (rawBody === undefined || !MAY_LOSE_DIGITS.test(rawBody)) return entries;
	let exact: unknown;
	try {
		exact = parseKeepingNumbers(rawBody);
	} catch {
		return entries;
	}
	return Array.isArray(exact) ? exact : [exact];
}

/**
 * Newer Node (V8 11.4 on, so Node 21 and later: n8n 2.x runs on 24) hands JSON.parse's reviver each
 * number's text; n8n 1.x may run on Node 20, which does not.
 */
const SOURCE_TEXT_IN_REVIVER = (() => {
	try {
		return JSON.parse('1', (_key, value, context?: { source?: string }) => context?.source ?? value) === '1';
	} catch {
		return false;
	}
})();

/** JSON.parse with each number that a double does not hold kept as its exact value. */
function parseKeepingNumbers(text: string): unknown {
	if (!SOURCE_TEXT_IN_REVIVER) return parseNumbersByHand(text);
	return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
		typeof value === 'number' && context?.source !== undefined ? exactNumber(context.source, value) : value,
	);
}

// A string token; JSON.parse then decodes it, refusing what JSON does not allow in a string.
const JSON_STRING = /"(?:[^"\\]|\\.)*"/y;
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON_SPACE = /[ \t\n\r]*/y;

/** The same JSON parse on a Node whose reviver gets no number text: a small parser of its own. */
function parseNumbersByHand(text: string): unknown {
	let at = 0;
	const fail = (): never => {
		throw new SyntaxError(`Unexpected JSON at position ${at}`);
	};
	const match = (pattern: RegExp): string | undefined => {
		pattern.lastIndex = at;
		const found = pattern.exec(text);
		if (found === null) return undefined;
		at += found[0].length;
		return found[0];
	};
	const skipSpace = () => match(JSON_SPACE);
	const take = (expected: string) => {
		skipSpace();
		if (text[at] !== expected) fail();
		at++;
	};
	const readString = (): string => JSON.parse(match(JSON_STRING) ?? fail()) as string;
	const readValue = (): unknown => {
		skipSpace();
		const first = text[at];
		if (first === '{') {
			at++;
			// Own data properties as JSON.parse makes them, a "__proto__" field included.
			const object: Record<string, unknown> = {};
			skipSpace();
			if (text[at] === '}') return (at++, object);
			for (;;) {
				skipSpace();
				const name = readString();
				take(':');
				Object.defineProperty(object, name, { value: readValue(), enumerable: true, writable: true, configurable: true });
				skipSpace();
				if (text[at] === '}') return (at++, object);
				take(',');
			}
		}
		if (first === '[') {
			at++;
			const array: unknown[] = [];
			skipSpace();
			if (text[at] === ']') return (at++, array);
			for (;;) {
				array.push(readValue());
				skipSpace();
				if (text[at] === ']') return (at++, array);
				take(',');
			}
		}
		if (first === '"') return readString();
		for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
			if (text.startsWith(word, at)) return (at += word.length, value);
		}
		const number = match(JSON_NUMBER) ?? fail();
		return exactNumber(number, Number(number));
	};
	const value = readValue();
	skipSpace();
	if (at !== text.length) fail();
	return value;
}

/** The parsed double where it holds the number's value (so such a key hashes as its JSON does), else its exact value. */
function exactNumber(source: string, parsed: number): number | ExactNumber {
	const exact = decimalValue(source);
	return exact === decimalValue(String(parsed)) ? parsed : new ExactNumber(exact ?? source);
}

/**
 * A number's value as one text per value: its significant digits and power of ten ("12e-1" for 1.20),
 * written out in full for integers up to 20 trailing zeros. undefined for what is not a decimal
 * number (String of Infinity).
 */
function decimalValue(text: string): string | undefined {
	const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
	if (parts === null) return undefined;
	const [, sign, whole, fraction = '', exponent = '0'] = parts;
	let digits = `${whole}${fraction}`.replace(/^0+/, '');
	if (digits === '') return '0';
	let power = Number(exponent) - fraction.length;
	const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
	digits = digits.slice(0, digits.length - trailing);
	power += trailing;
	return power >= 0 && power <= 20 ? `${sign}${digits}${'0'.repeat(power)}` : `${sign}${digits}e${power}`;
}

