"""clawrec's pretix: pretix's own settings, configured through its PRETIX_<SECTION>_<OPTION> environment variables.

Why SQLite: pretix supports it for small installs, and a one-file database is what makes a reset a file copy
(< 2 s) and lets a task's checks read the app's own tables. No Redis, no Celery broker: pretix then runs its tasks
(the order, the confirmation mail) synchronously in the request. All state lives under $CLAWREC_APP_DATA; sent
mail is written as one .eml per message by oscar's backend (apps/oscar/shop/mail.py, shared, not copied) into
DATA/mail, which the `mail:` checks read.
"""

import os
import sys
from pathlib import Path

DATA = Path(os.environ.get("CLAWREC_APP_DATA", Path(__file__).resolve().parent.parent / "data"))
os.environ.setdefault("PRETIX_PRETIX_DATADIR", str(DATA))
os.environ.setdefault("PRETIX_PRETIX_URL", "http://127.0.0.1")
os.environ.setdefault("PRETIX_PRETIX_INSTANCE_NAME", "clawrec pretix")
os.environ.setdefault("PRETIX_DATABASE_BACKEND", "sqlite3")
os.environ.setdefault("PRETIX_DATABASE_NAME", str(DATA / "db.sqlite3"))
os.environ.setdefault("PRETIX_DJANGO_SECRET", "clawrec-pretix-loopback-only")
os.environ.setdefault("PRETIX_MAIL_FROM", "tickets@clawrec.test")

from pretix.settings import *  # noqa: E402,F401,F403  (pretix's documented way: its settings, then ours)

DEBUG = os.environ.get("CLAWREC_APP_DEBUG") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = INSTALLED_APPS + ["pretixsite"]  # noqa: F405  (the seed command)
sys.path.append(str(Path(__file__).resolve().parents[2] / "oscar"))  # shop.mail: the one .eml backend of apps/
EMAIL_BACKEND = "shop.mail.EmlFileBackend"
EMAIL_FILE_PATH = str(DATA / "mail")
MEDIA_ROOT = str(DATA / "media")



class _NoMigrations(dict):
    """Every app 'has no migrations': `migrate --run-syncdb` then creates today's tables straight from the models."""

    def __contains__(self, item: object) -> bool:
        return True

    def __getitem__(self, item: str) -> None:
        return None


if "migrate" in sys.argv:  # install only: pretix's ~350 migrations take > 10 min on SQLite (each AlterField remakes a
    # table after re-rendering ~150 model states); the snapshot never migrates later, so today's schema is all it needs
    MIGRATION_MODULES = _NoMigrations()
