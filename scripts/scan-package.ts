/**
 * `npm run test:scan`: n8n's community-package scanner (@n8n/scan-community-package) on this package
 * before it is published, plus a check that the tarball holds what n8n loads.
 *
 * The scanner's command line takes a published package name: it reads the registry, checks npm
 * provenance, fetches the attested source and the tarball, and runs its ESLint analysis
 * (`analyzePackage`) on both. This package is checked before it is published, so this script runs
 * that same analysis on the unpacked `npm pack` output and on the source files the scanner lints in
 * an attested checkout. No network. Needs a build (`npm run build`). Exits non-zero on any problem.
 */
import { existsSync, globSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { packTarball, unpackTarball } from '../test/e2e/harness/package.ts';

interface AnalysisResult {
	passed: boolean;
	message?: string;
	details?: string;
}

interface Scanner {
	analyzePackage(packageDir: string, filePatterns: string[]): Promise<AnalysisResult>;
	SOURCE_FILE_PATTERNS: string[];
}

interface PackageManifest {
	name: string;
	version: string;
	homepage: string;
	repository: { url: string };
	bugs: { url: string };
	n8n: { nodes: string[]; credentials: string[] };
}

interface Codex {
	resources?: Record<string, Array<{ url: string }>>;
}

/**
 * The scanner's default file patterns for `analyzePackage`. Its registry scan narrows the tarball leg
 * to `**\/*.js` and package.json; the default is wider (declarations and JSON files too), so anything
 * in the tarball that trips a rule fails here.
 */
const TARBALL_PATTERNS = ['**/*.js', '**/*.ts', '**/*.json'];
/** What npm adds on its own (package.json, README, LICENSE) and the `files` list (dist/). */
const ALLOWED_IN_TARBALL = /^(package\.json|README\.md|LICENSE|dist\/.+)$/;
const NOT_SHIPPED = /\.(d\.ts|map)$/;

const repoRoot = join(dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const scannerManifest = require('@n8n/scan-community-package/package.json') as { version: string };
const scannerPath = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
const scanner = (await import(scannerPath)) as Scanner;
// Loading the scanner creates a download folder it never uses here; have its `tmp` remove it on exit.
(createRequire(scannerPath)('tmp') as { setGracefulCleanup(): void }).setGracefulCleanup();
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as PackageManifest;

const problems: string[] = [];

/** n8n loads the entries package.json names, their codex files and the light and dark icons they reference. */
function checkContents(files: string[], unpacked: string): void {
	const shipped = new Set(files);
	for (const file of files) {
		if (!ALLOWED_IN_TARBALL.test(file)) problems.push(`tarball holds ${file}, which is not dist/, README.md, LICENSE or package.json`);
		if (NOT_SHIPPED.test(file)) problems.push(`tarball holds ${file}: declarations and source maps are not shipped`);
	}
	const entries = [...manifest.n8n.nodes, ...manifest.n8n.credentials];
	for (const entry of entries) {
		if (!shipped.has(entry)) {
			problems.push(`package.json names ${entry}, which the tarball lacks (was \`npm run build\` run?)`);
			continue;
		}
		if (manifest.n8n.nodes.includes(entry) && !shipped.has(entry.replace(/\.js$/, '.json'))) {
			problems.push(`${entry} has no codex file ${entry.replace(/\.js$/, '.json')} beside it`);
		}
		const code = readFileSync(join(unpacked, entry), 'utf8');
		for (const theme of ['light', 'dark']) {
			const icon = new RegExp(`${theme}:\\s*'file:([^']+)'`).exec(code)?.[1];
			if (!icon) problems.push(`${entry} has no ${theme} icon`);
			else if (!shipped.has(posix.join(posix.dirname(entry), icon))) problems.push(`${entry}: ${theme} icon ${icon} is not in the tarball`);
		}
	}
	const links = documentationLinks(files, unpacked);
	console.log(`  contents: ${files.length} files; ${entries.length} n8n entries, each with its light and dark icon` +
		`${manifest.n8n.nodes.length > 0 ? ' (nodes also with their codex file)' : ''}; ${links} documentation links`);
}

/**
 * package.json's repository, homepage and bugs name one repository, and the nodes' codex files and
 * the credential link to sections of the README at its homepage that exist: setting the repository in
 * package.json (CONTRIBUTING.md, "Before the first release"), forgetting one of these, or renaming a
 * README section they open fails here.
 */
function documentationLinks(files: string[], unpacked: string): number {
	const home = manifest.homepage.split('#')[0];
	const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
	for (const [field, url] of [['homepage', manifest.homepage], ['bugs.url', manifest.bugs.url]]) {
		if (!url.startsWith(repository)) problems.push(`package.json's ${field} ${url} is not in repository.url's ${repository}`);
	}
	const links: Array<{ file: string; url: string }> = [];
	for (const file of files) {
		const text = () => readFileSync(join(unpacked, file), 'utf8');
		if (file.endsWith('.node.json')) {
			const codex = JSON.parse(text()) as Codex;
			for (const each of Object.values(codex.resources ?? {}).flat()) links.push({ file, url: each.url });
		} else if (manifest.n8n.credentials.includes(file)) {
			const url = /documentationUrl\s*=\s*'([^']+)'/.exec(text())?.[1];
			if (url) links.push({ file, url });
			else problems.push(`${file} has no documentationUrl`);
		}
	}
	const readmeAnchors = markdownAnchors(readFileSync(join(unpacked, 'README.md'), 'utf8'));
	for (const { file, url } of links) {
		if (!url.startsWith(`${home}#`)) problems.push(`${file} links to ${url}, not to a section of package.json's homepage ${home}`);
		else if (!readmeAnchors.has(url.slice(home.length + 1))) problems.push(`${file} links to ${url}, but README.md has no section with that anchor`);
	}
	return links.length;
}

