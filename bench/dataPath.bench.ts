/**
 * Benchmark 4: the data's path through the package's files (issue 51), traced, not read: one Add to
 * Campaign item (Map Each Field with `{{ $json.x }}`, success) and one trigger delivery (Ignore Repeats
 * on, a new event: webhook(), then execute()).
 *
 * How it is traced: a worker thread attaches V8's inspector to this thread and sets a breakpoint at every
 * breakable location (statements, calls, returns) of every script under nodes/ and credentials/; each
 * pause records its file, and the run resumes. Code outside the package (n8n, Node) has no breakpoints, so
 * a call into n8n's helpers is no visit. Consecutive pauses in one file are one stay: a visit is each entry
 * into a file after the first, a return each entry into a file the path had left before; calls (callsIn) leave
 * out the entries that come back to a caller.
 * `npm run bench -- -t "4. Data path"`.
 */
import { relative } from 'node:path';
import { Worker } from 'node:worker_threads';

import { executeContextFor } from '../test/helpers/n8nContext.ts';
import { moduleSecret, TriggerHarness } from '../test/helpers/triggerContext.ts';
import { DEMO, startSimulator } from '../test/simulator/server.ts';

const ROOT = relative('/', `${__dirname}/..`);

/** The inspector side: runs in a worker, because a thread cannot pause itself and answer its own debugger. */
const TRACER = `
const { parentPort } = require('node:worker_threads');
const { Session } = require('node:inspector');
const session = new Session();
session.connectToMainThread();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
const scripts = new Map();
let files = [];
session.on('Debugger.scriptParsed', ({ params }) => {  if (new RegExp(process.env.TRACE_URL).test(params.url)) scripts.set(params.scriptId, { url: params.url, endLine: params.endLine }); });
session.on('Debugger.paused', ({ params }) => { 
	const url = scripts.get(params.callFrames[0].location.scriptId)?.url;
	if (url !== undefined && files[files.length - 1] !== url) files.push(url);
	session.post('Debugger.resume');
});
parentPort.on('message', async (command) => {
	if (command === 'start') {
		await post('Debugger.enable');
		for (const [scriptId, { endLine }] of scripts) {
			const { locations } = await post('Debugger.getPossibleBreakpoints', { start: { scriptId, lineNumber: 0 }, end: { scriptId, lineNumber: endLine + 1 } });
			for (const location of locations) await post('Debugger.setBreakpoint', { location }).catch(() => undefined);
		}
		files = [];
		parentPort.postMessage('ready');
	} else {
		await post('Debugger.disable');
		parentPort.postMessage(files);
	}
});
`;

async function traced(run: () => Promise<unknown>): Promise<string[]> {
	process.env.TRACE_URL = `^(file://)?/${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(nodes|credentials)/`;
	const worker = new Worker(TRACER, { eval: true, env: process.env });
	const next = () => new Promise<unknown>((resolve) => worker.once('message', resolve));
	worker.postMessage('start');
	await next();
	try {
		await run();
	} finally {
		worker.postMessage('stop');
	}
	const files = (await next()) as string[];
	await worker.terminate();
	return files.map((url) => relative(`/${ROOT}`, url.replace(/^file:\/\//, '')));
}

/**
 * The path counted by calls (issue 66's count): a call is a move into a file that is not the file n8n called (the
 * path's first), nor a return to the file below it on a stack of the files moved into; a move into the first file
 * ends every chain. `callsAgain` are the calls into a file called before.
 */
function callsIn(stays: string[]): { calls: number; callsAgain: number } {
	const [entry] = stays;
	const stack = [entry];
	const called = new Set<string>();
	let [calls, callsAgain] = [0, 0];
	for (const file of stays.slice(1)) {
		if (file === entry) stack.splice(1);
		else if (stack[stack.length - 2] === file) stack.pop();
		else {
			calls += 1;
			if (called.has(file)) callsAgain += 1;
			called.add(file);
			stack.push(file);
		}
	}
	return { calls, callsAgain };
}

/** Visits, returns and files of a path (barrel index.ts files left out: their re-export getters hold no logic). */
function summary(label: string, path: string[]): { row: string; order: string } {
	const stays = path.filter((file) => !file.endsWith('/index.ts')).filter((file, index, files) => file !== files[index - 1]);
	const seen = new Set<string>();
	let returns = 0;
	const visitsPerFile = new Map<string, number>();
	stays.forEach((file, index) => {
		if (index > 0) visitsPerFile.set(file, (visitsPerFile.get(file) ?? 0) + 1);
		if (seen.has(file)) returns++;
		seen.add(file);
	});
	const most = [...visitsPerFile].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([file, count]) => `${file.split('/').pop()} ×${count}`);
	const { calls, callsAgain } = callsIn(stays);
	return {
		row: `| ${label} | ${stays.length - 1} | ${returns} | ${calls} | ${callsAgain} | ${seen.size} | ${most.join(', ')} |`,
		order: `${label}: ${stays.map((file) => file.replace(/^nodes\//, '')).join(' → ')}`,
	};
}

test('4. Data path: visits, returns and files of one Add to Campaign item and one trigger delivery', async () => {
	const { context, nodeType } = executeContextFor({
		credentials: { baseUrl: 'http://127.0.0.1:9', apiKey: 'bench-key' },
		items: [{ json: { x: 'Ada', lastname: 'Lovelace', phone_number: '+14155550123' } }],
		parameters: {
			resource: 'contact',
			operation: 'addToCampaign',
			campaignId: 'ca000000-0000-4000-8000-000000000001',
			firstName: '={{ $json.x }}',
			lastName: '={{ $json.lastname }}',
			phoneNumber: '={{ $json.phone_number }}',
		},
	});
	(context.helpers as { httpRequestWithAuthentication: unknown }).httpRequestWithAuthentication = async () => ({
		statusCode: 200,
		headers: {},
		body: { status: 'ok', message: 'ok', data: [{ id: 'c0000000-0000-4000-8000-000000000001' }] },
	});
	let output: unknown;
	const itemPath = await traced(async () => {
		output = await nodeType.execute.call(context);
	});
	expect((output as unknown[][])[0]).toHaveLength(1);

	const simulator = await startSimulator();
	let deliveryPath: string[];
	try {
		const trigger = new TriggerHarness({ events: ['call.ended'], options: {} }, { baseUrl: simulator.url, apiKey: DEMO.apiKey });
		await trigger.activate();
		const secret = moduleSecret(simulator, trigger.webhookUrl);
		const body = { event_type: 'call.ended', data: { contact_id: DEMO.completedContactId, duration: 42 } };
		// One delivery first, untraced, so that the traced one meets loaded modules and a warm key store, as most do.
		await trigger.deliver({ headers: { 'x-campaign-calling-secret': secret }, body: { ...body, data: { duration: 1 } } });
		let outcome: { statusCode?: number } = {};
		deliveryPath = await traced(async () => {
			outcome = await trigger.deliver({ headers: { 'x-campaign-calling-secret': secret }, body });
		});
		expect(outcome.statusCode).toBe(200);
	} finally {
		await simulator.close();
	}

	const paths = [summary('Add to Campaign, one item', itemPath), summary('trigger delivery (webhook() + execute())', deliveryPath)];
	process.stdout.write(
		['', '| path | visits | returns | calls | calls again | files | most visited |', '|---|---|---|---|---|---|---|', ...paths.map((path) => path.row), '', ...paths.map((path) => path.order), ''].join('\n'),
	);
});
