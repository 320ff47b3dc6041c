/**
 * A fresh user folder costs n8n its migrations and the owner's setup (25-38 s for 2.x against 14-16 s on a
 * migrated database). So the first fresh start of a line in a run saves its database as it is right after the
 * owner's setup, with the config n8n wrote, and later fresh folders of that line begin as a copy of it: n8n
 * then starts as on any restart, with no credentials, workflows, executions, API keys or packages.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { log, runDir, sleep } from './process.ts';

/** Settings that shape what n8n's first start writes to its database: a template made under others does not stand in for them. */
const SHAPES_DATABASE = /^(DB_|E2E_TESTS$|N8N_ENCRYPTION_KEY$)/;
const FILES = { database: 'database.sqlite', config: 'config' };

export interface UserFolderTemplate {
	/** Where this run keeps it; present once saved. */
	dir: string;
	label: string;
}

/** This run's template for a line and the settings among `extraEnv` that shape its database. */
export function userFolderTemplate(version: string, extraEnv: Record<string, string> = {}): UserFolderTemplate {
	const shaping = Object.entries(extraEnv)
		.filter(([name]) => SHAPES_DATABASE.test(name))
		.sort(([a], [b]) => a.localeCompare(b));
	const key = shaping.length === 0 ? '' : `-${createHash('sha256').update(JSON.stringify(shaping)).digest('hex').slice(0, 12)}`;
	return { dir: join(runDir(), `user-folder-template-${version}${key}`), label: `n8n ${version}${shaping.length ? ` (${shaping.map(([name]) => name).join(', ')})` : ''}` };
}

/** Whether `userFolder` has no database yet: n8n would migrate one from nothing and set up its owner. */
export function isFreshUserFolder(userFolder: string): boolean {
	return !existsSync(join(userFolder, '.n8n', FILES.database));
}

/** Copies the template into a fresh user folder; false when this run has none yet. */
export function copyTemplateInto(template: UserFolderTemplate, userFolder: string): boolean {
	if (!existsSync(join(template.dir, FILES.database))) return false;
	const n8nFolder = join(userFolder, '.n8n');
	mkdirSync(n8nFolder, { recursive: true });
	// copyFileSync keeps the config's 0600, which N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS checks.
	for (const file of Object.values(FILES)) copyFileSync(join(template.dir, file), join(n8nFolder, file));
	log(`${template.label}: user folder begun from this run's template (migrated database, owner set up)`);
	return true;
}

/**
 * Saves the database of the running n8n in `userFolder` (owner just set up) as the template, with SQLite's
 * VACUUM INTO: a consistent copy while n8n keeps it open, in the same journal mode. A failure only costs the
 * later starts their head start, so it is logged, not thrown.
 */
export async function saveTemplate(template: UserFolderTemplate, userFolder: string): Promise<void> {
	if (existsSync(template.dir)) return;
	const n8nFolder = join(userFolder, '.n8n');
	const building = mkdtempSync(`${template.dir}.building-`);
	try {
		copyFileSync(join(n8nFolder, FILES.config), join(building, FILES.config));
		await snapshotDatabase(join(n8nFolder, FILES.database), join(building, FILES.database));
		// Two fresh starts at once both save one: the first to finish is kept.
		if (!existsSync(template.dir)) renameSync(building, template.dir);
		log(`${template.label}: saved its database after the owner's setup as this run's template for fresh user folders`);
	} catch (error) {
		log(`${template.label}: no template for fresh user folders (${(error as Error).message}); each fresh start migrates from nothing`);
	} finally {
		rmSync(building, { recursive: true, force: true });
	}
}

async function snapshotDatabase(source: string, target: string): Promise<void> {
	for (let attempt = 1; ; attempt++) {
		const database = new DatabaseSync(source, { readOnly: true, timeout: 5000 });
		try {
			const { journal_mode: journalMode } = database.prepare('PRAGMA journal_mode').get() as { journal_mode: string };
			database.exec(`VACUUM INTO '${target.replaceAll("'", "''")}'`);
			const copy = new DatabaseSync(target);
			try {
				copy.exec(`PRAGMA journal_mode = ${journalMode}`);
			} finally {
				copy.close();
			}
			return;
		} catch (error) {
			// n8n 1.x keeps SQLite's rollback journal, where its writes lock a reader out for a moment.
			if (attempt >= 20 || !/locked|busy/i.test((error as Error).message)) throw error;
			rmSync(target, { force: true });
		} finally {
			database.close();
		}
		await sleep(250);
	}
}
