/**
 * Everything the real-n8n suites run beside the package, made ready before any test starts (so no install
 * runs inside a test's timeout): the pinned n8n installs with their sqlite3 builds, and Debian's packages.
 * Reused when valid, repaired when an earlier install was cut off. Three lanes run side by side: n8n's npm
 * installs (mostly waiting on the disk and the registry), the sqlite3 compiles (CPU) and apt-get.
 */
import { log, sweepOrphans } from './process.ts';
import { ensureRegistryInstall } from './registry.ts';
import { ensureRuntime, ensureSqlite3Build, hasWorkingSqlite3 } from './runtime.ts';
import type { N8nVersion } from './runtime.ts';
import { ensureReverseProxyPackages } from './reverseProxy.ts';
import { ensureDebianPackages } from './system.ts';
import type { DebianNeed } from './system.ts';

export interface Needs {
	n8n: N8nVersion[];
	/** Whether the n8n installs need sqlite3 (single-process n8n does; queue mode runs on Postgres). */
	sqlite3: boolean;
	debian: DebianNeed[];
	/** Whether the suite needs the local npm registry (verdaccio) the Community Nodes install tests publish to. */
	registry?: boolean;
	/** Whether the suite needs Debian's nginx, caddy and docker-compose (reverse-proxy.e2e.test.ts), installed after `debian`. */
	reverseProxy?: boolean;
}

export async function prepare(needs: Needs): Promise<void> {
	const startedAt = Date.now();
	// A server a killed run left going from an install folder would be in the way of repairing that install.
	sweepOrphans();
	const n8nInstalls = (async () => {
		// One after the other: two npm installs at once only compete for the same disk.
		for (const version of needs.n8n) await ensureRuntime(version, { sqlite3: needs.sqlite3 });
		if (needs.registry) await ensureRegistryInstall();
	})();
	// Each build waits for the one before it: two compilers at once would only share the same cores.
	const sqlite3Builds = (async () => {
		if (!needs.sqlite3) return;
		for (const version of needs.n8n) if (!hasWorkingSqlite3(version)) await ensureSqlite3Build(version);
	})();
	// One apt-get after the other: the second would only wait for the first one's lock.
	const debianPackages = ensureDebianPackages(needs.debian).then(async () => {
		if (needs.reverseProxy) await ensureReverseProxyPackages();
	});
	const results = await Promise.allSettled([n8nInstalls, sqlite3Builds, debianPackages]);
	const failures = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as Error).message] : []));
	if (failures.length > 0) {
		throw new Error(`Preparing the test environment failed:\n- ${failures.join('\n- ')}\nRun the same command again: finished installs are kept, a cut-off one is started afresh.`);
	}
	const seconds = Math.round((Date.now() - startedAt) / 1000);
	if (seconds >= 2) log(`ready: n8n ${needs.n8n.join(', ')}${needs.debian.length ? ` and ${needs.debian.map((need) => need.package).join(', ')}` : ''} in ${seconds} s`);
}
