// @ts-check
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

import { latestOf } from './scripts/mutationReport.ts';

/**
 * Mutation testing (`npm run test:mutation`, opt-in, not part of `npm test`): StrykerJS changes the code
 * of nodes/ and credentials/ one small bug at a time and runs the unit tests that cover it; a mutant no
 * test fails on is a "survivor". CONTRIBUTING.md ("Mutation testing") has the score and how to read it.
 *
 * One run per part (MUTATION_PART, see PARTS; scripts/mutation.sh runs them all): each mutant run loads
 * every test file Jest is given, so a part's run is given the tests that mirror it, not all 31 files. That
 * cut a mutant's run from about 20 s to a few seconds here. A test elsewhere that would kill a mutant is
 * not counted: the score is a lower bound.
 * `tests` holds folders (every *.test.ts under them) or test file globs.
 * `timeoutMS` replaces the main run's 10 s margin (below) for a part whose mutants run many tests each.
 * @type {Record<string, { mutate: string[], tests: string[], timeoutMS?: number }>}
 */
export const PARTS = {
	trigger: {
		mutate: ['nodes/CampaignCallingTrigger/**/*.ts'],
		tests: ['test/nodes/CampaignCallingTrigger'],
	},
	// The delivery rule and the account read alone (issue 61): a quicker run than the whole trigger's 2.5 h.
	triggerRule: {
		mutate: ['nodes/CampaignCallingTrigger/registrations.ts', 'nodes/CampaignCallingTrigger/account.ts'],
		tests: ['test/nodes/CampaignCallingTrigger'],
	},
	transport: {
		mutate: ['nodes/shared/transport/**/*.ts'],
		tests: ['test/nodes/shared/transport', 'test/credentials'],
	},
	// service.ts, validation.ts and moduleSettings.ts are reached through both nodes' operations; of the
	// transport's tests, only failures.test.ts reads service.ts's own texts (what to check before repeating).
	shared: {
		mutate: ['nodes/shared/*.ts'],
		tests: [
			'test/nodes/CampaignCalling',
			'test/nodes/CampaignCallingTrigger',
			'test/nodes/shared/*.test.ts',
			'test/nodes/shared/transport/failures.test.ts',
		],
		timeoutMS: 30_000,
	},
	actions: {
		mutate: ['nodes/CampaignCalling/**/*.ts'],
		tests: ['test/nodes/CampaignCalling'],
	},
	credentials: {
		mutate: ['credentials/**/*.ts'],
		tests: ['test/credentials'],
	},
};

const partName = process.env.MUTATION_PART ?? '';
const part = PARTS[partName];
if (part === undefined) {
	throw new Error(
		`Set MUTATION_PART to one of ${Object.keys(PARTS).join(', ')} (npm run test:mutation runs them all).`,
	);
}

/**
 * MUTATION_RECHECK=survivors: the part's survivors (and mutants no test covered) in its last report, tested
 * again against all of the part's tests. perTest coverage ties code that runs when a module loads
 * (a constant, a table) to whichever test loaded it, often one that reloads the node to play a restarted
 * n8n, so the tests that read it are not run: a false survivor. The recheck runs every test instead.
 *
 * MUTATION_RECHECK=timeouts: the main run's timed-out mutants, tested again. A mutant that hangs makes
 * Stryker kill and restart its test runner; on 2 cores that restart slows the other runner's mutant past
 * its own timeout, and so on: the actions' main run reported 147 timeouts, 29 of them on mutants of a
 * text. Tested again with a test runner per core, few enough of them hang at once for the others to run
 * at their pace. Its report holds every mutant of the part, the other results reused.
 */
const recheck = process.env.MUTATION_RECHECK ?? '';
if (!['', 'survivors', 'timeouts'].includes(recheck)) throw new Error('MUTATION_RECHECK is "survivors" or "timeouts".');
const report = `reports/mutation/${partName}${{ '': '', survivors: '.recheck', timeouts: '.timeouts' }[recheck]}`;

/**
 * The place of each survivor or uncovered mutant in the part's latest report (the timeouts' recheck
 * holds every mutant), as a mutate range (its columns count from 0). A range takes every mutant inside
 * it; a survivor's inner mutants come along, quick to run.
 */
function survivorRanges() {
	const latest = latestOf(`reports/mutation/${partName}.json`, `reports/mutation/${partName}.timeouts.json`);
	/** @type {MutationReport} */
	const last = JSON.parse(readFileSync(latest, 'utf8'));
	const ranges = new Set();
	for (const [file, { mutants }] of Object.entries(last.files)) {
		for (const { status, location: { start, end } } of mutants) {
			if (status === 'Survived' || status === 'NoCoverage') ranges.add(`${file}:${start.line}:${start.column - 1}-${end.line}:${end.column}`);
		}
	}
	if (ranges.size === 0) throw new Error(`${latest} has no Survived or NoCoverage mutant to check again.`);
	return [...ranges];
}

/**
 * The incremental file of the timeouts' recheck: the part's latest results without their timeouts, so
 * that Stryker reuses every other result and tests each timed-out mutant again, exactly those (a mutate
 * range would bring along every mutant inside a timed-out block). Stryker writes every result of a run
 * back to its incremental file, so a second recheck (MUTATION_TIMEOUT_MS gives it a longer limit) starts
 * from the first one's and takes only what timed out twice; a main run made since starts it over.
 */
