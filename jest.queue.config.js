/** The real-n8n suite in queue mode (Redis, Postgres, main + worker + webhook processes): `npm run test:queue`. */
const e2e = require('./jest.e2e.config.js');

// As in jest.e2e.config.js: E2E_FULL_QUEUE=skip leaves out the full-queue file, E2E_FULL_QUEUE=only runs only it;
// E2E_ELSEWHERE leaves out the files scripts/test-real-n8n.sh runs in another lane.
const fullQueue = process.env.E2E_FULL_QUEUE;
const elsewhere = process.env.E2E_ELSEWHERE;

module.exports = {
	...e2e,
	testMatch: [fullQueue === 'only' ? '**/full-queue-*queue.e2e.test.ts' : '**/*queue.e2e.test.ts'],
	testPathIgnorePatterns: [
		'/node_modules/',
		...(fullQueue === 'skip' ? ['full-queue-[^/]*\\.e2e\\.test\\.ts$'] : []),
		...(elsewhere ? [elsewhere] : []),
	],
	globalSetup: '<rootDir>/test/e2e/queueGlobalSetup.ts',
};
