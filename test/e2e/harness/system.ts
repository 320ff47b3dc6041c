/**
 * Debian packages the suite runs beside n8n (Redis and Postgres for queue mode, Chromium for the browser test).
 * When one is missing and we are root with apt-get (a fresh CI machine), it is installed; otherwise the error
 * names the packages to install.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { cleanEnv, runCommand } from './process.ts';

export interface DebianNeed {
	/** The Debian package that brings it. */
	package: string;
	/** Whether it is already there. */
	present: () => boolean;
	/** What it is for, in the error when it cannot be installed. */
	purpose: string;
}

/** Installs, in one apt-get run, the packages of the needs that are not met; fails naming them when it cannot. */
export async function ensureDebianPackages(needs: DebianNeed[]): Promise<void> {
	const missing = needs.filter((need) => !need.present());
	if (missing.length === 0) return;
	const packages = missing.map((need) => need.package);
	if (process.getuid?.() !== 0 || !findOnPath('apt-get')) {
		throw new Error(
			`${missing.map((need) => `${need.purpose} needs Debian's ${need.package}`).join('; ')}: ` +
				`install ${packages.length > 1 ? 'them' : 'it'} (apt-get install ${packages.join(' ')}), or run as root on a machine with apt-get so the suite does`,
		);
	}
	await aptInstall(packages);
	const stillMissing = missing.filter((need) => !need.present()).map((need) => need.package);
	if (stillMissing.length > 0) throw new Error(`apt-get installed ${packages.join(' ')}, but ${stillMissing.join(' and ')} is still not found`);
}

async function aptInstall(packages: string[]): Promise<void> {
	const options = { cwd: tmpdir(), env: { ...cleanEnv(), DEBIAN_FRONTEND: 'noninteractive' } };
	// Another apt-get (a second test run, the machine's own updates) may hold the lock for a while: wait for it.
	const install = () =>
		runCommand('apt-get', ['install', '-y', '-o', 'DPkg::Lock::Timeout=600', ...packages], {
			...options,
			label: `apt-get install ${packages.join(' ')} (1-3 minutes, once)`,
		});
	try {
		await install();
	} catch {
		// A fresh machine's package lists may be missing or out of date.
		await runCommand('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=600'], { ...options, label: 'apt-get update' });
		await install();
	}
}

export function findOnPath(name: string): string | undefined {
	const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin'];
	return folders.filter((each) => each.startsWith('/')).map((each) => join(each, name)).find((candidate) => existsSync(candidate));
}

/** Debian's Chromium, which the browser test and `npm run screenshots` drive; CHROMIUM_PATH names another (a CI runner's Chrome). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_NEED: DebianNeed = { package: 'chromium', present: () => existsSync(CHROMIUM), purpose: 'The browser test' };
