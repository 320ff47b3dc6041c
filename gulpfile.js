// Copies what the compiled nodes load from beside themselves into dist/: the light and dark SVG
// icons (referenced with `file:` paths) and the codex files (`*.node.json`) that place the nodes in
// n8n's node panel and link their documentation.
const { src, dest } = require('gulp');

function copyAssets() {
	return src(['nodes/**/*.{svg,png}', 'nodes/**/*.node.json', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = copyAssets;
exports.default = copyAssets;
