#!/bin/sh
# Misago under Django's runserver on 127.0.0.1:$CLAWREC_PORT_HTTP once this instance's PostgreSQL answers.
# runserver logs every request to stderr (the instance's server.log: the access log the tests read); --insecure
# serves Misago's built React bundle and CSS from the package with DEBUG off.
set -e
. "$CLAWREC_APP_SOURCE/pg-home.sh"
i=0
until "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$CLAWREC_PORT_PG"; do
  i=$((i + 1)); [ "$i" -lt 200 ] || { echo "start-web: PostgreSQL never answered" >&2; exit 1; }
  sleep 0.05
done
exec "$CLAWREC_APP_VENV/bin/python" manage.py runserver "127.0.0.1:$CLAWREC_PORT_HTTP" --noreload --insecure
