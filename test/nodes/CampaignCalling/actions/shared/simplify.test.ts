import { defineSimplify } from '../../../../../nodes/CampaignCalling/actions/shared/simplify';

const { shape } = defineSimplify({ keptFields: ['id', 'name'], leadingFields: ['id', 'name'] });

describe('Simplify shaping a record', () => {
	const record = { notes: 'n', name: 'N', extra: 1, id: 'i' };

	it('not simplified puts the leading fields first and keeps the rest in their order', () => {
		expect(Object.keys(shape(record, false))).toEqual(['id', 'name', 'notes', 'extra']);
		expect(shape(record, false)).toEqual(record);
	});

	it('simplified keeps only the kept fields, in their order, leaving out those the record lacks', () => {
		expect(shape({ name: 'N', other: 2 }, true)).toStrictEqual({ name: 'N' });
		expect(Object.keys(shape(record, true))).toEqual(['id', 'name']);
	});
});
