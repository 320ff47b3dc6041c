/**
 * `npm run sandbox`: runs the simulator until Ctrl+C. Port from SIMULATOR_PORT (default 4010;
 * 0 picks a free port). SIMULATOR_HOST (default 127.0.0.1) and SIMULATOR_DELIVERY_HOSTS (hosts other
 * than loopback it delivers to, comma-separated) are for a test that runs it in a network namespace.
 */
import { DEMO, startSimulator } from './server.ts';

const DEFAULT_PORT = 4010;

async function main(): Promise<void> {
	const portSetting = process.env.SIMULATOR_PORT;
	const port = portSetting === undefined || portSetting === '' ? DEFAULT_PORT : Number(portSetting);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		throw new Error(`SIMULATOR_PORT must be a port number, not ${portSetting}`);
	}
	const host = process.env.SIMULATOR_HOST || '127.0.0.1';
	const deliveryHosts = (process.env.SIMULATOR_DELIVERY_HOSTS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
	const simulator = await startSimulator({ host, port, deliveryHosts });
	console.log(
		[
			`Campaign calling simulator listening on ${simulator.url}`,
			'',
			`  Base URL (credential baseUrl): ${simulator.url}`,
			`  API key (credential apiKey):   ${DEMO.apiKey}`,
			`  Other company's API key:       ${DEMO.otherApiKey}`,
			`  Demo campaign id:              ${DEMO.campaignId}`,
			`  Demo contact ids:              ${DEMO.neverCalledContactId} (never called)`,
			`                                 ${DEMO.completedContactId} (completed call)`,
			`                                 ${DEMO.noAnswerContactId} (no answer)`,
			'',
			`  Simulate a call (fires call.started and call.ended to registered triggers):`,
			`    curl -X POST ${simulator.url}/__sim/play-call`,
			`  See what the service received:  curl ${simulator.url}/__sim/requests`,
			'',
			'Press Ctrl+C to stop.',
		].join('\n'),
	);

	let stopping = false;
	const stop = (signal: string): void => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal} received, stopping the simulator.`);
		simulator.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	console.error((error as Error).message);
	process.exit(1);
});
