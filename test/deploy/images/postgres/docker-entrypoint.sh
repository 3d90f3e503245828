#!/bin/sh
# The official postgres image's start, as far as the compose file relies on it.
# An empty PGDATA is initialised: superuser postgres with POSTGRES_PASSWORD
# (refused when empty), trust on the unix socket, scram-sha-256 over TCP from
# any address; a server listening on the socket only (so a TCP health check
# does not pass yet) creates POSTGRES_DB and stops. Then the server runs on
# every address. Options alone (`-c key=value`) are the server's.
set -eu
case "${1:-}" in -*) set -- postgres "$@" ;; esac
if [ "${1:-}" = postgres ]; then
  shift
  if [ -s "$PGDATA/PG_VERSION" ]; then
    echo "PostgreSQL Database directory appears to contain a database; Skipping initialization"
  else
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
      cat >&2 <<'MSG'
Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".
MSG
      exit 1
    fi
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --username=postgres --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" || { rm -f "$pwfile"; exit 1; }
    rm -f "$pwfile"
    printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
      psql -v ON_ERROR_STOP=1 --no-psqlrc --username=postgres --dbname=postgres --set=db="$POSTGRES_DB" <<'SQL'
CREATE DATABASE :"db";
SQL
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo "PostgreSQL init process complete; ready for start up."
  fi
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
