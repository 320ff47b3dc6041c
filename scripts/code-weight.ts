// `node scripts/code-weight.ts`: lines of code (no comments, no blank lines) and the comments' share of
// the code's characters, per part of the package (issue 51's yardstick), from TypeScript's own scanner.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const PARTS: Array<[string, string]> = [
	['action node', 'nodes/CampaignCalling'],
	['trigger', 'nodes/CampaignCallingTrigger'],
	['shared', 'nodes/shared'],
	['credential', 'credentials'],
];

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return filesUnder(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

function weigh(path: string): { lines: number; codeChars: number; commentChars: number } {
	const text = readFileSync(path, 'utf8');
	const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
	const codeLines = new Set<number>();
	let codeChars = 0;
	let commentChars = 0;
	const lineOf = (pos: number) => text.slice(0, pos).split('\n').length;
	for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
		const length = scanner.getTextPos() - scanner.getTokenPos();
		if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
			commentChars += length;
		} else if (kind !== ts.SyntaxKind.WhitespaceTrivia && kind !== ts.SyntaxKind.NewLineTrivia) {
			codeChars += length;
			const first = lineOf(scanner.getTokenPos());
			const last = lineOf(scanner.getTextPos());
			for (let line = first; line <= last; line++) codeLines.add(line);
		}
	}
	return { lines: codeLines.size, codeChars, commentChars };
}

let total = 0;
console.log('| part | lines of code | comment share of characters | files |');
console.log('|---|---|---|---|');
for (const [name, dir] of PARTS) {
	const weights = filesUnder(dir).map(weigh);
	const lines = weights.reduce((sum, w) => sum + w.lines, 0);
	const code = weights.reduce((sum, w) => sum + w.codeChars, 0);
	const comments = weights.reduce((sum, w) => sum + w.commentChars, 0);
	total += lines;
	console.log(`| ${name} | ${lines} | ${((100 * comments) / (code + comments)).toFixed(0)} % | ${weights.length} |`);
}
console.log(`| in all | ${total} | | |`);
