/**
 * The codex files beside the nodes (n8n's node panel reads their categories, aliases and links) describe the
 * node's newest version: a codex left at "1.0" beside a node of version 2 contradicts the node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CampaignCalling } from '../../nodes/CampaignCalling/CampaignCalling.node';
import { CampaignCallingTrigger } from '../../nodes/CampaignCallingTrigger/CampaignCallingTrigger.node';

describe.each([
	['CampaignCalling', new CampaignCalling().description],
	['CampaignCallingTrigger', new CampaignCallingTrigger().description],
])('the codex of %s', (folder, description) => {
	const codex = JSON.parse(readFileSync(join(__dirname, '../../nodes', folder, `${folder}.node.json`), 'utf8')) as { node: string; nodeVersion: string };

	it('names the node and its newest version', () => {
		const newest = Math.max(...[description.version].flat());
		expect(codex).toEqual(expect.objectContaining({ node: `n8n-nodes-campaign-calling.${description.name}`, nodeVersion: newest.toFixed(1) }));
	});
});
