import { InvalidInputError } from '../../../nodes/shared/transport/failures';
import {
	parseIntegerList,
	parseJsonObject,
	parseStringList,
	quote,
	requireHttpUrl,
	requireIntegerInRange,
	requireCampaignContacts,
	requireNonEmptyString,
	requirePhoneNumber,
	requireUuid,
} from '../../../nodes/shared/validation';

/** The error `run` throws, checked to be an InvalidInputError. */
function invalid(run: () => unknown): InvalidInputError {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(InvalidInputError);
		return error as InvalidInputError;
	}
	throw new Error('no error was thrown');
}

describe('quote', () => {
	it('shows texts in quotes, other values as JSON, and shortens long ones', () => {
		expect(quote('abc')).toBe('"abc"');
		expect(quote(undefined)).toBe('nothing');
		expect(quote(null)).toBe('null');
		expect(quote([1, 'a'])).toBe('[1,"a"]');
		expect(quote(12)).toBe('12');
		expect(quote(() => 1)).toMatch(/^\(\) => 1$/);
		expect(quote('x'.repeat(100))).toBe(`"${'x'.repeat(76)}...`);
		// 80 characters with the quotes: shown whole.
		expect(quote('x'.repeat(78))).toBe(`"${'x'.repeat(78)}"`);
		// Text as typed, not escaped as JSON would.
		expect(quote('say "hi"\\')).toBe('"say "hi"\\"');
		const circular: Record<string, unknown> = {};
		circular.self = circular;
		expect(quote(circular)).toBe('[object Object]');
	});
});

describe('requireUuid', () => {
	it('accepts UUIDs of any case, trimmed', () => {
		expect(requireUuid(' 123E4567-e89b-12d3-a456-426614174000 ', 'ID')).toBe('123E4567-e89b-12d3-a456-426614174000');
	});

	it.each([
		['not-a-uuid'],
		['123e4567e89b12d3a456426614174000'],
		['123e4567-e89b-12d3-a456-42661417400z'],
		['x123e4567-e89b-12d3-a456-426614174000'],
		['123e4567-e89b-12d3-a456-4266141740001'],
		[42],
	])('refuses %p', (value) => {
		expect(invalid(() => requireUuid(value, 'ID')).message).toMatch(/^ID must be a UUID like/);
	});

	it('refuses empty values with a hint', () => {
		const error = invalid(() => requireUuid('  ', 'ID'));
		expect(error.message).toBe('ID is empty');
		expect(error.hint).toMatch(/Enter the ID/);
		expect(invalid(() => requireUuid({}, 'ID')).message).toBe('ID is empty');
	});
});

describe('requireNonEmptyString', () => {
	it('trims texts and accepts finite numbers', () => {
		expect(requireNonEmptyString(' Ada ', 'Name')).toBe('Ada');
		expect(requireNonEmptyString(7, 'Name')).toBe('7');
	});

	it.each([[''], ['   '], [null], [undefined], [true], [Number.NaN], [{}]])('refuses %p', (value) => {
		expect(invalid(() => requireNonEmptyString(value, 'Name')).message).toMatch(/^Name (is empty|must be text, got )/);
	});
});

describe('requirePhoneNumber', () => {
	it.each([['+14155550123'], ['(415) 555-0123'], ['415.555.0123'], ['12345'], ['+123456789012345']])('accepts %s', (phone) => {
		expect(requirePhoneNumber(phone, 'Phone')).toBe(phone);
	});

	it.each([
		['call me', /may hold only digits/],
		['+1 415 CALL NOW', /may hold only digits/],
		['1234', /between 5 and 15 digits/],
		['+1234567890123456', /between 5 and 15 digits/],
		['++14155550123', /may hold only digits/],
		['', /is empty/],
	])('refuses %p', (phone, message) => {
		const error = invalid(() => requirePhoneNumber(phone, 'Phone'));
		expect(error.message).toMatch(message);
		expect(error.hint).toMatch(/\+14155550123/);
	});
});

describe('JSON values', () => {
	it('requireCampaignContacts tells a list that is no JSON from the JSON text null, which is no array', () => {
		const campaignId = '123e4567-e89b-12d3-a456-426614174000';
		expect(requireCampaignContacts(campaignId, '[]', 'hint', 'List').contacts).toEqual([]);
		expect(invalid(() => requireCampaignContacts(campaignId, '[{a:1}]', 'hint', 'List')).message).toBe('List is not valid JSON: "[{a:1}]"');
		expect(invalid(() => requireCampaignContacts(campaignId, 'null', 'hint', 'List')).message).toBe('List must be a JSON array of contacts, got null');
	});

	it('parseJsonObject takes an object or a JSON string of one', () => {
		expect(parseJsonObject({ a: 1 }, 'Meta')).toEqual({ a: 1 });
		expect(parseJsonObject(' {"a": [1]} ', 'Meta')).toEqual({ a: [1] });
	});

	it.each([
		['[1]', 'Meta must be a JSON object, got an array'],
		[[1], 'Meta must be a JSON object, got an array'],
		['null', 'Meta must be a JSON object, got null'],
		['"text"', 'Meta must be a JSON object, got a string'],
		[5, 'Meta must be a JSON object, got a number'],
		['{oops}', 'Meta is not valid JSON: "{oops}"'],
	])('parseJsonObject refuses %p', (value, message) => {
		expect(invalid(() => parseJsonObject(value, 'Meta')).message).toBe(message);
	});

	it('parseJsonObject\'s refusal says what to give', () => {
		expect(invalid(() => parseJsonObject('[]', 'Meta')).hint).toBe('Give a JSON object, for example {"email": "ada@example.com"}.');
	});
});

