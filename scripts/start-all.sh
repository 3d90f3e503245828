#!/usr/bin/env bash
# Quick start: builds the project, makes sure PostgreSQL, Redis and RabbitMQ are
# up, runs migrations, starts the sandbox and every app in the background, applies
# the demo catalog (pointing at the sandbox), issues an API key and prints a curl.
# Logs: .run/logs/<app>.log. Stop everything with: npm run stop:all
set -euo pipefail
cd "$(dirname "$0")/.."
RUN_DIR=.run
mkdir -p "$RUN_DIR/logs" "$RUN_DIR/pids"

[ -d node_modules ] || npm ci --no-audit --no-fund
npm run -s build
bash scripts/ensure-services.sh
bash scripts/stop-all.sh >/dev/null 2>&1 || true

node dist/apps/ops/src/main.js db migrate

APPS=(sandbox search-orchestrator partner-adapter checks delivery gateway)
for app in "${APPS[@]}"; do
  nohup node "dist/apps/$app/src/main.js" >"$RUN_DIR/logs/$app.log" 2>&1 &
  echo $! >"$RUN_DIR/pids/$app.pid"
done

# Where each app answers /health/ready: its management port (libs/config defaults; the API ports are 3000 and 4100).
port_of() {
  case $1 in
    gateway) echo 9000 ;; sandbox) echo 4101 ;;
    search-orchestrator) echo 3001 ;; partner-adapter) echo 3002 ;; checks) echo 3003 ;; delivery) echo 3004 ;;
  esac
}
for app in "${APPS[@]}"; do
  port=$(port_of "$app")
  for i in $(seq 1 60); do
    if curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then echo "$app: ready on :$port"; break; fi
    if ! kill -0 "$(cat "$RUN_DIR/pids/$app.pid")" 2>/dev/null; then
      echo "$app exited; last log lines:" >&2; tail -n 30 "$RUN_DIR/logs/$app.log" >&2; exit 1
    fi
    [ "$i" = 60 ] && { echo "$app: not ready after 60s (see $RUN_DIR/logs/$app.log)" >&2; exit 1; }
    sleep 1
  done
done

node dist/apps/ops/src/main.js catalog apply demo/catalog.json
AFFILIATE=$(node -e "console.log(require('./demo/catalog.json').affiliates[0].id)")
CAMPAIGN=$(node -e "console.log(require('./demo/catalog.json').campaigns[0].id)")
KEY=$(node dist/apps/ops/src/main.js keys issue --affiliate "$AFFILIATE" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).key))")

cat <<TXT

Lead router is running: gateway http://127.0.0.1:$(port_of gateway), sandbox http://127.0.0.1:$(port_of sandbox)
API key for the demo affiliate (shown once): $KEY

Try a search:
curl -sS -X POST http://127.0.0.1:$(port_of gateway)/api/v1/engine/search \\
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -d '{"svc_campaign_id":"$CAMPAIGN","svc_affiliate_id":"$AFFILIATE",
       "lead":{"personal":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com","phone":"512-555-0100","date_of_birth":"1995-04-12"},
               "address":{"state":"TX","zip_code":"75001"},
               "education":{"education_level":"associate","high_school_graduation_year":"2013","start_timeline":"immediately","learning_preference":"online"},
               "background":{"military_affiliation":"none","us_citizen":"yes"}},
       "tracking":{"ip_address":"73.12.44.10","subid":"demo"},"tcpa_consent":true}'

Then poll: curl -sS -H "Authorization: Bearer $KEY" http://127.0.0.1:$(port_of gateway)/api/v1/engine/results/<svc_lead_id>
Stop everything: npm run stop:all
TXT
