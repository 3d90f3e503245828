#!/usr/bin/env bash
# npm run test:deploy: the repository's Dockerfile and docker-compose.yml, run
# unchanged on a real Docker engine (test/deploy/compose.deploy-spec.ts).
# Installs Debian's Docker engine and a Compose v2 client if missing, starts
# dockerd and stops it by its pid at the end, leaving the host's networking as
# it was (test/deploy/engine.sh); makes the base images the two files name from
# Debian packages (test/deploy/base-images.sh), since no image registry is
# reachable here. Needs root. DEPLOY_CACHE (default /var/cache/lead-router-deploy-test)
# keeps the downloads, the base images' recipes and the engine's state.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
  echo "test:deploy: run it as root (it installs Debian's docker.io, starts dockerd and restores iptables)" >&2
  exit 1
fi
source test/deploy/engine.sh
source test/deploy/base-images.sh

started=$(date +%s)
engine_install
trap 'rc=$?; engine_stop || rc=1; exit $rc' EXIT
engine_start
base_images_ensure
echo "deploy: engine and base images ready in $(( $(date +%s) - started )) s"
npx jest --selectProjects deploy --runInBand