describe('lists', () => {
	it('parseIntegerList takes comma-separated text, JSON arrays, real arrays and single numbers', () => {
		expect(parseIntegerList('1,2,3', 'Days')).toEqual([1, 2, 3]);
		expect(parseIntegerList(' 1 , 2 ', 'Days')).toEqual([1, 2]);
		expect(parseIntegerList('[4, "5"]', 'Days')).toEqual([4, 5]);
		expect(parseIntegerList([6, '7'], 'Days')).toEqual([6, 7]);
		expect(parseIntegerList(3, 'Days')).toEqual([3]);
		expect(parseIntegerList('', 'Days')).toEqual([]);
		expect(parseIntegerList('-1', 'Days')).toEqual([-1]);
		expect(parseIntegerList(' [4, 5] ', 'Days')).toEqual([4, 5]);
	});

	it('says how to separate the values when an entry is refused', () => {
		expect(invalid(() => parseIntegerList('1,two', 'Days')).hint).toBe('Separate the numbers with commas, for example "1,2,3".');
		expect(invalid(() => parseStringList(['a', ''], 'Tags')).hint).toBe('Separate the values with commas, for example "web, referral".');
	});

	it.each([
		['1,two', 'Days must hold only whole numbers, got "two"'],
		['1.5', 'Days must hold only whole numbers, got "1.5"'],
		// A blank between commas is an empty entry, and blanks are no number (Number(' ') would give 0).
		['1, ,3', 'Days must hold only whole numbers, got ""'],
		['[1, " "]', 'Days must hold only whole numbers, got " "'],
		[[1, null], 'Days must hold only whole numbers, got null'],
		[[true], 'Days must hold only whole numbers, got true'],
		['[1,', 'Days is not a valid JSON array: "[1,"'],
		[{ a: 1 }, 'Days must be a list or a comma-separated text, got {"a":1}'],
	])('parseIntegerList refuses %p', (value, message) => {
		expect(invalid(() => parseIntegerList(value, 'Days')).message).toBe(message);
	});

	it('parseStringList trims entries and takes numbers and booleans as text', () => {
		expect(parseStringList(' web , csv import ', 'Tags')).toEqual(['web', 'csv import']);
		expect(parseStringList(['a', 1, false], 'Tags')).toEqual(['a', '1', 'false']);
		expect(parseStringList('["x", "y"]', 'Tags')).toEqual(['x', 'y']);
		expect(parseStringList([' a ', 'b '], 'Tags')).toEqual(['a', 'b']);
	});

	it.each([['a,,b'], [['a', '']], [['a', '  ']], [['a', { b: 1 }]], [null]])('parseStringList refuses %p', (value) => {
		expect(invalid(() => parseStringList(value, 'Tags')).message).toMatch(/^Tags must (hold only non-empty texts|be a list)/);
	});
});

describe('requireHttpUrl', () => {
	it('accepts http and https addresses', () => {
		expect(requireHttpUrl(' https://hooks.example.com/x?y=1 ', 'URL')).toBe('https://hooks.example.com/x?y=1');
		expect(requireHttpUrl('http://127.0.0.1:5678/webhook', 'URL')).toBe('http://127.0.0.1:5678/webhook');
	});

	it.each([['ftp://x.example.com'], ['hooks.example.com'], ['mailto:a@example.com'], ['javascript:alert(1)'], ['']])('refuses %p', (url) => {
		expect(invalid(() => requireHttpUrl(url, 'URL')).message).toMatch(/^URL (must be an http:\/\/ or https:\/\/ address|is empty)/);
	});

	it.each([['ftp://x.example.com'], ['']])('says how to write the address when it refuses %p', (url) => {
		expect(invalid(() => requireHttpUrl(url, 'URL')).hint).toBe('Enter the full address, for example https://hooks.example.com/calls.');
	});
});

describe('requireIntegerInRange', () => {
	it('accepts whole numbers and numeric text within the range', () => {
		expect(requireIntegerInRange(1, 'N', 1, 3)).toBe(1);
		expect(requireIntegerInRange('3', 'N', 1, 3)).toBe(3);
	});

	it.each([[0], [4], [1.5], ['two'], [''], [null], [undefined]])('refuses %p', (value) => {
		expect(invalid(() => requireIntegerInRange(value, 'N', 1, 3)).message).toMatch(/^N must be a whole number from 1 to 3, got /);
	});

	it.each([['  '], [true], [[1]]])('refuses %p where 0 and 1 are allowed: blanks, a boolean or a list are no number', (value) => {
		expect(invalid(() => requireIntegerInRange(value, 'N', 0, 3)).message).toMatch(/^N must be a whole number from 0 to 3, got /);
	});
});
