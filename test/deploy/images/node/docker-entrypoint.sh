#!/bin/sh
# The official node image's entrypoint: `docker run node:24-bookworm-slim -e '…'`
# or a script path runs node with those arguments; any other command runs as is.
set -e
if [ "${1#-}" != "${1:-}" ] || [ -z "$(command -v "${1:-}")" ] || { [ -f "${1:-}" ] && ! [ -x "${1:-}" ]; }; then
  set -- node "$@"
fi
exec "$@"
