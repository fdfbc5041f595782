#!/bin/sh
# First start: a cluster for POSTGRES_USER (password POSTGRES_PASSWORD) with database POSTGRES_DB,
# listening on every address with password authentication; then PostgreSQL as user postgres.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
[ -n "${POSTGRES_PASSWORD:-}" ] || { echo 'POSTGRES_PASSWORD is required' >&2; exit 1; }
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 0700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp) && printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile" && chown postgres "$pwfile"
  as_postgres initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\"" | as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
[ "$1" = postgres ] && shift && set -- postgres -D "$PGDATA" "$@"
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"
