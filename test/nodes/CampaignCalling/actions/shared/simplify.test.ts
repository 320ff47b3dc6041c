import { shapeRecord } from '../../../../../nodes/CampaignCalling/actions/shared/simplify';

const options = (simplify: boolean) => ({ simplify, keptFields: ['id', 'name'], leadingFields: ['id', 'name'] });

describe('shapeRecord', () => {
	const record = { notes: 'n', name: 'N', extra: 1, id: 'i' };

	it('not simplified puts the leading fields first and keeps the rest in their order', () => {
		expect(Object.keys(shapeRecord(record, options(false)))).toEqual(['id', 'name', 'notes', 'extra']);
		expect(shapeRecord(record, options(false))).toEqual(record);
	});

	it('simplified keeps only the kept fields, in their order, leaving out those the record lacks', () => {
		expect(shapeRecord({ name: 'N', other: 2 }, options(true))).toStrictEqual({ name: 'N' });
		expect(Object.keys(shapeRecord(record, options(true)))).toEqual(['id', 'name']);
	});
});