function timeoutsRecheckIncrementalFile() {
	const path = `reports/mutation/${partName}.timeouts.incremental.json`;
	/** @type {MutationReport} */
	const results = JSON.parse(readFileSync(latestOf(`reports/mutation/${partName}.incremental.json`, path), 'utf8'));
	for (const entry of Object.values(results.files)) entry.mutants = entry.mutants.filter((mutant) => mutant.status !== 'Timeout');
	writeFileSync(path, JSON.stringify(results));
	return path;
}

/** @typedef {import('./scripts/mutationReport.ts').MutationReport} MutationReport */

/**
 * MUTATION_TESTS (comma-separated folders or globs) replaces the part's tests, for a quicker recheck on
 * the tests that reach the mutants: what it kills is killed, what it leaves is only a lower bound.
 */
const testsOfRun = process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : part.tests;

/** Jest's limit for one test in a mutation run: the 20 s of jest.config.js would let 3 hung tests outlast a recheck's 60 s. */
const MUTATION_TEST_LIMIT_MS = 10_000;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	// The node classes are their description (data n8n reads, checked by the lint, the scanner and the
	// real-n8n suite) and one-line calls into the functions mutated in the other files. Mutants of the
	// description are built with every node instance, so each would run every test of its node.
	mutate: recheck === 'survivors' ? survivorRanges() : [...part.mutate, '!nodes/**/*.node.ts'],
	testRunner: 'jest',
	jest: {
		projectType: 'custom',
		configFile: 'jest.config.js',
		config: {
			// Coverage is Stryker's own (perTest); Jest's istanbul pass would only slow each run.
			collectCoverage: false,
			// A mutant that hangs a test is killed by Jest at this limit (3.5 s is the slowest test here), and
			// the file's other tests are skipped after it (scripts/mutationFailFast.cjs).
			testTimeout: MUTATION_TEST_LIMIT_MS,
			// Stryker wraps this environment by its path, without Jest's <rootDir>.
			testEnvironment: fileURLToPath(new URL('./scripts/mutationFailFast.cjs', import.meta.url)),
			testMatch: testsOfRun.map((tests) => `<rootDir>/${tests.endsWith('.ts') ? tests : `${tests}/**/*.test.ts`}`),
		},
		// Jest's --findRelatedTests misses tests that reach the code through helpers imported as `*.ts`;
		// the first run takes the part's tests, and perTest coverage then picks each mutant's tests.
		enableFindRelatedTests: false,
	},
	coverageAnalysis: recheck === 'survivors' ? 'all' : 'perTest',
	// A static mutant (code that runs when a module loads: constant tables, property lists) is covered
	// by no single test, so each would run all of the part's tests; they are left out, not counted. The
	// survivors' recheck runs all tests for every mutant anyway (Stryker refuses ignoreStatic there).
	ignoreStatic: recheck !== 'survivors',
	// The timeouts' recheck keeps the checker: a change of tests since the main run makes Stryker test
	// again mutants the checker rejected there.
	checkers: recheck === 'survivors' ? [] : ['typescript'],
	tsconfigFile: 'tsconfig.json',
	// A mutant that outlives its tests' time by this much counts as detected (a held retry that never
	// ends). Stryker's 5 s default gave false timeouts on this 2-core machine under load; so did 10 s for
	// a recheck (all of a part's tests per mutant), where a mutant shown equivalent by hand timed out, and
	// for the shared part's main run, whose mutants of validation.ts run hundreds of tests each (7 of its
	// first 9 results; PARTS gives it 30 s). Both rechecks wait 60 s, past Jest's 10 s test limit, so a mutant
	// that hangs a test is killed by Jest there, and one still timing out is counted as a survivor
	// (scripts/mutation-score.ts). MUTATION_TIMEOUT_MS overrides it.
	timeoutMS: Number(process.env.MUTATION_TIMEOUT_MS ?? (recheck === '' ? (part.timeoutMS ?? 10_000) : 60_000)),
	// Re-runs only mutants whose code or covering tests changed since the last run; the timeouts'
	// recheck also re-runs the main run's timeouts.
	incremental: recheck !== 'survivors',
	incrementalFile: recheck === 'timeouts' ? timeoutsRecheckIncrementalFile() : `reports/mutation/${partName}.incremental.json`,
	reporters: ['clear-text', 'html', 'json', 'progress'],
	htmlReporter: { fileName: `${report}.html` },
	jsonReporter: { fileName: `${report}.json` },
	// One process per core: with the type checker, Stryker makes half of them checkers and, once checking
	// is done, hands the checkers' share to more test runners. Set to 4 on 2 cores, that left 4 runners on
	// 2 cores, each held to the limit the dry run measured alone: the timeouts then came in floods (the
	// actions' main run, from one in eight to nearly all once its checking was done).
	concurrency: availableParallelism(),
	tempDirName: `.stryker-tmp/${partName}${recheck === '' ? '' : `-${recheck}`}`,
	cleanTempDir: 'always',
	ignorePatterns: ['dist', 'coverage', 'reports', 'test/e2e/.work', 'bench/.work', '.tmp', '.stryker-tmp'],
};
