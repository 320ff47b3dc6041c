/**
 * Installs this package into an n8n user folder the way n8n's Community Nodes installer does: `npm pack`,
 * unpack into `<userFolder>/.n8n/nodes/node_modules/<name>`, drop dev/peer/optional dependencies, install
 * the remaining runtime dependencies. `require('n8n-workflow')` then resolves to n8n's own copy.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { cleanEnv, runCommand, runDir } from './process.ts';

/** n8n's installer removes these from the unpacked package.json before installing its dependencies. */
const DROPPED_ON_INSTALL = ['devDependencies', 'peerDependencies', 'optionalDependencies'];

export interface PackageManifest {
	name: string;
	version: string;
	dependencies?: Record<string, string>;
	n8n?: { n8nNodesApiVersion?: number; nodes?: string[]; credentials?: string[] };
}

export interface InstalledPackage {
	name: string;
	version: string;
	/** Where n8n finds it: `<userFolder>/.n8n/nodes/node_modules/<name>`. */
	dir: string;
	/** The built files the manifest's n8n section lists, relative to `dir`. */
	nodeFiles: string[];
	credentialFiles: string[];
}

export interface PackedTarball {
	tarball: string;
	/** The tarball's size in bytes. */
	size: number;
	/** The paths it holds, as npm lists them. */
	files: string[];
}

/** `npm pack` of the package at `packageRoot` into `destination`: what users download from the registry. */
export function packTarball(packageRoot: string, destination: string): PackedTarball {
	const result = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
		cwd: packageRoot,
		env: cleanEnv(),
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(`npm pack failed in ${packageRoot}:\n${result.stderr}`);
	const [packed] = JSON.parse(result.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
	return { tarball: join(destination, packed.filename), size: packed.size, files: packed.files.map((file) => file.path) };
}

/** Unpacks a packed tarball into `dir` (created if missing), without npm's leading `package/` folder. */
export function unpackTarball(tarball: string, dir: string): void {
	mkdirSync(dir, { recursive: true });
	const result = spawnSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`Unpacking ${basename(tarball)} failed:\n${result.stderr}`);
}

/**
 * Packs the package at `packageRoot` (it must be built) and installs it into `userFolder`, before n8n
 * starts there. The default is the repo, or E2E_PACKAGE_ROOT: another checkout's build, so the same
 * tests measure an earlier version of the code. Throws when the packed tree is not loadable by n8n.
 */
export async function installPackage(userFolder: string, packageRoot = process.env.E2E_PACKAGE_ROOT ?? process.cwd()): Promise<InstalledPackage> {
	const manifest = readManifest(join(packageRoot, 'package.json'));
	assertBuilt(packageRoot, manifest);

	const tarball = packedOnceThisRun(packageRoot);
	const nodesFolder = join(userFolder, '.n8n', 'nodes');
	const dir = join(nodesFolder, 'node_modules', manifest.name);
	rmSync(dir, { recursive: true, force: true });
	unpackTarball(tarball, dir);

	const packed = readManifest(join(dir, 'package.json'));
	const runtimeManifest = Object.fromEntries(
		Object.entries(packed).filter(([key]) => !DROPPED_ON_INSTALL.includes(key)),
	);
	writeFileSync(join(dir, 'package.json'), JSON.stringify(runtimeManifest, null, 2));
	if (Object.keys(packed.dependencies ?? {}).length > 0) {
		await runCommand(
			'npm',
			['install', '--omit=dev', '--omit=peer', '--bin-links=false', '--ignore-scripts', '--package-lock=false'],
			{ cwd: dir, env: cleanEnv(), label: `npm install (dependencies of ${packed.name})` },
		);
	}
	// n8n's ledger of installed community packages.
	writeFileSync(
		join(nodesFolder, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [packed.name]: packed.version } }, null, 2),
	);

	const problems = manifestProblems(dir, packed);
	if (problems.length > 0) {
		throw new Error(`The packed ${packed.name} is not loadable by n8n:\n- ${problems.join('\n- ')}`);
	}
	return {
		name: packed.name,
		version: packed.version,
		dir,
		nodeFiles: packed.n8n?.nodes ?? [],
		credentialFiles: packed.n8n?.credentials ?? [],
	};
}

/**
 * `npm pack` of `packageRoot` once per run and build (package.json and every file under dist/, by size and
 * time): packing took 3-4 s of each start. Kept in the run's folder, which its teardown removes.
 */
function packedOnceThisRun(packageRoot: string): string {
	const build = createHash('sha256').update(resolve(packageRoot)).update(readFileSync(join(packageRoot, 'package.json')));
	for (const file of filesUnder(join(packageRoot, 'dist'))) {
		const { size, mtimeMs } = statSync(file);
		build.update(`${file}\0${size}\0${mtimeMs}\0`);
	}
	const dir = join(runDir(), `packed-${build.digest('hex').slice(0, 16)}`);
	const done = join(dir, 'tarball');
	if (existsSync(done)) return readFileSync(done, 'utf8');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const { tarball } = packTarball(packageRoot, dir);
	writeFileSync(`${done}.partial`, tarball);
	renameSync(`${done}.partial`, done);
	return tarball;
}

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name))
		.sort();
}

/** Fails with the fix when the build output the manifest points at is missing. */
export function assertBuilt(packageRoot: string, manifest = readManifest(join(packageRoot, 'package.json'))): void {
	const listed = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
	const missing = listed.filter((file) => !existsSync(join(packageRoot, file)));
	if (!existsSync(join(packageRoot, 'dist')) || missing.length > 0) {
		throw new Error(
			`${manifest.name} is not built (${missing.length > 0 ? `missing ${missing.join(', ')}` : 'no dist/'}): run \`npm run build\` first`,
		);
	}
}

/**
 * What keeps n8n from loading the unpacked package: listed files missing from the tree, an unsupported
 * n8nNodesApiVersion, or a file whose exported class is not named like the file (n8n looks it up by name).
 */
function manifestProblems(dir: string, manifest: PackageManifest): string[] {
	const problems: string[] = [];
	const apiVersion = manifest.n8n?.n8nNodesApiVersion;
	if (apiVersion !== undefined && (!Number.isInteger(apiVersion) || apiVersion > 1)) {
		problems.push(`n8n.n8nNodesApiVersion is ${JSON.stringify(apiVersion)}: it must be an integer no higher than 1`);
	}
	const listed = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
	if ((manifest.n8n?.nodes ?? []).length === 0) problems.push('n8n.nodes lists no node');
	for (const file of listed) {
		const path = join(dir, file);
		if (!existsSync(path)) {
			problems.push(`${file} is listed in the n8n section but not in the packed tree (check "files")`);
			continue;
		}
		const className = basename(file).split('.')[0];
		if (!readFileSync(path, 'utf8').includes(`exports.${className} =`)) {
			problems.push(`${file} does not export a class named ${className}`);
		}
	}
	return problems;
}

function readManifest(path: string): PackageManifest {
	if (!existsSync(path)) throw new Error(`No package.json at ${path}`);
	return JSON.parse(readFileSync(path, 'utf8')) as PackageManifest;
}
