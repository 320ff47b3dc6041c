import type { INodeProperties } from 'n8n-workflow';

/**
 * Shows `properties` only for one resource and operation. (n8n-workflow's own helper for this is
 * missing from older n8n releases, which load this package with their own n8n-workflow.)
 */
export function forOperation(resource: string, operation: string, properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, resource: [resource], operation: [operation] },
		},
	}));
}
