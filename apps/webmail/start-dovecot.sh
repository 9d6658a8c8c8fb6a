#!/bin/sh
# Dovecot IMAP for one instance: a private config in the data folder, passwd-file auth, maildir in the data folder.
set -e
D="$CLAWREC_APP_DATA"
mkdir -p "$D/dovecot-run"
. "$CLAWREC_APP_SOURCE/maildir.sh"
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
