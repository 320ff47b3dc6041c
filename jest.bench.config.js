/** Benchmarks print figures; they assert only counts (requests, items), never timings. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/bench'],
	testMatch: ['**/*.bench.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }] },
	testTimeout: 3_600_000,
	maxWorkers: 1,
};
