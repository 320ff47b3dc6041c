/**
 * Control routes under /__sim/ for drivers in another process (the e2e harness, the demo, the
 * benchmark). They need no credential, are not recorded and are never hit by injected faults.
 */
import { checkFaultSpec } from './faults.ts';
import { isPlainObject } from './validation.ts';
import type { ApiAnswer } from './api.ts';
import type { FaultSpec, IncomingRequest, PlayCallOptions, Simulator } from './types.ts';

export interface ControlTarget {
	simulator: Simulator;
	listFaults(): FaultSpec[];
}

const answer = (body: unknown, status = 200): ApiAnswer => ({ status, body });
const problem = (status: number, message: string): ApiAnswer => ({ status, body: { status: 'error', message }, reason: message });

export async function answerControlRequest(
	{ simulator, listFaults }: ControlTarget,
	request: IncomingRequest,
	bodyIsMalformed: boolean,
): Promise<ApiAnswer> {
	if (bodyIsMalformed) return problem(400, 'malformed JSON body');
	const { body, query } = request;
	switch (`${request.method} ${request.path}`) {
		case 'GET /__sim/health':
			return answer({ status: 'ok', url: simulator.url });
		case 'GET /__sim/requests': {
			const pathPart = query.path;
			return answer(
				pathPart === undefined ? simulator.requests : simulator.requests.filter((recorded) => recorded.path.includes(pathPart)),
			);
		}
		case 'DELETE /__sim/requests': {
			const cleared = simulator.requests.length;
			simulator.requests.length = 0;
			return answer({ status: 'ok', cleared });
		}
		case 'POST /__sim/reset':
			simulator.reset();
			return answer({ status: 'ok' });
		case 'GET /__sim/faults':
			return answer(listFaults());
		case 'POST /__sim/faults': {
			let faults: FaultSpec[];
			try {
				// Check them all before adding any, so a bad element adds nothing.
				faults = (Array.isArray(body) ? body : [body]).map(checkFaultSpec);
			} catch (error) {
				return problem(400, (error as Error).message);
			}
			for (const fault of faults) simulator.injectFault(fault);
			return answer({ status: 'ok', faults: listFaults() });
		}
		case 'DELETE /__sim/faults':
			simulator.clearFaults();
			return answer({ status: 'ok' });
		case 'GET /__sim/modules': {
			const { integrationModules, webhookModules } = simulator.state;
			return answer({
				integrations: [...integrationModules.values()].map(({ companyId, record }) => ({ ...record, company_id: companyId })),
				webhooks: [...webhookModules.values()].map(({ companyId, record }) => ({ ...record, company_id: companyId })),
			});
		}
		case 'GET /__sim/contacts': {
			const contacts = [...simulator.state.contacts.values()];
			const { campaignId } = query;
			return answer(campaignId === undefined ? contacts : contacts.filter((contact) => contact.campaign_id === campaignId));
		}
		case 'POST /__sim/deliver': {
			if (!isPlainObject(body) || typeof body.event_type !== 'string') return problem(400, 'body needs event_type');
			if (body.payload !== undefined && !isPlainObject(body.payload)) return problem(400, 'payload must be an object');
			try {
				return answer(await simulator.deliverEvent(body.event_type, body.payload));
			} catch (error) {
				return problem(400, (error as Error).message);
			}
		}
		case 'POST /__sim/play-call': {
			const input = body ?? {};
			if (!isPlainObject(input)) return problem(400, 'body must be an object');
			const options: PlayCallOptions = {};
			if (typeof input.contact_id === 'string') options.contactId = input.contact_id;
			if (typeof input.campaign_id === 'string') options.campaignId = input.campaign_id;
			try {
				return answer(await simulator.playCall(options));
			} catch (error) {
				return problem(404, (error as Error).message);
			}
		}
		default:
			return problem(404, `no control route ${request.method} ${request.path}`);
	}
}
