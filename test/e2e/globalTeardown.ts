/**
 * jest globalTeardown of the real-n8n suites: stops every process group this run started and did not stop
 * (a hook that timed out never reaches its stop(); a failed test may skip it).
 */
import { log, stopRecordedGroups } from './harness/process.ts';

export default async function globalTeardown(): Promise<void> {
	const stopped = stopRecordedGroups(String(process.pid));
	if (stopped.length > 0) log(`stopped what this run's tests left running: ${stopped.join(', ')}`);
}
