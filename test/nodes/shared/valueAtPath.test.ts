import { valueAtPath, valuesAtPaths } from '../../../nodes/shared/valueAtPath';

describe('valueAtPath', () => {
	it('reads nested own properties, and the root for an empty path', () => {
		const root = { a: { b: { c: 3 } }, 'x y': 'spaced' };
		expect(valueAtPath(root, ['a', 'b', 'c'])).toBe(3);
		expect(valueAtPath(root, ['x y'])).toBe('spaced');
		expect(valueAtPath(root, [])).toBe(root);
	});

	it('is undefined where the path leaves the data: a missing key, null, text or a number on the way', () => {
		const root = { a: null, b: 'text', c: 5 };
		expect(valueAtPath(root, ['missing'])).toBeUndefined();
		expect(valueAtPath(root, ['a', 'b'])).toBeUndefined();
		expect(valueAtPath(root, ['b', 'length'])).toBeUndefined();
		expect(valueAtPath(root, ['c', 'toFixed'])).toBeUndefined();
		expect(valueAtPath(undefined, ['a'])).toBeUndefined();
	});

	it('never reaches into a prototype', () => {
		expect(valueAtPath({}, ['constructor'])).toBeUndefined();
		expect(valueAtPath({ a: {} }, ['a', '__proto__'])).toBeUndefined();
		expect(valueAtPath({ a: {} }, ['a', 'hasOwnProperty'])).toBeUndefined();
	});

	it('does not enter an object the caller marks as a leaf', () => {
		class Leaf {
			text: string;
			constructor(text: string) {
				this.text = text;
			}
		}
		const root = { amount: new Leaf('1.50') };
		expect(valueAtPath(root, ['amount', 'text'], (value) => value instanceof Leaf)).toBeUndefined();
		expect(valueAtPath(root, ['amount'], (value) => value instanceof Leaf)).toBe(root.amount);
		expect(valueAtPath(root, ['amount', 'text'])).toBe('1.50');
	});
});

describe('valuesAtPaths', () => {
	it('reads each path in order, through own properties only, with nothing where a path is null', () => {
		const root = { a: { b: 2 }, c: 'three' };
		expect(valuesAtPaths(root, [['a', 'b'], null, ['c'], ['constructor'], []])).toEqual([2, undefined, 'three', undefined, root]);
	});
});
