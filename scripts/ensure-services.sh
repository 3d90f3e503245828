#!/usr/bin/env bash
# Makes sure local PostgreSQL, Redis and RabbitMQ answer on their default ports,
# starting any that does not (the commands of this machine's set-up).
set -euo pipefail

wait_for() { # name, check command, seconds
  local name=$1 check=$2 secs=$3
  for _ in $(seq 1 "$secs"); do
    if eval "$check" >/dev/null 2>&1; then echo "$name: up"; return 0; fi
    sleep 1
  done
  echo "$name: did not come up within ${secs}s" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "PostgreSQL: starting"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432 -q" 60

if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  echo "Redis: starting"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG" 30

if ! rabbitmqctl -q await_startup >/dev/null 2>&1 && ! (echo > /dev/tcp/127.0.0.1/5672) 2>/dev/null; then
  echo "RabbitMQ: starting"
  rabbitmq-server -detached || true
fi
wait_for RabbitMQ "rabbitmqctl -q await_startup && (echo > /dev/tcp/127.0.0.1/5672)" 120
