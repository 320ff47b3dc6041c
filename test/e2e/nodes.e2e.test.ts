/**
 * The package inside real n8n (one `n8n start` process on SQLite), installed as the Community Nodes
 * installer does, against the simulator: the cases are in harness/package-cases.ts, shared with the
 * queue-mode suite.
 */
import { startN8n } from './harness/n8n.ts';
import { packageCases } from './harness/package-cases.ts';
import { describeEachVersion } from './harness/runtime.ts';

describeEachVersion('the package in n8n %s', (version) => {
	packageCases({ start: () => startN8n({ version, withPackage: true }) });
});
