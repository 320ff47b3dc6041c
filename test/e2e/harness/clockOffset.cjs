// Preloaded (NODE_OPTIONS=--require) into one n8n process: its Date.now runs E2E_CLOCK_OFFSET_MS ahead (negative:
// behind) of the machine's, as a process on another host whose clock differs. Timers are left as they are.
const offsetMs = Number(process.env.E2E_CLOCK_OFFSET_MS ?? 0);
const machineNow = Date.now;
Date.now = () => machineNow() + offsetMs;
