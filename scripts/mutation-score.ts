/**
 * The mutation score per part and in all, from the reports `npm run test:mutation` leaves in
 * reports/mutation/ (mutation-testing-report-schema), with each surviving or uncovered mutant.
 * Detected = killed; the score is detected / (detected + survived + no coverage + timed out twice):
 * a mutant that still times out on the recheck, 60 s past its tests' time and past Jest's 10 s limit per test,
 * is not shown to be caught, so it counts against the score (Stryker would count it as detected).
 * Mutants the TypeScript checker rejects and static mutants are left out.
 * A part's figures come from its timeouts' recheck (<part>.timeouts.json) when that ran after the main
 * run (<part>.json): it reports every mutant, its timeouts tested again and the other results reused. A
 * main-run timeout that survived there counts under "false timeouts" too; a mutant the main run's checker
 * rejected stays rejected. A survivor that its recheck against all of the part's tests (<part>.recheck.json)
 * killed counts as detected, under "killed on recheck".
 * Exits 1 when a part is not run or scores under GOAL.
 */
import { existsSync, readFileSync } from 'node:fs';

import { latestOf, mutantsByChange, type MutationReport } from './mutationReport.ts';

const GOAL = 90;
const PARTS = ['trigger', 'transport', 'shared', 'actions', 'credentials'];

const counted = ['Killed', 'Timeout', 'KilledOnRecheck', 'Survived', 'NoCoverage'] as const;
const totals: Record<string, number> = {};
const rows: string[] = [];
const underGoal: string[] = [];
const undetected: string[] = [];
for (const part of PARTS) {
	const mainRunPath = `reports/mutation/${part}.json`;
	if (!existsSync(mainRunPath)) {
		rows.push(`| ${part} | not run | | | | | | | | |`);
		underGoal.push(part);
		continue;
	}
	const mainRun = mutantsByChange(read(mainRunPath));
	const latest = mutantsByChange(read(latestOf(mainRunPath, `reports/mutation/${part}.timeouts.json`)));
	const rechecked = mutantsByChange(existsSync(`reports/mutation/${part}.recheck.json`) ? read(`reports/mutation/${part}.recheck.json`) : undefined);
	const count: Record<string, number> = {};
	for (const [change, { file, mutant }] of latest) {
		const inMainRun = mainRun.get(change)?.mutant.status;
		let status = inMainRun === 'CompileError' ? inMainRun : mutant.status;
		if (inMainRun === 'Timeout' && status === 'Survived') count.FalseTimeout = (count.FalseTimeout ?? 0) + 1;
		const again = rechecked.get(change)?.mutant.status;
		if ((status === 'Survived' || status === 'NoCoverage') && (again === 'Killed' || again === 'Timeout')) status = 'KilledOnRecheck';
		count[status] = (count[status] ?? 0) + 1;
		if (status === 'Survived' || status === 'NoCoverage' || status === 'Timeout') {
			undetected.push(`${file}:${mutant.location.start.line} ${status}${inMainRun === 'Timeout' ? ' (timed out in the main run)' : ''} ${mutant.mutatorName}: ${JSON.stringify(mutant.replacement ?? '').slice(0, 80)}`);
		}
	}
	for (const [status, n] of Object.entries(count)) totals[status] = (totals[status] ?? 0) + n;
	rows.push(row(part, count));
	if ((score(count) ?? 0) < GOAL) underGoal.push(part);
}
rows.push(row('in all', totals));

console.log('| part | killed | timed out twice | killed on recheck | survived | no coverage | score | false timeouts | checker rejected | static, ignored |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const line of rows) console.log(line);
console.log(`\nSurvived, not covered or timed out twice (${undetected.length}):`);
for (const line of undetected) console.log(`  ${line}`);
const total = score(totals);
console.log(`\nMutation score in all: ${total === undefined ? 'no results' : `${total.toFixed(1)} %`}; goal ${GOAL} % for each part: ${underGoal.length === 0 ? 'met' : `not met by ${underGoal.join(', ')}`}`);
process.exitCode = underGoal.length === 0 ? 0 : 1;

function score(count: Record<string, number>): number | undefined {
	const [killed, timedOut, killedOnRecheck, survived, noCoverage] = counted.map((status) => count[status] ?? 0);
	const detected = killed + killedOnRecheck;
	const withResult = detected + timedOut + survived + noCoverage;
	return withResult === 0 ? undefined : (100 * detected) / withResult;
}

function row(name: string, count: Record<string, number>): string {
	const value = score(count);
	const cells = [...counted.map((status) => count[status] ?? 0), value === undefined ? '-' : `${value.toFixed(1)} %`, count.FalseTimeout ?? 0, count.CompileError ?? 0, count.Ignored ?? 0];
	return `| ${name} | ${cells.join(' | ')} |`;
}

function read(path: string): MutationReport {
	return JSON.parse(readFileSync(path, 'utf8')) as MutationReport;
}
