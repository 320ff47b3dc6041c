#!/usr/bin/env bash
# The real-n8n part of `npm test` (after build and test:prepare), in two phases:
#   1. the single-process suite and the queue-mode suite side by side, in two jest processes (each line's
#      output prefixed [e2e] or [queue]), without the full-queue files;
#   2. the full-queue files (issue 27), one at a time with nothing else of ours running: whether the trigger
#      answers a delivery in time depends on n8n getting the CPU when a slot frees.
# E2E_N8N_VERSIONS selects the n8n lines, as for each suite.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

jest=node_modules/.bin/jest
prefixed() { sed -u "s/^/[$1] /"; }

E2E_FULL_QUEUE=skip "$jest" -c jest.queue.config.js --runInBand 2>&1 | prefixed queue &
queue_job=$!
E2E_FULL_QUEUE=skip "$jest" -c jest.e2e.config.js --runInBand 2>&1 | prefixed e2e
e2e_status=$?
wait "$queue_job"
queue_status=$?
if [ "$e2e_status" -ne 0 ] || [ "$queue_status" -ne 0 ]; then
  echo "real-n8n suites failed (single-process: exit $e2e_status, queue mode: exit $queue_status); the full-queue files were not run" >&2
  exit 1
fi

E2E_FULL_QUEUE=only "$jest" -c jest.e2e.config.js --runInBand || exit 1
E2E_FULL_QUEUE=only "$jest" -c jest.queue.config.js --runInBand || exit 1
