/**
 * Starts a real n8n with this package installed, to try the nodes in the editor:
 * `node test/e2e/start-n8n.ts [2.41.1|1.123.81]` (after `npm run build`). Its data is kept between runs
 * in the runtime cache; Ctrl+C stops it.
 */
import { join } from 'node:path';
import { OWNER, startN8n } from './harness/n8n.ts';
import type { N8nInstance } from './harness/n8n.ts';
import { cacheDir, N8N_VERSIONS } from './harness/runtime.ts';
import type { N8nVersion } from './harness/runtime.ts';

const version = (process.argv[2] ?? N8N_VERSIONS[0]) as N8nVersion;
let n8n: N8nInstance | undefined;
// Registered before n8n starts, so the harness leaves Ctrl+C to us: a graceful stop keeps the data intact.
process.once('SIGINT', () => {
	if (!n8n) process.exit(130);
	void n8n.stop().then(() => process.exit(0));
});
n8n = await startN8n({
	version,
	withPackage: true,
	userFolder: join(cacheDir(), `dev-user-folder-${version}`),
	port: process.env.N8N_PORT ? Number(process.env.N8N_PORT) : undefined,
});
process.stdout.write(
	[
		`n8n ${version} with the package: ${n8n.url}`,
		`owner login: ${OWNER.email} / ${OWNER.password}`,
		`API key (header X-N8N-API-KEY): ${n8n.apiKey}`,
		`log: ${n8n.logFile}`,
		'Ctrl+C stops it.',
		'',
	].join('\n'),
);
// n8n runs detached and unreferenced: keep this process (and so n8n) alive until Ctrl+C.
setInterval(() => undefined, 60_000);
