// Copies what the compiled nodes load from beside themselves into dist/: the light and dark SVG
// icons (referenced with `file:` paths) and the codex files (`*.node.json`) that place the nodes in
// n8n's node panel and link their documentation.
const { rmSync } = require('node:fs');
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png}', 'nodes/**/*.node.json', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

// `npm pack` ships all of dist/, so a build starts from an empty one: files left by an earlier
// build (or an earlier compiler setting) must not reach the published package.
function clean(done) {
	rmSync('dist', { recursive: true, force: true });
	done();
}

exports.clean = clean;
exports['build:icons'] = copyAssets;
exports.default = copyAssets;
