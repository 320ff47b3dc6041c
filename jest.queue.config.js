/** The real-n8n suite in queue mode (Redis, Postgres, main + worker + webhook processes): `npm run test:queue`. */
const e2e = require('./jest.e2e.config.js');

module.exports = {
	...e2e,
	testMatch: ['**/*queue.e2e.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	globalSetup: '<rootDir>/test/e2e/queueGlobalSetup.ts',
};
