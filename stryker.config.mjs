// @ts-check
/**
 * Mutation testing (`npm run test:mutation`, opt-in, not part of `npm test`): StrykerJS changes the code
 * of nodes/ and credentials/ one small bug at a time and runs the unit tests that cover it; a mutant no
 * test fails on is a "survivor". CONTRIBUTING.md ("Mutation testing") has the score and how to read it.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
	// The node classes are their description (data n8n reads, checked by the lint, the scanner and the
	// real-n8n suite) and one-line calls into the functions mutated in the other files. Mutants of the
	// description are built with every node instance, so each would run every test of its node.
	mutate: ['nodes/**/*.ts', 'credentials/**/*.ts', '!nodes/**/*.node.ts'],
	testRunner: 'jest',
	jest: {
		projectType: 'custom',
		configFile: 'jest.config.js',
		// Coverage is Stryker's own (perTest); Jest's istanbul pass would only slow each run.
		config: { collectCoverage: false },
		// Jest's --findRelatedTests misses tests that reach the code through helpers imported as `*.ts`;
		// the first run takes every test, and perTest coverage then picks each mutant's tests.
		enableFindRelatedTests: false,
	},
	coverageAnalysis: 'perTest',
	// A static mutant (code that runs when a module loads: node descriptions, constant tables) is covered
	// by no single test, so each would run the whole suite: about 1,000 of them, many hours here.
	ignoreStatic: true,
	checkers: ['typescript'],
	tsconfigFile: 'tsconfig.json',
	// Re-runs only mutants whose code or covering tests changed since the last run.
	incremental: true,
	incrementalFile: 'reports/stryker-incremental.json',
	reporters: ['clear-text', 'html', 'json', 'progress'],
	htmlReporter: { fileName: 'reports/mutation/mutation.html' },
	jsonReporter: { fileName: 'reports/mutation/mutation.json' },
	// The machine it was measured on has 2 cores; pass `--concurrency N` for more.
	concurrency: 1,
	tempDirName: '.stryker-tmp',
	cleanTempDir: 'always',
	ignorePatterns: ['dist', 'coverage', 'reports', 'test/e2e/.work', 'bench/.work', '.tmp'],
};
