/** The real-n8n harness's free ports (test/e2e/harness/process.ts), checked without n8n. */
import { freePort } from '../e2e/harness/process.ts';

it('hands out no port twice in a file, though the OS may pick a port again until its process binds it', async () => {
	const ports: number[] = [];
	for (let each = 0; each < 3_000; each++) ports.push(await freePort());
	expect(new Set(ports).size).toBe(ports.length);
});
