#!/bin/sh
# Writes the broker's user from RABBITMQ_DEFAULT_USER / RABBITMQ_DEFAULT_PASS
# (guest/guest by default, allowed from other hosts as in the official image),
# then runs the broker in the foreground.
set -eu
cat > /etc/rabbitmq/rabbitmq.conf <<CONF
default_user = ${RABBITMQ_DEFAULT_USER:-guest}
default_pass = ${RABBITMQ_DEFAULT_PASS:-guest}
loopback_users = none
listeners.tcp.default = 5672
CONF
exec "$@"
