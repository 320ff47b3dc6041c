import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ParameterReader } from './parameters';

/** The node version from which Simplify is on by default and records lead with their key fields. */
export const SIMPLIFY_DEFAULT_ON_FROM = 2;

const simplifyDescription = 'Whether to return a simplified version of the response instead of the raw data';

/**
 * The Simplify toggle, twice over: version 1 defaults it to false, so saved workflows keep their
 * output exactly; version 2 and later (new nodes get 3) default it to true. Same stored name in both.
 */
export function simplifyProperties(keptFields: readonly string[]): INodeProperties[] {
	const hint = `Keeps ${keptFields.join(', ')}`;
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description: simplifyDescription,
			hint,
			displayOptions: { show: { '@version': [1] } },
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description: simplifyDescription,
			hint,
			displayOptions: { show: { '@version': [{ _cnd: { gte: SIMPLIFY_DEFAULT_ON_FROM } }] } },
		},
	];
}

/** Whether this item's output is simplified; an unset toggle takes its version's default. */
export function readSimplify(this: IExecuteFunctions, itemIndex: number, params: ParameterReader): boolean {
	const byDefault = this.getNode().typeVersion >= SIMPLIFY_DEFAULT_ON_FROM;
	return params.get<boolean>('simplify', itemIndex, byDefault) === true;
}

/**
 * Shapes one record of the service for output.
 * - simplified: only `keptFields`, in that order; fields the answer lacks are left out;
 * - version 1: the record exactly as the service sent it;
 * - version 2 and later: every field, the `leadingFields` first, so Table view opens on them.
 */
export function shapeRecord(
	record: IDataObject,
	options: { simplify: boolean; typeVersion: number; keptFields: readonly string[]; leadingFields: readonly string[] },
): IDataObject {
	if (options.simplify) return pick(record, options.keptFields);
	if (options.typeVersion < SIMPLIFY_DEFAULT_ON_FROM) return record;
	return { ...pick(record, options.leadingFields), ...record };
}

function pick(record: IDataObject, fields: readonly string[]): IDataObject {
	const picked: IDataObject = {};
	for (const field of fields) {
		if (Object.prototype.hasOwnProperty.call(record, field)) picked[field] = record[field];
	}
	return picked;
}
