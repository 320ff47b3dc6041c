import { shapeRecord } from '../../../../../nodes/CampaignCalling/actions/shared/simplify';

const options = (simplify: boolean, typeVersion: number) => ({ simplify, typeVersion, keptFields: ['id', 'name'], leadingFields: ['id', 'name'] });

describe('shapeRecord', () => {
	const record = { notes: 'n', name: 'N', extra: 1, id: 'i' };

	it('version 1 hands the record on as it is: the same object, key order unchanged', () => {
		expect(shapeRecord(record, options(false, 1))).toBe(record);
	});

	it('version 2 puts the leading fields first and keeps the rest in their order', () => {
		expect(Object.keys(shapeRecord(record, options(false, 2)))).toEqual(['id', 'name', 'notes', 'extra']);
	});

	it('simplified keeps only the kept fields, in their order, leaving out those the record lacks', () => {
		expect(shapeRecord({ name: 'N', other: 2 }, options(true, 2))).toEqual({ name: 'N' });
		expect(Object.keys(shapeRecord(record, options(true, 1)))).toEqual(['id', 'name']);
	});
});
