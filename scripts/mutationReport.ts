/**
 * What stryker.config.mjs and mutation-score.ts both read of a StrykerJS report
 * (mutation-testing-report-schema), and the one key that finds a mutant again in another run's report.
 */
export interface Mutant {
	id: string;
	status: string;
	mutatorName: string;
	replacement?: string;
	location: { start: { line: number; column: number }; end: { line: number; column: number } };
	killedBy?: string[];
	coveredBy?: string[];
}

export interface MutationReport {
	files: Record<string, { mutants: Mutant[] }>;
	testFiles?: Record<string, { tests: Array<{ id: string; name: string }> }>;
}

/** One mutant across two runs of the same code: its place, mutator and replacement. */
export function mutantKey(file: string, mutant: Mutant): string {
	const { start, end } = mutant.location;
	return `${file}:${start.line}:${start.column}-${end.line}:${end.column} ${mutant.mutatorName} ${mutant.replacement ?? ''}`;
}
