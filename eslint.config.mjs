// n8n's own community-node rules, with n8n Cloud support on, exactly as @n8n/node-cli ships them.
// `npm run lint` applies them to the files n8n's verification scanner checks: nodes/, credentials/
// and package.json. Test tooling (test/, bench/, scripts/) needs Node's own modules and timers,
// which those rules forbid in node code, so it is not linted with them.
import { config } from '@n8n/node-cli/eslint';

export default config;
