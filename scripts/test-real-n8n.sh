#!/usr/bin/env bash
# The real-n8n part of `npm test` (after build and test:prepare), in three lanes side by side, each line of
# output prefixed with its lane:
#   [e2e]   the single-process suite, without the files the other lanes run;
#   [queue] the queue-mode suite without its waiting files, then four single-process files that start n8n of
#           their own (community-install, secrets, credential-test, browser);
#   [waits] the files that mostly wait (the sender's timeouts, a slow workflow behind a full queue, Wait nodes):
#           stopped-queued and static-data-writeback in both modes, then the two full-queue files (issue 27).
# On a 2-core machine the e2e and queue lanes keep both cores busy, and the waits lane runs in the time
# they leave idle; the run takes as long as the longest lane (about 1,050-1,350 s each, measured in
# test/e2e/README.md). The full-queue files measure whether answers come within the sender's window
# (about 41 s against a wait for a slot of about 16 s); they passed at load average 4-18, so the lanes
# beside them leave that margin. E2E_N8N_VERSIONS selects the n8n lines, as for each suite.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

jest=node_modules/.bin/jest
prefixed() { sed -u "s/^/[$1] /"; }
# Each lane's output is kept too, so that a failure's file and test names end the run: CI shows its tail.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# The single-process files the queue lane runs, and the waiting files of each mode.
in_queue_lane='(community-install|secrets|credential-test|browser)\.e2e\.test\.ts$'
waiting='(stopped-queued|static-data-writeback)\.e2e\.test\.ts$'
waiting_queue='(stopped-queued|static-data-writeback)-queue\.e2e\.test\.ts$'

queue_lane() {
  local failed=0
  E2E_FULL_QUEUE=skip E2E_ELSEWHERE="$waiting_queue" "$jest" -c jest.queue.config.js --runInBand || failed=1
  E2E_FULL_QUEUE=skip "$jest" -c jest.e2e.config.js --runInBand "$in_queue_lane" || failed=1
  return "$failed"
}

waits_lane() {
  local failed=0
  E2E_FULL_QUEUE=skip "$jest" -c jest.e2e.config.js --runInBand "$waiting" || failed=1
  E2E_FULL_QUEUE=skip "$jest" -c jest.queue.config.js --runInBand "$waiting_queue" || failed=1
  E2E_FULL_QUEUE=only "$jest" -c jest.e2e.config.js --runInBand || failed=1
  E2E_FULL_QUEUE=only "$jest" -c jest.queue.config.js --runInBand || failed=1
  return "$failed"
}

(queue_lane 2>&1 | prefixed queue | tee "$logs/queue"; exit "${PIPESTATUS[0]}") &
queue_job=$!
(waits_lane 2>&1 | prefixed waits | tee "$logs/waits"; exit "${PIPESTATUS[0]}") &
waits_job=$!
E2E_FULL_QUEUE=skip E2E_ELSEWHERE="($in_queue_lane|$waiting)" "$jest" -c jest.e2e.config.js --runInBand 2>&1 | prefixed e2e | tee "$logs/e2e"
e2e_status=${PIPESTATUS[0]}
wait "$queue_job"
queue_status=$?
wait "$waits_job"
waits_status=$?
if [ "$e2e_status" -ne 0 ] || [ "$queue_status" -ne 0 ] || [ "$waits_status" -ne 0 ]; then
  echo "real-n8n suites failed (single-process lane: exit $e2e_status, queue lane: exit $queue_status, waits lane: exit $waits_status); failing files and tests (details above, under the same names):" >&2
  grep -hE '^\[(e2e|queue|waits)\] +(FAIL|●) ' "$logs/e2e" "$logs/queue" "$logs/waits" | grep -v '● Console' >&2
  # CI shows only the run's tail: each failing test's first lines of detail (the assertion and its diff) end it.
  echo "the first lines of each failure:" >&2
  awk '/^\[(e2e|queue|waits)\] +● / && !/● Console/ { left = 30 } left > 0 { print; left-- }' "$logs/e2e" "$logs/queue" "$logs/waits" >&2
  exit 1
fi
