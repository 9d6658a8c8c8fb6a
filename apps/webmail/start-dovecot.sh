#!/bin/sh
# Dovecot IMAP for one instance: a private config in the data folder, passwd-file auth, maildir in the data folder.
set -e
D="$CLAWREC_APP_DATA"
mkdir -p "$D/dovecot-run"
# Dovecot's auth and imap processes run as nobody and need +x on every folder above the maildir and the passwd file;
# a checkout under a 0700 folder (/root, mktemp -d) denies it. So they live in a folder of this instance's own under
# /tmp (one per data folder, reused by every start and reset), and the data folder keeps a link to the maildir (the
# `files:` checks read Maildir/... through it). A start after a reset moves the snapshot's fresh maildir there again.
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
cat > "$D/dovecot.conf" <<CONF
protocols = imap
listen = 127.0.0.1
base_dir = $D/dovecot-run
instance_name = clawrec-webmail-$CLAWREC_PORT_IMAP
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = $D/logs/dovecot.log
default_internal_user = nobody
default_login_user = nobody
default_internal_group = nogroup
first_valid_uid = 1
mail_location = maildir:$M/Maildir
mail_uid = nobody
mail_gid = nogroup
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%n $M/passwd
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=$M/Maildir
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $CLAWREC_PORT_IMAP
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
namespace inbox {
  inbox = yes
  mailbox Drafts {
    special_use = \Drafts
    auto = subscribe
  }
  mailbox Sent {
    special_use = \Sent
    auto = subscribe
  }
  mailbox Trash {
    special_use = \Trash
    auto = subscribe
  }
  mailbox Junk {
    special_use = \Junk
    auto = subscribe
  }
}
CONF
exec dovecot -F -c "$D/dovecot.conf"
