/**
 * The package inside real n8n (the run's shared `n8n start` process on SQLite, harness/shared.ts), installed as the Community Nodes
 * installer does, against the simulator: the cases are in harness/package-cases.ts, shared with the
 * queue-mode suite.
 */
import { packageCases } from './harness/package-cases.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { sharedN8n } from './harness/shared.ts';

describeEachVersion('the package in n8n %s', (version) => {
	packageCases({ start: () => sharedN8n(version) });
});
