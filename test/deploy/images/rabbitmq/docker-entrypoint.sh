#!/bin/sh
# Runs as user rabbitmq (the image's USER), which owns /etc/rabbitmq: writes
# rabbitmq.conf with the broker's user from RABBITMQ_DEFAULT_USER and
# RABBITMQ_DEFAULT_PASS (guest/guest by default; RabbitMQ creates it on a fresh
# data directory only), usable from other hosts (loopback_users = none), makes
# the Erlang cookie if the data volume has none, then runs the broker in the
# foreground.
set -eu
case "${1:-}" in -*) set -- rabbitmq-server "$@" ;; esac
if [ "${1:-}" = rabbitmq-server ]; then
  user=${RABBITMQ_DEFAULT_USER:-guest}
  pass=${RABBITMQ_DEFAULT_PASS:-guest}
  # rabbitmq.conf has no quoting: '#' starts a comment, blanks at either end are dropped.
  for v in "$user" "$pass"; do
    case "$v" in
      *'#'*|' '*|*' '|*"$(printf '\t')"*|'')
        echo "docker-entrypoint: RABBITMQ_DEFAULT_USER and RABBITMQ_DEFAULT_PASS must be non-empty, without '#' or tabs, and not start or end with a space" >&2
        exit 1 ;;
    esac
  done
  cat >/etc/rabbitmq/rabbitmq.conf <<CONF
default_user = $user
default_pass = $pass
loopback_users = none
listeners.tcp.default = 5672
management.tcp.port = 15672
CONF
  if [ ! -s "$HOME/.erlang.cookie" ]; then
    (umask 077 && LC_ALL=C tr -dc 'A-Z' </dev/urandom | head -c 32 >"$HOME/.erlang.cookie")
    chmod 0400 "$HOME/.erlang.cookie"
  fi
fi
exec "$@"
