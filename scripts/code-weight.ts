// `node scripts/code-weight.ts`: lines of code (no comments, no blank lines) and the comments' share of
// the code's characters, per part of the package (issue 51's yardstick), from TypeScript's own parser.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = process.argv[2] ?? '.';
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

/**
 * Walks the parsed file's tokens (the parser, not the bare scanner, so that template literals are read
 * whole); comments are the ranges before each token.
 */
function weigh(path: string): { lines: number; codeChars: number; commentChars: number } {
	const text = readFileSync(path, 'utf8');
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const codeLines = new Set<number>();
	const commentsSeen = new Set<number>();
	let codeChars = 0;
	let commentChars = 0;
	const visit = (node: ts.Node): void => {
		if (ts.isJSDoc(node)) return;
		const children = node.getChildren(file);
		if (children.length > 0 && node.kind !== ts.SyntaxKind.EndOfFileToken) {
			children.forEach(visit);
			return;
		}
		for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
			if (commentsSeen.has(range.pos)) continue;
			commentsSeen.add(range.pos);
			commentChars += range.end - range.pos;
		}
		const start = node.getStart(file);
		if (node.end <= start) return;
		codeChars += node.end - start;
		const first = file.getLineAndCharacterOfPosition(start).line;
		const last = file.getLineAndCharacterOfPosition(node.end).line;
		for (let line = first; line <= last; line++) codeLines.add(line);
	};
	visit(file);
	return { lines: codeLines.size, codeChars, commentChars };
}

let total = 0;
console.log('| part | lines of code | comment share of characters | files |');
console.log('|---|---|---|---|');
for (const [name, dir] of PARTS) {
	const weights = filesUnder(join(root, dir)).map(weigh);
	const lines = weights.reduce((sum, w) => sum + w.lines, 0);
	const code = weights.reduce((sum, w) => sum + w.codeChars, 0);
	const comments = weights.reduce((sum, w) => sum + w.commentChars, 0);
	total += lines;
	console.log(`| ${name} | ${lines} | ${((100 * comments) / (code + comments)).toFixed(0)} % | ${weights.length} |`);
}
console.log(`| in all | ${total} | | |`);
