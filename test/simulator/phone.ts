/**
 * Phone numbers arrive "in various formats" and are stored in E.164. The spec does not show the
 * rules; the simulator's: strip spaces, dashes, dots and parentheses; a leading '00' becomes '+';
 * ten digits without a prefix are a North American number (+1); other digits without a prefix are
 * taken as already international. Letters or any other character, a country code starting with 0,
 * and fewer than 7 or more than 15 digits are rejected.
 */

export type PhoneNumberResult =
	| { ok: true; e164: string; countryCode: string }
	| { ok: false; reason: string };

const SEPARATORS = /[\s\-.()]/g;

// E.164 country codes are prefix-free: +1 and +7 are the only one-digit codes, these are the
// two-digit ones, and every other code has three digits.
const ONE_DIGIT_CODES = new Set(['1', '7']);
const TWO_DIGIT_CODES = new Set(
	'20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98'.split(' '),
);

export function normalizePhoneNumber(input: string): PhoneNumberResult {
	const compact = input.trim().replace(SEPARATORS, '');
	let digits: string;
	if (compact.startsWith('+')) digits = compact.slice(1);
	else if (compact.startsWith('00')) digits = compact.slice(2);
	else if (/^\d{10}$/.test(compact)) digits = `1${compact}`;
	else digits = compact;

	if (!/^\d+$/.test(digits)) return { ok: false, reason: `phone_number has characters other than digits: ${input}` };
	if (digits.length < 7 || digits.length > 15) {
		return { ok: false, reason: `phone_number must have 7 to 15 digits: ${input}` };
	}
	if (digits.startsWith('0')) return { ok: false, reason: `phone_number has no country code: ${input}` };
	return { ok: true, e164: `+${digits}`, countryCode: `+${countryCodeOf(digits)}` };
}

function countryCodeOf(digits: string): string {
	if (ONE_DIGIT_CODES.has(digits.slice(0, 1))) return digits.slice(0, 1);
	if (TWO_DIGIT_CODES.has(digits.slice(0, 2))) return digits.slice(0, 2);
	return digits.slice(0, 3);
}
