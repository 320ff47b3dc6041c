/**
 * The action node as tools behind n8n's MCP Server Trigger, reached with the official MCP client SDK
 * (harness/mcp.ts, harness/mcp-cases.ts): the example workflow examples/mcp-campaign-tools.json with
 * Add to Campaign, Get Contact and Get Campaign, on each n8n line over each transport its trigger offers.
 */
import { mcpCases } from './harness/mcp-cases.ts';
import { MCP_TRANSPORTS } from './harness/mcp.ts';
import { describeEachVersion } from './harness/runtime.ts';
import { sharedN8n } from './harness/shared.ts';

describeEachVersion("the action node as MCP tools behind n8n's MCP Server Trigger in n8n %s", (version) => {
	mcpCases({
		version,
		start: () => sharedN8n(version),
		transports: MCP_TRANSPORTS,
		failedCallExecution: version.startsWith('1.') ? 'none' : 'success',
	});
});
