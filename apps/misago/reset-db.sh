#!/bin/sh
# A reset without a restart (the manifest's "reset" hook, run by apps/_command/serve.py): PostgreSQL and Misago keep
# running; the forum's database is dropped (its connections ended: Django opens one per request, CONN_MAX_AGE 0) and
# re-created from misago_seed, the seeded state setup.sh copied. FILE_COPY: a file copy of a small database is faster
# than PostgreSQL 15's default WAL_LOG (fsync is off).
set -e
. "$CLAWREC_APP_SOURCE/pg-home.sh"
exec "$PGBIN/psql" -X -q -h 127.0.0.1 -p "$CLAWREC_PORT_PG" -U misago -d postgres -v ON_ERROR_STOP=1 \
  -c "DROP DATABASE misago WITH (FORCE)" -c "CREATE DATABASE misago TEMPLATE misago_seed STRATEGY FILE_COPY"
