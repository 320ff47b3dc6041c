/**
 * Benchmark 3: Add Contacts over 100,000 items inside n8n's real ExecuteContext, against a stub
 * transport (no network), so the figure is the node's own overhead: parameter reading,
 * validation, batching and output building. Prints time and heap growth per item.
 * Run with `npm run bench` (part of the benchmark, not of `npm test`).
 */
import { executeContextFor } from '../test/helpers/n8nContext.ts';

const ITEMS = Number(process.env.BENCH_INPROCESS_ITEMS ?? 100_000);

function items() {
	return Array.from({ length: ITEMS }, (_, i) => ({
		json: { firstname: `Lead${i}`, lastname: 'Doe', phone_number: `+1415${String(i).padStart(7, '0')}`, x: `Lead${i}` },
	}));
}

type Mode = { label: string; parameters: Record<string, unknown> };

const modes: Mode[] = [
	{ label: 'autoMap', parameters: { inputMode: 'autoMap' } },
	{
		label: 'fields, {{ $json.x }} (fast path)',
		parameters: { firstName: '={{ $json.x }}', lastName: '={{ $json.lastname }}', phoneNumber: '={{ $json.phone_number }}' },
	},
];

async function measure(mode: Mode) {
	const input = items();
	const { context, nodeType } = executeContextFor({
		credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'bench-key' },
		items: input,
		parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: 'ca000000-0000-4000-8000-000000000001', ...mode.parameters },
	});
	let requests = 0;
	// The stub transport: answers each batch as the service would, one entry per contact.
	(context.helpers as { httpRequestWithAuthentication: unknown }).httpRequestWithAuthentication = async (
		_type: string,
		options: { body: unknown[] },
	) => {
		requests++;
		return { statusCode: 200, headers: {}, body: { status: 'ok', message: 'ok', data: options.body.map((_, i) => ({ i })) } };
	};
	global.gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	const started = process.hrtime.bigint();
	const [output] = await nodeType.execute.call(context);
	const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
	const heapAfter = process.memoryUsage().heapUsed;
	return { mode: mode.label, items: output.length, requests, elapsedMs, heapGrowth: heapAfter - heapBefore };
}

test(`in-process overhead of Add Contacts over ${ITEMS} items`, async () => {
	const rows: string[] = ['| mode | items | requests | time | time per item | heap growth per item |', '|---|---|---|---|---|---|'];
	for (const mode of modes) {
		const result = await measure(mode);
		expect(result.items).toBe(ITEMS);
		expect(result.requests).toBe(Math.ceil(ITEMS / 100));
		rows.push(
			`| ${result.mode} | ${result.items} | ${result.requests} | ${result.elapsedMs.toFixed(0)} ms | ${((result.elapsedMs * 1000) / ITEMS).toFixed(2)} µs | ${(result.heapGrowth / ITEMS).toFixed(0)} B |`,
		);
	}
	process.stdout.write(`\n${rows.join('\n')}\n`);
});
