/**
 * Benchmark 3: Add Contacts inside n8n's real ExecuteContext, against a stub transport (no network),
 * so the figure is the node's own overhead: parameter reading, validation, batching and output
 * building. Prints time and memory per item at several N, so a claim about how memory grows with N
 * rests on more than one N. Run with `npm run bench` (part of the benchmark, not of `npm test`),
 * which starts Node with --expose-gc: the heap is read after forced collections.
 */
import { executeContextFor } from '../test/helpers/n8nContext.ts';

const SIZES = (process.env.BENCH_INPROCESS_SIZES ?? '25000,50000,100000').split(',').map(Number);

function items(count: number) {
	return Array.from({ length: count }, (_, i) => ({
		json: { firstname: `Lead${i}`, lastname: 'Doe', phone_number: `+1415${String(i).padStart(7, '0')}`, x: `Lead${i}` },
	}));
}

type Mode = { label: string; parameters: Record<string, unknown> };

const modes: Mode[] = [
	{ label: 'Auto-Map', parameters: { inputMode: 'autoMap' } },
	{
		label: 'Map Each Field, `{{ $json.x }}` (fast path)',
		parameters: { firstName: '={{ $json.x }}', lastName: '={{ $json.lastname }}', phoneNumber: '={{ $json.phone_number }}' },
	},
];

function collect(): number {
	if (typeof global.gc !== 'function') throw new Error('the heap must be read after a collection: run with node --expose-gc (npm run bench does)');
	global.gc();
	global.gc();
	return process.memoryUsage().heapUsed;
}

/**
 * One run of the node over `count` items. Heap figures are differences of heapUsed after forced
 * collections: `retained` with the output still referenced (what the run leaves behind), `peak` the
 * highest heapUsed seen between batches, without collecting, above the start (garbage included).
 */
async function measure(mode: Mode, count: number) {
	const input = items(count);
	const { context, nodeType } = executeContextFor({
		credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'bench-key' },
		items: input,
		parameters: { resource: 'contact', operation: 'addToCampaign', campaignId: 'ca000000-0000-4000-8000-000000000001', ...mode.parameters },
	});
	let requests = 0;
	let peakHeap = 0;
	// The stub transport: answers each batch as the service would, one entry per contact.
	(context.helpers as { httpRequestWithAuthentication: unknown }).httpRequestWithAuthentication = async (
		_type: string,
		options: { body: unknown[] },
	) => {
		requests++;
		peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
		return { statusCode: 200, headers: {}, body: { status: 'ok', message: 'ok', data: options.body.map((_, i) => ({ i })) } };
	};
	const heapBefore = collect();
	const started = process.hrtime.bigint();
	const [output] = await nodeType.execute.call(context);
	const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
	peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
	const retained = collect() - heapBefore;
	return { items: output.length, requests, elapsedMs, retained, peak: peakHeap - heapBefore };
}

test(`in-process overhead and memory of Add Contacts at N = ${SIZES.join(', ')}`, async () => {
	const rows: string[] = [
		'| mode | N | requests | time | per item | heap retained after GC | per item | peak heap above start | per item |',
		'|---|---|---|---|---|---|---|---|---|',
	];
	const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;
	for (const mode of modes) {
		const retainedBySize: Array<[number, number]> = [];
		for (const count of SIZES) {
			const result = await measure(mode, count);
			expect(result.items).toBe(count);
			expect(result.requests).toBe(Math.ceil(count / 100));
			retainedBySize.push([count, result.retained]);
			rows.push(
				`| ${mode.label} | ${count.toLocaleString('en-US')} | ${result.requests} | ${result.elapsedMs.toFixed(0)} ms | ${((result.elapsedMs * 1000) / count).toFixed(2)} µs | ${kib(result.retained)} | ${(result.retained / count).toFixed(0)} B | ${kib(result.peak)} | ${(result.peak / count).toFixed(0)} B |`,
			);
		}
		// The slope between the smallest and the largest N: bytes retained per added item.
		const [[smallN, smallBytes], [largeN, largeBytes]] = [retainedBySize[0], retainedBySize[retainedBySize.length - 1]];
		if (largeN > smallN) rows.push(`| ${mode.label}: retained from N = ${smallN} to ${largeN} | | | | | | ${((largeBytes - smallBytes) / (largeN - smallN)).toFixed(0)} B per added item | | |`);
	}
	process.stdout.write(`\n${rows.join('\n')}\n`);
});
