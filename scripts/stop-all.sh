#!/usr/bin/env bash
# Stops what start-all.sh started: SIGTERM (graceful), then SIGKILL after 15 s.
set -uo pipefail
cd "$(dirname "$0")/.."
for f in .run/pids/*.pid; do
  [ -e "$f" ] || continue
  pid=$(cat "$f")
  kill -TERM "$pid" 2>/dev/null && echo "stopping $(basename "$f" .pid) ($pid)"
done
for _ in $(seq 1 30); do
  alive=0
  for f in .run/pids/*.pid; do [ -e "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1; done
  [ $alive = 0 ] && break
  sleep 0.5
done
for f in .run/pids/*.pid; do
  [ -e "$f" ] || continue
  kill -KILL "$(cat "$f")" 2>/dev/null
  rm -f "$f"
done
