#!/bin/sh
# The instance's maildir where Dovecot can read it: sourced by start-dovecot.sh, and run alone as the manifest's reset
# hook (Dovecot keeps running; a reset copied the snapshot's fresh Maildir into the data folder, this moves it in).
# Dovecot's auth and imap processes run as nobody and need +x on every folder above the maildir and the passwd file;
# a checkout under a 0700 folder (/root, mktemp -d) denies it. So they live in a folder of this instance's own under
# /tmp (one per data folder, reused by every start and reset), and the data folder keeps a link to the maildir (the
# `files:` checks read Maildir/... through it). A start or reset after a copy of the snapshot moves its fresh maildir.
set -e
D="$CLAWREC_APP_DATA"
M="/tmp/clawrec-mail-$(printf %s "$D" | md5sum | cut -c1-12)"
if [ ! -L "$D/Maildir" ]; then
  rm -rf "$M"
  mkdir -m 0711 "$M"
  mv "$D/Maildir" "$M/Maildir"
  ln -s "$M/Maildir" "$D/Maildir"
fi
cp "$D/passwd" "$M/passwd"
chmod 0644 "$M/passwd"
chown -R nobody:nogroup "$M/Maildir"
