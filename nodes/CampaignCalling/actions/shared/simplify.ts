import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** The Simplify toggle, on by default. */
export function simplifyProperty(keptFields: readonly string[]): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		hint: `Keeps ${keptFields.join(', ')}`,
	};
}

/** Whether this item's output is simplified; an unset toggle is on. */
export function readSimplify(context: IExecuteFunctions, itemIndex: number): boolean {
	return context.getNodeParameter('simplify', itemIndex, true) === true;
}

/**
 * Shapes one record of the service for output.
 * - simplified: only `keptFields`, in that order; fields the answer lacks are left out;
 * - not simplified: every field, the `leadingFields` first, so Table view opens on them.
 */
export function shapeRecord(
	record: IDataObject,
	options: { simplify: boolean; keptFields: readonly string[]; leadingFields: readonly string[] },
): IDataObject {
	if (options.simplify) return pick(record, options.keptFields);
	return { ...pick(record, options.leadingFields), ...record };
}

function pick(record: IDataObject, fields: readonly string[]): IDataObject {
	const picked: IDataObject = {};
	for (const field of fields) {
		if (Object.prototype.hasOwnProperty.call(record, field)) picked[field] = record[field];
	}
	return picked;
}
