#!/usr/bin/env bash
# The Docker engine the deploy tier runs on, and the host's networking as the
# tier found it. Sourced by test/deploy/run.sh.
#
#   engine_install   Debian's docker.io (bookworm, --no-install-recommends), debootstrap,
#                    and a Compose v2 client: bookworm's docker-compose is 1.29 and refuses
#                    the compose file's top-level `name:`, so the plugin binary is taken from
#                    Debian trixie's docker-compose package (2.26, static Go, libc6 >= 2.34)
#                    into $DEPLOY_CACHE/cli-plugins, used through DOCKER_CONFIG; nothing is
#                    installed from trixie into the host's package database.
#   engine_start     Snapshots ip_forward and the iptables rules, starts dockerd with its own
#                    socket and pid file (unless the default engine already answers: then that
#                    engine is used and left running), and waits for it.
#   engine_stop      Stops the dockerd it started by its pid, then puts the networking back:
#                    ip_forward, the iptables and ip6tables rules (dockerd sets FORWARD to DROP
#                    and adds its chains), and removes the docker0 bridge it made.
set -euo pipefail

DEPLOY_CACHE=${DEPLOY_CACHE:-/var/cache/lead-router-deploy-test}
ENGINE_STATE=${ENGINE_STATE:-$DEPLOY_CACHE/engine}

engine_install() {
  export DEBIAN_FRONTEND=noninteractive
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1 || ! command -v iptables-save >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends docker.io debootstrap iptables </dev/null >/dev/null
  fi
  local plugin="$DEPLOY_CACHE/cli-plugins/docker-compose"
  if [ ! -x "$plugin" ]; then
    local apt_dir="$DEPLOY_CACHE/trixie-apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$DEPLOY_CACHE/cli-plugins"
    echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' >"$apt_dir/sources.list"
    local opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::archives=$apt_dir/archives" -o APT::Sandbox::User=root)
    apt-get "${opts[@]}" update -qq
    (cd "$apt_dir" && rm -f docker-compose_*.deb && apt-get "${opts[@]}" download -qq docker-compose)
    local x="$apt_dir/x"
    rm -rf "$x" && dpkg-deb -x "$apt_dir"/docker-compose_*.deb "$x"
    install -m 0755 "$x/usr/libexec/docker/cli-plugins/docker-compose" "$plugin"
    rm -rf "$x"
  fi
}

# The docker CLI of Debian's docker.io, with the Compose v2 plugin found through DOCKER_CONFIG.
engine_env() {
  mkdir -p "$DEPLOY_CACHE/docker-config"
  ln -sfn "$DEPLOY_CACHE/cli-plugins" "$DEPLOY_CACHE/docker-config/cli-plugins"
  export DOCKER_CONFIG="$DEPLOY_CACHE/docker-config"
  export PATH="/usr/bin:$PATH"
}

