/**
 * jest globalTeardown of the real-n8n suites: stops every process group this run started and did not stop
 * (a hook that timed out never reaches its stop(); a failed test may skip it; the shared n8n of each line
 * is stopped only here), then removes the shared instances' user folders.
 */
import { rmSync } from 'node:fs';
import { log, stopRecordedGroups } from './harness/process.ts';
import { sharedUserFolders } from './harness/shared.ts';

export default async function globalTeardown(): Promise<void> {
	const sharedFolders = sharedUserFolders();
	const stopped = stopRecordedGroups(String(process.pid));
	if (stopped.length > 0) log(`stopped what this run's tests left running: ${stopped.join(', ')}`);
	if (!process.env.E2E_KEEP_WORK) for (const folder of sharedFolders) rmSync(folder, { recursive: true, force: true });
}
