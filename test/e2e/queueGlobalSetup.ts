/** jest globalSetup of the queue-mode suite: as the real-n8n suite's, with Redis and Postgres instead of sqlite3 and Chromium. */
import { beginRun } from './harness/process.ts';
import { prepare } from './harness/prepare.ts';
import { QUEUE_NEEDS } from './harness/queue.ts';
import { e2eVersions } from './harness/runtime.ts';

export default async function queueGlobalSetup(): Promise<void> {
	beginRun();
	await prepare({ n8n: e2eVersions(), sqlite3: false, debian: QUEUE_NEEDS, registry: true });
}
