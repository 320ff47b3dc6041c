/** The real-n8n suite: installs pinned n8n (cached), loads the packed package, drives it over n8n's API. */

/**
 * The full-queue files (issue 27) measure whether answers come in time, so `npm test` runs them apart, alone on
 * the machine (scripts/test-real-n8n.sh): E2E_FULL_QUEUE=skip leaves them out, E2E_FULL_QUEUE=only runs only them.
 */
const FULL_QUEUE_FILES = 'full-queue-[^/]*\\.e2e\\.test\\.ts$';
const fullQueue = process.env.E2E_FULL_QUEUE;
/** A pattern of files to leave out: scripts/test-real-n8n.sh runs them in its other lane, to even the lanes out. */
const elsewhere = process.env.E2E_ELSEWHERE;

module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: [fullQueue === 'only' ? '**/full-queue-*.e2e.test.ts' : '**/*.e2e.test.ts'],
	// Queue mode (files ending in queue.e2e.test.ts) has its own config (jest.queue.config.js) and script (npm run test:queue).
	testPathIgnorePatterns: [
		'/node_modules/',
		'queue\\.e2e\\.test\\.ts$',
		...(fullQueue === 'skip' ? [FULL_QUEUE_FILES] : []),
		...(elsewhere ? [elsewhere] : []),
	],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
	},
	// Installs happen here, before any test and outside every test's timeout; teardown stops what tests left running.
	globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.ts',
	testTimeout: 600000,
	maxWorkers: 1,
};
