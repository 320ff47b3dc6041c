/**
 * The soak run (`npm run test:soak`, E2E_SOAK=1): floods and n8n's own baselines that passed on the code
 * they were written against too (bench/RESULTS.md, "Soak run"), so they measure rather than catch a
 * regression. `npm test` lists them as skipped, saying where they run.
 */
export const SOAK_RUN = process.env.E2E_SOAK === '1';

type Case = (title: string, fn: jest.ProvidesCallback, timeout?: number) => void;

/** `it` in the soak run; elsewhere a skipped case whose title names the soak run. `when` false: always `it`. */
export function soakOnly(when = true): Case {
	if (!when || SOAK_RUN) return (title, fn, timeout) => it(title, fn, timeout);
	return (title, fn, timeout) => it.skip(`${title} [soak run only: npm run test:soak]`, fn, timeout);
}
