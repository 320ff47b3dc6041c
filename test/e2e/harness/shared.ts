/**
 * One n8n per line for the files that need nothing but n8n with the package (no settings of their own), so
 * a run starts it once rather than once per file. The first file that asks starts it; it outlives that file
 * (its process group is recorded like any other) and jest's globalTeardown stops it. Files stay independent:
 * each creates its own credentials and workflows, with webhook paths of its own, and removes what it
 * activates where another file could collide with it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApi, startN8n, type N8nInstance } from './n8n.ts';
import { answersOk, runDir, tail } from './process.ts';
import { ensureRuntime, N8N_VERSIONS, type N8nVersion } from './runtime.ts';

/** A start on a loaded 2-core machine: migrations alone took minutes there. */
const SHARED_READY_TIMEOUT_MS = 600_000;

interface SharedRecord {
	url: string;
	port: number;
	userFolder: string;
	logFile: string;
	apiKey: string;
	cookie: string;
	startToReadyMs: number;
	installedPackage: N8nInstance['installedPackage'];
}

const recordFile = (version: N8nVersion) => join(runDir(), `shared-n8n-${version}.json`);

/** The same instance with a stop() that leaves it running: for cases whose own afterAll stops what `start` gave them. */
export function withoutStop<T extends N8nInstance>(n8n: T): T {
	return { ...n8n, stop: async () => undefined };
}

/** This run's n8n of `version` with the package, started on first use. Its stop() does nothing: the run stops it. */
export async function sharedN8n(version: N8nVersion): Promise<N8nInstance> {
	const file = recordFile(version);
	if (existsSync(file)) {
		const record = JSON.parse(readFileSync(file, 'utf8')) as SharedRecord;
		if (await answersOk(`${record.url}healthz/readiness`)) return await fromRecord(version, record);
		throw new Error(`The shared n8n ${version} of this run (${record.url}) no longer answers; its log (${record.logFile}):\n${tail(logsOf(record))}`);
	}
	const n8n = await startN8n({ version, withPackage: true, readyTimeoutMs: SHARED_READY_TIMEOUT_MS });
	const record: SharedRecord = {
		url: n8n.url,
		port: n8n.port,
		userFolder: n8n.userFolder,
		logFile: n8n.logFile,
		apiKey: n8n.apiKey,
		cookie: n8n.cookie,
		startToReadyMs: n8n.startToReadyMs,
		installedPackage: n8n.installedPackage,
	};
	writeFileSync(file, JSON.stringify(record));
	return withoutStop(n8n);
}

/** For globalTeardown: the user folders of this run's shared instances, to remove once their processes are stopped. */
export function sharedUserFolders(): string[] {
	return N8N_VERSIONS.map(recordFile)
		.filter((file) => existsSync(file))
		.map((file) => (JSON.parse(readFileSync(file, 'utf8')) as SharedRecord).userFolder);
}

const logsOf = (record: SharedRecord) => (existsSync(record.logFile) ? readFileSync(record.logFile, 'utf8') : '');

async function fromRecord(version: N8nVersion, record: SharedRecord): Promise<N8nInstance> {
	const logs = () => logsOf(record);
	return {
		version,
		runtime: await ensureRuntime(version),
		url: record.url,
		webhookUrl: record.url,
		port: record.port,
		userFolder: record.userFolder,
		logFile: record.logFile,
		installedPackage: record.installedPackage,
		startToReadyMs: record.startToReadyMs,
		apiKey: record.apiKey,
		cookie: record.cookie,
		api: createApi({ url: record.url, webhookUrl: record.url, cookie: record.cookie, apiKey: record.apiKey, logTail: () => tail(logs()) }),
		logs,
		stop: async () => undefined,
	};
}
