import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireIntegerInRange } from '../../../shared/validation';

/**
 * A node-wide collection of whole numbers, read once per run: each option unset takes its property's default,
 * each set is checked against its property's range; `labelPrefix` names the collection in errors.
 */
export function readIntegerOptions(context: IExecuteFunctions, collection: INodeProperties, labelPrefix = ''): Record<string, number> {
	const values = context.getNodeParameter(collection.name, 0, {}) as Record<string, unknown>;
	const read: Record<string, number> = {};
	for (const option of collection.options as INodeProperties[]) {
		const { minValue = 0, maxValue = Number.MAX_SAFE_INTEGER } = option.typeOptions ?? {};
		const label = `${labelPrefix}${option.displayName}`;
		read[option.name] = values[option.name] === undefined ? (option.default as number) : requireIntegerInRange(values[option.name], label, minValue, maxValue);
	}
	return read;
}
