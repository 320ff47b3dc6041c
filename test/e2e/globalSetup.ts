/** jest globalSetup of the real-n8n suite: stops what killed runs left, then prepares (no test timeout applies here). */
import { beginRun } from './harness/process.ts';
import { prepare } from './harness/prepare.ts';
import { e2eVersions } from './harness/runtime.ts';
import { CHROMIUM_NEED } from './harness/system.ts';

export default async function globalSetup(): Promise<void> {
	// Every process group the tests start is recorded under this run, for globalTeardown.
	beginRun();
	await prepare({ n8n: e2eVersions(), sqlite3: true, debian: [CHROMIUM_NEED], registry: true, reverseProxy: true });
}
