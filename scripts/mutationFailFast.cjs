// Jest's environment for mutation runs (stryker.config.mjs): once a test of a file has failed, the file's
// other tests are skipped. One failure already kills the mutant; a mutant that hangs every test it reaches
// is then killed at the first test's limit, not timed out after all of them.
const { TestEnvironment } = require('jest-environment-node');

class FailFastEnvironment extends TestEnvironment {
	failed = false;

	async handleTestEvent(event) {
		if (event.name === 'test_done' && event.test.errors.length > 0) this.failed = true;
		if (event.name === 'test_start' && this.failed) event.test.mode = 'skip';
	}
}

module.exports = FailFastEnvironment;
