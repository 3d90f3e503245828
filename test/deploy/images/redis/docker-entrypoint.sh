#!/bin/sh
# As the official redis image: options alone (`--appendonly yes`) or a config
# file are given to redis-server; a redis-server with no config file and no
# protected-mode setting gets `--protected-mode no` (no config: every address).
set -e
case "${1:-}" in -*|*.conf) set -- redis-server "$@" ;; esac
if [ "${1:-}" = redis-server ]; then
  case " $* " in
    *" --protected-mode "*|*.conf\ *) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
fi
exec "$@"
