#!/bin/sh
# Build the snapshot (run once by `clawrec apps install`, cwd apps/misago, $CLAWREC_APP_DATA the empty snapshot):
# a fresh PostgreSQL cluster (trust auth on loopback, user misago), Misago's migrations, the seed (seed_forum) and
# its copy misago_seed (the reset's template), then the stopped cluster moves into the snapshot as pg/.
# Usage: sh setup.sh VENV
set -e
VENV="$1"
. ./pg-home.sh
PORT=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
AS_PG="setpriv --reuid=postgres --regid=postgres --init-groups"
rm -rf "$PGHOME"
mkdir -m 0711 "$PGHOME"
chown postgres:postgres "$PGHOME"
$AS_PG "$PGBIN/initdb" -D "$PGHOME/data" -A trust -U misago -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
$AS_PG "$PGBIN/pg_ctl" -D "$PGHOME/data" -l "$PGHOME/setup.log" -w start \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories= -c fsync=off"
trap '$AS_PG "$PGBIN/pg_ctl" -D "$PGHOME/data" -m fast -w stop >/dev/null 2>&1 || true' EXIT
"$PGBIN/createdb" -h 127.0.0.1 -p "$PORT" -U misago misago
export CLAWREC_PORT_PG="$PORT" DJANGO_SETTINGS_MODULE=forum.settings
"$VENV/bin/python" manage.py migrate --noinput -v 0
"$VENV/bin/python" manage.py seed_forum
# the seeded state as a template: a reset re-creates misago from it inside the running cluster (reset-db.sh)
"$PGBIN/createdb" -h 127.0.0.1 -p "$PORT" -U misago -T misago misago_seed
$AS_PG "$PGBIN/pg_ctl" -D "$PGHOME/data" -m fast -w stop >/dev/null
trap - EXIT
mkdir -p "$D/mail" "$D/media" "$D/userdata"
echo misago > "$PGHOME/data/clawrec-db"
mv "$PGHOME/data" "$D/pg"
rm -rf "$PGHOME"