engine_start() {
  mkdir -p "$ENGINE_STATE"
  engine_env
  if docker -H unix:///var/run/docker.sock version >/dev/null 2>&1; then
    export DOCKER_HOST=unix:///var/run/docker.sock
    echo "deploy: using the Docker engine that already runs"
    return
  fi
  # A dockerd an earlier run left on this socket (a run cut short) is this tier's own: stop it, then start afresh.
  local left
  left=$(cat "$ENGINE_STATE/dockerd.pid" 2>/dev/null || true)
  if [ -n "$left" ] && kill -0 "$left" 2>/dev/null; then
    echo "deploy: stopping the dockerd an earlier run left (pid $left)"
    kill -TERM "$left"
    for _ in $(seq 1 30); do kill -0 "$left" 2>/dev/null || break; sleep 1; done
    kill -KILL "$left" 2>/dev/null || true
  fi
  cat /proc/sys/net/ipv4/ip_forward >"$ENGINE_STATE/ip_forward"
  cat /proc/sys/net/ipv6/conf/all/forwarding >"$ENGINE_STATE/ip6_forward" 2>/dev/null || true
  iptables-save >"$ENGINE_STATE/iptables.rules"
  _rules >"$ENGINE_STATE/rules.before"
  ip6tables-save >"$ENGINE_STATE/ip6tables.rules" 2>/dev/null || true
  if ip link show docker0 >/dev/null 2>&1; then echo yes >"$ENGINE_STATE/had_docker0"; else echo no >"$ENGINE_STATE/had_docker0"; fi
  local sock="$ENGINE_STATE/docker.sock"
  dockerd --host "unix://$sock" --pidfile "$ENGINE_STATE/dockerd.pid" >"$ENGINE_STATE/dockerd.log" 2>&1 &
  echo $! >"$ENGINE_STATE/started.pid"
  export DOCKER_HOST="unix://$sock"
  for _ in $(seq 1 60); do
    # The engine that answers must be the one just started (its pid file names it), not another on the same socket.
    kill -0 "$(cat "$ENGINE_STATE/started.pid")" 2>/dev/null || { tail -n 30 "$ENGINE_STATE/dockerd.log" >&2; return 1; }
    docker version >/dev/null 2>&1 && [ "$(cat "$ENGINE_STATE/dockerd.pid" 2>/dev/null)" = "$(cat "$ENGINE_STATE/started.pid")" ] && { echo "deploy: dockerd $(docker version -f '{{.Server.Version}}') started (pid $(cat "$ENGINE_STATE/started.pid"))"; return; }
    sleep 1
  done
  echo "deploy: dockerd did not answer in 60 s" >&2; tail -n 30 "$ENGINE_STATE/dockerd.log" >&2; return 1
}

# Empties every table (dockerd's chains and rules, its FORWARD DROP), then loads
# the rules saved before dockerd started: iptables-restore of an empty save
# (a host with no rules) would change nothing on its own.
_iptables_back() { # iptables|ip6tables, saved rules
  local cmd=$1 saved=$2 t
  for t in filter nat mangle raw; do
    "$cmd" -t "$t" -F 2>/dev/null || true
    "$cmd" -t "$t" -X 2>/dev/null || true
  done
  "$cmd" -P INPUT ACCEPT && "$cmd" -P FORWARD ACCEPT && "$cmd" -P OUTPUT ACCEPT
  if [ -s "$saved" ]; then "$cmd-restore" <"$saved"; fi
}

# What the tier promises to leave as it found: forwarding, and the filter and nat rules.
_rules() {
  echo "ip_forward $(cat /proc/sys/net/ipv4/ip_forward)"
  iptables -S; iptables -t nat -S
  ip6tables -S 2>/dev/null || true
  ip -o link show docker0 2>/dev/null | cut -d: -f2 || true
}

engine_stop() {
  [ -f "$ENGINE_STATE/started.pid" ] || return 0
  local pid; pid=$(cat "$ENGINE_STATE/started.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$ENGINE_STATE/started.pid"
  # dockerd stops the containerd it started as its child; make sure none is left.
  pkill -f 'containerd --config /var/run/docker/containerd/containerd.toml' 2>/dev/null || true
  [ "$(cat "$ENGINE_STATE/had_docker0" 2>/dev/null)" = no ] && ip link delete docker0 2>/dev/null || true
  _iptables_back iptables "$ENGINE_STATE/iptables.rules"
  _iptables_back ip6tables "$ENGINE_STATE/ip6tables.rules" 2>/dev/null || true
  cat "$ENGINE_STATE/ip_forward" >/proc/sys/net/ipv4/ip_forward
  [ -s "$ENGINE_STATE/ip6_forward" ] && cat "$ENGINE_STATE/ip6_forward" >/proc/sys/net/ipv6/conf/all/forwarding || true
  echo "deploy: dockerd stopped; ip_forward $(cat /proc/sys/net/ipv4/ip_forward), FORWARD policy $(iptables -S FORWARD | head -1)"
  if ! _rules | diff -u "$ENGINE_STATE/rules.before" - >&2; then
    echo "deploy: the host's networking is not as it was before dockerd started (diff above)" >&2
    return 1
  fi
}
