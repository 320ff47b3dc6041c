#!/usr/bin/env bash
# The real-n8n part of `npm test` (after build and test:prepare), in two lanes side by side, each line of
# output prefixed with its lane:
#   [e2e]   the single-process suite, without the full-queue files and stopped-queued;
#   [queue] the queue-mode suite without its full-queue file, then stopped-queued, then the two full-queue
#           files (issue 27).
# The lanes take about the same time on a 2-core machine, so the run takes as long as the longer one:
# stopped-queued (about 4.5 minutes of waiting out the sender's timeouts) evens them out. The
# full-queue files measure whether answers come within the sender's window (about 41 s against a wait for a
# slot of about 16 s); they passed at load average 4-18, so the other lane beside them leaves that margin.
# E2E_N8N_VERSIONS selects the n8n lines, as for each suite.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

jest=node_modules/.bin/jest
prefixed() { sed -u "s/^/[$1] /"; }
# Each lane's output is kept too, so that a failure's file and test names end the run: CI shows its tail.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# The single-process file that runs in the queue lane.
moved='stopped-queued\.e2e\.test\.ts$'

queue_lane() {
  local failed=0
  E2E_FULL_QUEUE=skip "$jest" -c jest.queue.config.js --runInBand || failed=1
  E2E_FULL_QUEUE=skip "$jest" -c jest.e2e.config.js --runInBand "$moved" || failed=1
  E2E_FULL_QUEUE=only "$jest" -c jest.e2e.config.js --runInBand || failed=1
  E2E_FULL_QUEUE=only "$jest" -c jest.queue.config.js --runInBand || failed=1
  return "$failed"
}

(queue_lane 2>&1 | prefixed queue | tee "$logs/queue"; exit "${PIPESTATUS[0]}") &
queue_job=$!
E2E_FULL_QUEUE=skip E2E_ELSEWHERE="$moved" "$jest" -c jest.e2e.config.js --runInBand 2>&1 | prefixed e2e | tee "$logs/e2e"
e2e_status=${PIPESTATUS[0]}
wait "$queue_job"
queue_status=$?
if [ "$e2e_status" -ne 0 ] || [ "$queue_status" -ne 0 ]; then
  echo "real-n8n suites failed (single-process lane: exit $e2e_status, queue and full-queue lane: exit $queue_status); failing files and tests (details above, under the same names):" >&2
  grep -hE '^\[(e2e|queue)\] +(FAIL|●) ' "$logs/e2e" "$logs/queue" | grep -v '● Console' >&2
  # CI shows only the run's tail: each failing test's first lines of detail (the assertion and its diff) end it.
  echo "the first lines of each failure:" >&2
  awk '/^\[(e2e|queue)\] +● / && !/● Console/ { left = 30 } left > 0 { print; left-- }' "$logs/e2e" "$logs/queue" >&2
  exit 1
fi
