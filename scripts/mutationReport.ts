/**
 * What stryker.config.mjs and mutation-score.ts both read of a StrykerJS report
 * (mutation-testing-report-schema), and how a mutant is found again in another run's report.
 */
import { existsSync, statSync } from 'node:fs';

export interface Mutant {
	status: string;
	mutatorName: string;
	replacement?: string;
	location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

export interface MutationReport {
	files: Record<string, { source: string; mutants: Mutant[] }>;
}

/** The recheck's file when it was written after the main run's, else the main run's. */
export function latestOf(mainRun: string, recheck: string): string {
	return existsSync(recheck) && statSync(recheck).mtimeMs > statSync(mainRun).mtimeMs ? recheck : mainRun;
}

/**
 * A report's mutants by what they change (file, mutator, replacement, the code replaced and which
 * occurrence of it), not by line: a change elsewhere in the file moves a mutant without changing it.
 */
export function mutantsByChange(report: MutationReport | undefined): Map<string, { file: string; mutant: Mutant }> {
	const byChange = new Map<string, { file: string; mutant: Mutant }>();
	for (const [file, { source, mutants }] of Object.entries(report?.files ?? {})) {
		const lineStarts = [0];
		for (const text of source.split('\n')) lineStarts.push(lineStarts[lineStarts.length - 1] + text.length + 1);
		const offset = ({ line, column }: { line: number; column: number }) => lineStarts[line - 1] + column - 1;
		const occurrences = new Map<string, number>();
		// In the order of the code: reports list mutants in no fixed order, and the occurrence counts along it.
		const inCodeOrder = [...mutants].sort((a, b) => offset(a.location.start) - offset(b.location.start) || offset(a.location.end) - offset(b.location.end));
		for (const mutant of inCodeOrder) {
			const change = [file, mutant.mutatorName, mutant.replacement ?? '', source.slice(offset(mutant.location.start), offset(mutant.location.end))].join('\u0000');
			const occurrence = (occurrences.get(change) ?? 0) + 1;
			occurrences.set(change, occurrence);
			byChange.set(`${change}\u0000${occurrence}`, { file, mutant });
		}
	}
	return byChange;
}
