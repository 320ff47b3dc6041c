/** What the trigger keeps in the n8n process (processState.ts): its bounded maps, and the key naming a trigger there. */
import type { IHookFunctions } from 'n8n-workflow';

import { BoundedMap, thisTriggerKey } from '../../../nodes/CampaignCallingTrigger/processState';

describe('a bounded map', () => {
	it('forgets its oldest entry first past its size limit; setting a key again makes it the newest', () => {
		const map = new BoundedMap<string, number>(2);
		map.set('a', 1);
		map.set('b', 2);
		map.set('a', 3);
		map.set('c', 4);
		expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
	});

});

describe("this trigger's key", () => {
	it("is its workflow's id and its node's id, the workflow's empty while it is not saved", () => {
		const context = { getWorkflow: () => ({ id: 'workflow-1' }), getNode: () => ({ id: 'node-1' }) } as unknown as IHookFunctions;
		expect(thisTriggerKey.call(context)).toBe('workflow-1:node-1');
		expect(thisTriggerKey.call({ ...context, getWorkflow: () => ({ id: undefined }) } as unknown as IHookFunctions)).toBe(':node-1');
	});
});
