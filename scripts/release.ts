/**
 * `npm run release -- <patch|minor|major|X.Y.Z> [--dry-run]`: prepares a release on this machine, offline.
 * Sets the version in package.json and package-lock.json, moves CHANGELOG.md's pending entries
 * ("## Unreleased", or "## X.Y.Z (unreleased)" naming the version released) under the new version
 * with today's date (UTC), checks lint, build and n8n's scanner, then commits
 * and tags `vX.Y.Z`. Pushing the tag (`git push --follow-tags`) starts the publish workflow.
 * `--dry-run` prints what it would do and changes nothing.
 *
 * An explicit X.Y.Z may equal package.json's version while that version has no tag yet (the first
 * release is 0.1.0, the version the package was developed under).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const BUMPS = ['patch', 'minor', 'major'] as const;
type Bump = (typeof BUMPS)[number];
const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;
/** The pending section: `## Unreleased`, or `## X.Y.Z (unreleased)` (the first release's, named ahead). */
const PENDING = /^## (?:Unreleased|(\d+\.\d+\.\d+) \(unreleased\))[ \t]*\n/m;
const FILES = ['package.json', 'package-lock.json', 'CHANGELOG.md'];
const CHECKS = [['run', 'lint'], ['run', 'build'], ['run', 'test:scan']];

const repoRoot = join(dirname(new URL(import.meta.url).pathname), '..');

class ReleaseError extends Error {}

function parseArgs(args: string[]): { target: string; dryRun: boolean } {
	const dryRun = args.includes('--dry-run');
	const rest = args.filter((arg) => arg !== '--dry-run');
	if (rest.length !== 1 || !(BUMPS.includes(rest[0] as Bump) || VERSION.test(rest[0]))) {
		throw new ReleaseError('usage: npm run release -- <patch|minor|major|X.Y.Z> [--dry-run]');
	}
	return { target: rest[0], dryRun };
}

function compareVersions(a: string, b: string): number {
	const [x, y] = [a, b].map((version) => VERSION.exec(version)!.slice(1).map(Number));
	return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

function nextVersion(current: string, target: string): string {
	const parts = VERSION.exec(current)?.slice(1).map(Number);
	if (!parts) throw new ReleaseError(`package.json's version ${current} is not X.Y.Z`);
	const [major, minor, patch] = parts;
	if (target === 'major') return `${major + 1}.0.0`;
	if (target === 'minor') return `${major}.${minor + 1}.0`;
	if (target === 'patch') return `${major}.${minor}.${patch + 1}`;
	if (compareVersions(target, current) < 0) throw new ReleaseError(`${target} is lower than package.json's version ${current}`);
	return target;
}

function git(args: string[]): string {
	const result = spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
	if (result.status !== 0) throw new ReleaseError(`git ${args.join(' ')} failed:\n${result.stderr}`);
	return result.stdout.trim();
}

/** The changelog with the pending entries under `## version (date)` and an empty Unreleased above. */
function releaseChangelog(changelog: string, version: string, date: string): { text: string; entries: string } {
	const heading = PENDING.exec(changelog);
	if (!heading) throw new ReleaseError('CHANGELOG.md has no "## Unreleased" section');
	if (heading[1] !== undefined && heading[1] !== version) {
		throw new ReleaseError(`CHANGELOG.md's pending section is for ${heading[1]}, not ${version}`);
	}
	const released = changelog.slice(0, heading.index) + changelog.slice(heading.index + heading[0].length);
	if (new RegExp(`^## ${version.replace(/\./g, '\\.')}\\b`, 'm').test(released)) {
		throw new ReleaseError(`CHANGELOG.md already has a section for ${version}`);
	}
	const start = heading.index + heading[0].length;
	const next = changelog.slice(start).search(/^## /m);
	const end = next === -1 ? changelog.length : start + next;
	const entries = changelog.slice(start, end).trim();
	if (entries === '') throw new ReleaseError('CHANGELOG.md\'s pending section is empty: nothing to release');
	const text = `${changelog.slice(0, heading.index)}## Unreleased\n\n## ${version} (${date})\n\n${entries}\n${end < changelog.length ? `\n${changelog.slice(end)}` : ''}`;
	return { text, entries };
}

/** JSON files npm writes (two-space indent, final newline) with their version fields set. */
function withVersion(file: string, version: string): string {
	const text = readFileSync(join(repoRoot, file), 'utf8');
	const json = JSON.parse(text) as { version: string; packages?: Record<string, { version?: string }> };
	if (`${JSON.stringify(json, null, 2)}\n` !== text) throw new ReleaseError(`${file} is not formatted as npm writes it; run npm install`);
	json.version = version;
	if (json.packages?.['']) json.packages[''].version = version;
	return `${JSON.stringify(json, null, 2)}\n`;
}

function run(): void {
	const { target, dryRun } = parseArgs(process.argv.slice(2));
	const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
	const version = nextVersion(manifest.version, target);
	const tag = `v${version}`;
	const date = new Date().toISOString().slice(0, 10);

	if (git(['tag', '--list', tag]) !== '') throw new ReleaseError(`tag ${tag} already exists`);
	const dirty = git(['status', '--porcelain']);
	if (dirty !== '') throw new ReleaseError(`the working tree has uncommitted changes:\n${dirty}`);
	const changelog = releaseChangelog(readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8'), version, date);
	const updates = new Map<string, string>([
		['package.json', withVersion('package.json', version)],
		['package-lock.json', withVersion('package-lock.json', version)],
		['CHANGELOG.md', changelog.text],
	]);

	const say = (line: string) => console.log(dryRun ? `[dry run] ${line}` : line);
	say(`${manifest.name}: ${manifest.version} → ${version}${target === version ? '' : ` (${target})`}, on ${git(['rev-parse', '--abbrev-ref', 'HEAD'])} at ${git(['rev-parse', '--short', 'HEAD'])}`);
	say(`CHANGELOG.md: pending entries move under "## ${version} (${date})":`);
	console.log(changelog.entries.replace(/^(?=.)/gm, '    '));
	for (const check of CHECKS) say(`${dryRun ? 'would run' : 'running'}: npm ${check.join(' ')}`);
	if (!dryRun) {
		for (const check of CHECKS) {
			const result = spawnSync('npm', check, { cwd: repoRoot, stdio: 'inherit' });
			if (result.status !== 0) throw new ReleaseError(`npm ${check.join(' ')} failed: nothing was changed`);
		}
		for (const [file, text] of updates) writeFileSync(join(repoRoot, file), text);
	}
	say(`${dryRun ? 'would write' : 'wrote'}: ${FILES.join(', ')}`);
	const commands = [['add', ...FILES], ['commit', '-m', `Release ${version}`], ['tag', '-a', tag, '-m', tag]];
	for (const command of commands) {
		say(`${dryRun ? 'would run' : 'running'}: git ${command.map((arg) => (arg.includes(' ') ? `"${arg}"` : arg)).join(' ')}`);
		if (!dryRun) git(command);
	}
	say(`next: git push --follow-tags  (the ${tag} tag starts .github/workflows/publish.yml)`);
}

try {
	run();
} catch (error) {
	if (!(error instanceof ReleaseError)) throw error;
	console.error(`release: ${error.message}`);
	process.exitCode = 1;
}
