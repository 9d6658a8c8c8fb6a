"""Seed the webmail snapshot: Roundcube's SQLite database (schema, user Alex, identity, contacts), Alex's maildir
with a few messages, Dovecot's passwd file, empty mail/temp/logs folders. Run once by `clawrec apps install`.

Why seed the database directly: Roundcube creates its user row on first login; writing it here (with contacts)
gives every instance the same state with no login at install time.
"""

from __future__ import annotations

import os
import sqlite3
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from datetime import datetime, timedelta, timezone
from pathlib import Path

USER, PASSWORD, EMAIL = "alex", "mailpass-alex-42", "alex@example.test"
SCHEMA = Path("/usr/share/roundcube/SQL/sqlite.initial.sql")
CONTACTS = [("Jordan Lee", "jordan@example.test"), ("Priya Shah", "priya@example.test"),
            ("Sam Rivera", "sam@example.test")]
INBOX = [
    ("jordan@example.test", "Jordan Lee", "Quarterly report draft",
     "Hi Alex,\n\nthe quarterly report draft is ready. Could you look at section 3 before Friday?\n\nJordan\n"),
    ("priya@example.test", "Priya Shah", "Team lunch on Thursday",
     "Hello Alex,\n\nwe are booking a table for Thursday at 12:30. Are you in?\n\nPriya\n"),
    ("sam@example.test", "Sam Rivera", "Invoice 2231 from Rivera Design",
     "Dear Alex,\n\nplease find the details of invoice 2231 (EUR 480.00) below. Payment is due in 30 days.\n\n"
     "Best regards,\nSam Rivera\n"),
]


def database(data: Path) -> None:
    con = sqlite3.connect(data / "roundcube.sqlite")
    con.executescript(SCHEMA.read_text())
    now = time.strftime("%Y-%m-%d %H:%M:%S")
    cur = con.execute("INSERT INTO users (username, mail_host, created, language, preferences) "
                      "VALUES (?, '127.0.0.1', ?, 'en_US', 'a:0:{}')", (USER, now))
    uid = cur.lastrowid
    con.execute("INSERT INTO identities (user_id, changed, del, standard, name, email, signature, html_signature) "
                "VALUES (?, ?, 0, 1, 'Alex Morgan', ?, '', 0)", (uid, now, EMAIL))
    for name, mail in CONTACTS:
        first, last = name.split()
        con.execute("INSERT INTO contacts (changed, del, name, email, firstname, surname, vcard, words, user_id) "
                    "VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?)",
                    (now, name, mail, first, last,
                     f"BEGIN:VCARD\r\nVERSION:3.0\r\nN:{last};{first};;;\r\nFN:{name}\r\nEMAIL;TYPE=INTERNET:{mail}"
                     f"\r\nEND:VCARD", f" {first.lower()} {last.lower()} {mail}", uid))
    con.commit()
    con.close()


def maildir(data: Path) -> None:
    root = data / "Maildir"
    for box in ("", ".Drafts", ".Sent", ".Trash", ".Junk"):
        for sub in ("cur", "new", "tmp"):
            (root / box / sub).mkdir(parents=True, exist_ok=True)
    (root / "subscriptions").write_text("Drafts\nSent\nTrash\nJunk\n")
    when = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    for i, (addr, name, subject, body) in enumerate(INBOX):
        msg = EmailMessage()
        msg["From"] = f"{name} <{addr}>"
        msg["To"] = f"Alex Morgan <{EMAIL}>"
        msg["Subject"] = subject
        msg["Date"] = format_datetime(when + timedelta(hours=5 * i))
        msg["Message-ID"] = make_msgid(domain="example.test")
        msg.set_content(body)
        (root / "cur" / f"{1700000000 + i}.seed{i}.localhost:2,").write_bytes(msg.as_bytes())


def main() -> None:
    data = Path(os.environ["CLAWREC_APP_DATA"])
    for folder in ("mail", "temp", "logs"):
        (data / folder).mkdir(parents=True, exist_ok=True)
    database(data)
    maildir(data)
    (data / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")


if __name__ == "__main__":
    main()
