import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** The Simplify toggle (on by default) of an operation that outputs service records, and how it shapes them. */
export function defineSimplify({ keptFields, leadingFields }: { keptFields: string[]; leadingFields: string[] }) {
	const property: INodeProperties = {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		hint: `Keeps ${keptFields.join(', ')}`,
	};
	return {
		property,
		/** Whether this item's output is simplified; an unset toggle is on. */
		read: (context: IExecuteFunctions, itemIndex: number) => context.getNodeParameter('simplify', itemIndex, true) === true,
		/** Simplified: only the kept fields, in their order. Not: every field, the leading ones first, so Table view opens on them. */
		shape: (record: IDataObject, simplified: boolean): IDataObject =>
			simplified ? pick(record, keptFields) : { ...pick(record, leadingFields), ...record },
	};
}

/** The fields of `record` that `fields` names, in that order. */
const pick = (record: IDataObject, fields: string[]): IDataObject =>
	Object.fromEntries(fields.filter((field) => Object.prototype.hasOwnProperty.call(record, field)).map((field) => [field, record[field]]));
