/**
 * Bad input to the action node: each row is refused before any request reaches the service, with a
 * message naming the field and the item. With Continue On Fail, an input error of one item becomes that
 * item's error item; an error in a node-wide setting becomes an error item for every input item. Each
 * operation's test file lists the rows of the parameters its source reads.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { CredentialData } from './n8nContext.ts';
import { runActionNode, runActionNodeExpectingError } from './n8nContext.ts';
import type { SimulatorHandle } from './kit.ts';

export interface BadInput {
	name: string;
	parameters: IDataObject;
	/** Input items; the bad one is at `item`. Defaults to one empty item. */
	items?: INodeExecutionData[];
	item: number;
	/** The field named at the start of the message, and more of the message. */
	message: RegExp;
	/** A node-wide setting: with Continue On Fail, every item fails and nothing is sent. */
	nodeWide?: boolean;
	credentials?: (simulatorUrl: string) => CredentialData;
}

export const UUID_MESSAGE = 'must be a UUID like 123e4567-e89b-12d3-a456-426614174000';

/** Items whose field `v` is good except at `badIndex`. */
export const itemsWith = (good: unknown, bad: unknown, badIndex: number, count = badIndex + 1): INodeExecutionData[] =>
	Array.from({ length: count }, (_, i) => ({ json: { v: (i === badIndex ? bad : good) as IDataObject[string] } }));

export function describeBadInputs(sim: SimulatorHandle, table: BadInput[]): void {
	describe.each(table)('bad input: $name', (row) => {
		const run = (continueOnFail: boolean) => ({
			credentials: row.credentials ? row.credentials(sim.simulator.url) : sim.credentials(),
			items: row.items ?? [{ json: {} }],
			parameters: row.parameters,
			continueOnFail,
		});

		it('throws, naming the field and the item, and sends nothing', async () => {
			const error = await runActionNodeExpectingError(run(false));
			expect(error.message).toMatch(row.message);
			expect(error.message.endsWith(` [item ${row.item}]`)).toBe(true);
			expect(error.context?.itemIndex).toBe(row.item);
			expect(sim.requests()).toHaveLength(0);
		});

		if (row.nodeWide) {
			it('with Continue On Fail gives every input item an error item with the reason, and sends nothing', async () => {
				const options = { ...run(true), items: [{ json: {} }, { json: {} }] };
				const output = await runActionNode(options);
				expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
				for (const item of output) expect(item.json.error).toMatch(row.message);
				expect(sim.requests()).toHaveLength(0);
			});
		} else {
			it('with Continue On Fail, becomes the error item of that item, and the bad value is never sent', async () => {
				const options = run(true);
				const output = await runActionNode(options);
				const errorItems = output.filter((item) => 'error' in item.json);
				expect(errorItems.length).toBeGreaterThanOrEqual(1);
				const own = output.find((item) => (item.pairedItem as { item: number }).item === row.item && 'error' in item.json);
				expect(own?.json.error).toMatch(row.message);
				expect(String(own?.json.error).endsWith(` [item ${row.item}]`)).toBe(true);
				// The other items ran; the bad item was not sent.
				const goodItems = options.items.length - errorItems.length;
				if (row.parameters.operation === 'addToCampaign') {
					const sent = sim.requests().flatMap((request) => request.body as unknown[]);
					expect(sent).toHaveLength(goodItems);
				} else {
					expect(sim.requests()).toHaveLength(goodItems);
				}
			});
		}
	});
}