/** Fenced code blocks hold neither headings nor links. */
function withoutCodeBlocks(markdown: string): string {
	return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The anchors GitHub (and npm) give a markdown file's headings, numbered when repeated, and its explicit `<a id>`s. */
function markdownAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	const text = withoutCodeBlocks(markdown);
	for (const [, heading] of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
		const plain = heading
			.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
			.replace(/<[^>]+>/g, '')
			.toLowerCase();
		const slug = plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id);
	return anchors;
}

/**
 * The user and contributor documents' own links: a `#section` must be a heading of the file, a relative
 * link a file of the repository (and its `#section` a heading there). Web links are not fetched.
 */
function checkMarkdownLinks(): void {
	const documents = ['README.md', 'CONTRIBUTING.md', ...globSync('docs/*.md', { cwd: repoRoot })].filter((file) =>
		existsSync(join(repoRoot, file)),
	);
	let checked = 0;
	for (const document of documents) {
		const text = withoutCodeBlocks(readFileSync(join(repoRoot, document), 'utf8'));
		for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
			checked += 1;
			const [path, anchor] = target.split('#', 2);
			const file = path === '' ? document : posix.join(posix.dirname(document), path);
			if (!existsSync(join(repoRoot, file))) {
				problems.push(`${document} links to ${target}: ${file} does not exist`);
				continue;
			}
			if (anchor === undefined || !file.endsWith('.md')) continue;
			if (!markdownAnchors(readFileSync(join(repoRoot, file), 'utf8')).has(anchor)) {
				problems.push(`${document} links to ${target}: ${file} has no section with the anchor #${anchor}`);
			}
		}
	}
	console.log(`  documents: ${documents.join(', ')}: ${checked} links to sections and files checked`);
}

async function analyze(label: string, dir: string, patterns: string[]): Promise<void> {
	const files = globSync(patterns, { cwd: dir, exclude: (name) => name === 'node_modules' || name === 'package-lock.json' });
	const result = await scanner.analyzePackage(dir, patterns);
	const outcome = result.passed ? '0 problems' : `FAILED: ${result.message}`;
	console.log(`  scanner, ${label} (${patterns.join(', ')}): ${files.length} files, ${outcome}`);
	if (!result.passed) problems.push(`scanner, ${label}: ${result.message}${result.details ? `\n${result.details}` : ''}`);
}

const work = mkdtempSync(join(tmpdir(), 'scan-package-'));
try {
	console.log(`scan: ${manifest.name}@${manifest.version} with @n8n/scan-community-package ${scannerManifest.version}`);
	if (!existsSync(join(repoRoot, 'dist'))) throw new Error('no dist/: run `npm run build` first');
	const packed = packTarball(repoRoot, work);
	const unpacked = join(work, 'package');
	unpackTarball(packed.tarball, unpacked);
	console.log(`tarball ${posix.basename(packed.tarball)} (${(packed.size / 1000).toFixed(1)} kB):`);
	checkContents(packed.files, unpacked);
	await analyze('tarball', unpacked, TARBALL_PATTERNS);
	console.log('sources:');
	await analyze('sources', repoRoot, scanner.SOURCE_FILE_PATTERNS);
	checkMarkdownLinks();
} finally {
	rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
	console.error(`\nscan: ${problems.length} problem(s):\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
	process.exitCode = 1;
} else {
	console.log('scan: passed, 0 problems');
}
