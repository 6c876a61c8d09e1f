#!/bin/sh
# PostgreSQL as the official image starts it: on an empty data directory, initdb with
# POSTGRES_USER / POSTGRES_PASSWORD (required) and create POSTGRES_DB; then run the server in
# the foreground, listening on every address with password (SCRAM) authentication.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
POSTGRES_USER="${POSTGRES_USER:-postgres}"
POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 --encoding=UTF8 -D "$PGDATA"
    rm -f "$pwfile"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != "postgres" ]; then
        pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
        createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
        pg_ctl -D "$PGDATA" -m fast -w stop
    fi
fi
exec postgres -D "$PGDATA"
