/**
 * The mutation score per part and in all, from the reports `npm run test:mutation` leaves in
 * reports/mutation/<part>.json (mutation-testing-report-schema), with each surviving or uncovered
 * mutant. Detected = killed or timed out; the score is detected / (detected + survived + no coverage),
 * as Stryker counts it: mutants the TypeScript checker rejects and static mutants are left out. A
 * survivor that its recheck against all of the part's tests (<part>.recheck.json) killed counts as
 * detected, under "killed on recheck".
 * Exits 1 when the score in all is under GOAL.
 */
import { existsSync, readFileSync } from 'node:fs';

const GOAL = 85;
const PARTS = ['trigger', 'transport', 'shared', 'actions', 'credentials'];

interface Mutant {
	status: string;
	mutatorName: string;
	replacement?: string;
	location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
interface Report {
	files: Record<string, { mutants: Mutant[] }>;
}

const counted = ['Killed', 'Timeout', 'KilledOnRecheck', 'Survived', 'NoCoverage'] as const;
const totals: Record<string, number> = {};
const rows: string[] = [];
const undetected: string[] = [];
for (const part of PARTS) {
	const path = `reports/mutation/${part}.json`;
	if (!existsSync(path)) {
		rows.push(`| ${part} | not run | | | | | | | |`);
		continue;
	}
	const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
	const recheckPath = `reports/mutation/${part}.recheck.json`;
	const rechecked = new Map<string, string>();
	if (existsSync(recheckPath)) {
		const recheck = JSON.parse(readFileSync(recheckPath, 'utf8')) as Report;
		for (const [file, { mutants }] of Object.entries(recheck.files)) {
			for (const mutant of mutants) rechecked.set(mutantKey(file, mutant), mutant.status);
		}
	}
	const count: Record<string, number> = {};
	for (const [file, { mutants }] of Object.entries(report.files)) {
		for (const reported of mutants) {
			const again = rechecked.get(mutantKey(file, reported));
			const killedOnRecheck = (reported.status === 'Survived' || reported.status === 'NoCoverage') && (again === 'Killed' || again === 'Timeout');
			const mutant = killedOnRecheck ? { ...reported, status: 'KilledOnRecheck' } : reported;
			count[mutant.status] = (count[mutant.status] ?? 0) + 1;
			if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') {
				undetected.push(`${file}:${mutant.location.start.line} ${mutant.status} ${mutant.mutatorName}: ${JSON.stringify(mutant.replacement ?? '').slice(0, 80)}`);
			}
		}
	}
	for (const [status, n] of Object.entries(count)) totals[status] = (totals[status] ?? 0) + n;
	rows.push(row(part, count));
}
rows.push(row('in all', totals));

console.log('| part | killed | timed out | killed on recheck | survived | no coverage | score | checker rejected | static, ignored |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const line of rows) console.log(line);
console.log(`\nSurvived or not covered (${undetected.length}):`);
for (const line of undetected) console.log(`  ${line}`);
const total = score(totals);
console.log(`\nMutation score in all: ${total === undefined ? 'no results' : `${total.toFixed(1)} %`} (goal ${GOAL} %)`);
process.exitCode = total !== undefined && total >= GOAL ? 0 : 1;

function score(count: Record<string, number>): number | undefined {
	const [killed, timedOut, killedOnRecheck, survived, noCoverage] = counted.map((status) => count[status] ?? 0);
	const detected = killed + timedOut + killedOnRecheck;
	const withResult = detected + survived + noCoverage;
	return withResult === 0 ? undefined : (100 * detected) / withResult;
}

function row(name: string, count: Record<string, number>): string {
	const value = score(count);
	const cells = [...counted.map((status) => count[status] ?? 0), value === undefined ? '-' : `${value.toFixed(1)} %`, count.CompileError ?? 0, count.Ignored ?? 0];
	return `| ${name} | ${cells.join(' | ')} |`;
}

/** One mutant across two runs of the same code: its place, mutator and replacement. */
function mutantKey(file: string, mutant: Mutant): string {
	const { start, end } = mutant.location;
	return `${file}:${start.line}:${start.column}-${end.line}:${end.column} ${mutant.mutatorName} ${mutant.replacement ?? ''}`;
}
