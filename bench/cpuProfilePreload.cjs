/*
 * Loaded with NODE_OPTIONS=--require into n8n 1.x's processes by bench/profile.ts: Node 20 refuses --cpu-prof in
 * NODE_OPTIONS, so this starts V8's CPU profiler through the inspector and writes the profile as the process exits
 * (CPU_PROFILE_DIR/<pid>.cpuprofile), as --cpu-prof would.
 */
'use strict';
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
	const session = new inspector.Session();
	session.connect();
	session.post('Profiler.enable');
	session.post('Profiler.setSamplingInterval', { interval: 1000 });
	session.post('Profiler.start');
	// The in-process session answers synchronously, so the profile is written before the process ends.
	process.on('exit', () => {
		session.post('Profiler.stop', (error, result) => {
			if (!error) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
		});
	});
}
