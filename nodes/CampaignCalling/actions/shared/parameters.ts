import type { IExecuteFunctions, INodeParameters, NodeParameterValueType } from 'n8n-workflow';

/**
 * Reads node parameters for many items while paying n8n's expression cost (about 0.4 ms per
 * expression per item) only where a value can differ between items: a parameter with no
 * expression anywhere in it is evaluated once per execution and reused for every item.
 */
export class ParameterReader {
	private readonly context: IExecuteFunctions;

	private readonly rawParameters: INodeParameters;

	private readonly constants = new Map<string, unknown>();

	constructor(context: IExecuteFunctions) {
		this.context = context;
		this.rawParameters = context.getNode().parameters;
	}

	/** The parameter's value for an item; `name` may be a dotted path such as `options.batchSize`. */
	get<T>(name: string, itemIndex: number, fallback?: T): T {
		if (this.constants.has(name)) return this.constants.get(name) as T;
		const value = this.context.getNodeParameter(name, itemIndex, fallback as NodeParameterValueType) as T;
		if (!containsExpression(rawAt(this.rawParameters, name))) this.constants.set(name, value);
		return value;
	}
}

function rawAt(parameters: INodeParameters, path: string): unknown {
	let current: unknown = parameters;
	for (const key of path.split('.')) {
		if (current === null || typeof current !== 'object') return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}

/** n8n marks an expression by a leading `=` on a string value, at any depth of the parameter. */
export function containsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(containsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(containsExpression);
	return false;
}
