/**
 * `npm run test:prepare` (a step of `npm test`, before jest starts): installs what the real-n8n suites need,
 * with progress lines and time estimates. The suites' globalSetup calls the same preparation, which is quick
 * when everything is in place, so running one suite alone is safe too.
 */
import { CHROMIUM_NEED } from './harness/system.ts';
import { prepare } from './harness/prepare.ts';
import { QUEUE_NEEDS } from './harness/queue.ts';
import { e2eVersions } from './harness/runtime.ts';

try {
	await prepare({ n8n: e2eVersions(), sqlite3: true, debian: [...QUEUE_NEEDS, CHROMIUM_NEED], registry: true, reverseProxy: true });
} catch (error) {
	process.stderr.write(`${(error as Error).message}\n`);
	process.exitCode = 1;
}
