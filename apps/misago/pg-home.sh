# Sourced by start-pg.sh and setup.sh: where this data folder's PostgreSQL cluster lives and who runs it.
# PostgreSQL refuses to run as root and needs +x on every folder above its data directory; a checkout under a 0700
# folder (mktemp -d) denies it to user postgres. So the cluster lives in a folder of this data folder's own under
# /tmp (one per data folder, reused by every start), and the data folder keeps a link to it (pg -> that folder).
D="$CLAWREC_APP_DATA"
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
PGHOME="/tmp/clawrec-pg-$(printf %s "$D" | md5sum | cut -c1-12)"
