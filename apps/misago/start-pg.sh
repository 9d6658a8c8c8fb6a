#!/bin/sh
# This instance's PostgreSQL on 127.0.0.1:$CLAWREC_PORT_PG (no other socket), run as user postgres.
# A start after a reset finds the snapshot's fresh cluster in $D/pg and moves it to $PGHOME (see pg-home.sh).
set -e
. "$CLAWREC_APP_SOURCE/pg-home.sh"
if [ ! -L "$D/pg" ]; then
  rm -rf "$PGHOME"
  mkdir -m 0711 "$PGHOME"
  mv "$D/pg" "$PGHOME/data"
  ln -s "$PGHOME/data" "$D/pg"
fi
chown -R postgres:postgres "$PGHOME/data"
chmod 0700 "$PGHOME/data"
exec setpriv --reuid=postgres --regid=postgres --init-groups "$PGBIN/postgres" -D "$PGHOME/data" \
  -c listen_addresses=127.0.0.1 -p "$CLAWREC_PORT_PG" -c unix_socket_directories= \
  -c fsync=off -c synchronous_commit=off -c full_page_writes=off
