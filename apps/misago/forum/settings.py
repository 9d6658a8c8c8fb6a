"""clawrec's Misago: Misago's own devproject settings with every outside service replaced by a local one.

Why: Misago 0.39 ships a complete dev project (devproject.settings) but expects PostgreSQL, Redis and Celery.
Here PostgreSQL is the instance's own cluster on a loopback port ($CLAWREC_PORT_PG, started by start-pg.sh),
Celery runs tasks eagerly in the request (no broker, no worker), the cache is a dummy (no state outside the
instance) and mail is written to files under $CLAWREC_APP_DATA/mail. Uploads (attachments, avatars) go to media/.
"""

import os
from pathlib import Path

from devproject.settings import *  # noqa: F401,F403 (Misago's own settings are the base)
from devproject.settings import INSTALLED_APPS, MIDDLEWARE

DATA = Path(os.environ.get("CLAWREC_APP_DATA", Path(__file__).resolve().parent.parent / "data"))
SECRET_KEY = "clawrec-misago-loopback-only"  # a test forum on 127.0.0.1: nothing to protect
DEBUG = os.environ.get("CLAWREC_APP_DEBUG") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DATABASES = {"default": {
    "ENGINE": "django.db.backends.postgresql", "NAME": "misago", "USER": "misago",
    "HOST": "127.0.0.1", "PORT": int(os.environ.get("CLAWREC_PORT_PG", "5432")),
    "CONN_MAX_AGE": 0,  # a connection per request: a reset drops and re-creates the database under a running server
}}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
CELERY_BROKER_URL = None
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = str(DATA / "mail")
MEDIA_ROOT = str(DATA / "media")
MISAGO_USER_DATA_DOWNLOADS_WORKING_DIR = str(DATA / "userdata")
INSTALLED_APPS = [*(app for app in INSTALLED_APPS if app != "debug_toolbar"), "forum"]
MIDDLEWARE = [m for m in MIDDLEWARE if "debug_toolbar" not in m]
DEBUG_TOOLBAR_CONFIG = {}
INTERNAL_IPS: list[str] = []
MISAGO_NEW_REGISTRATIONS_VALIDATORS = ("misago.users.validators.validate_gmail_email",)  # no Stop Forum Spam call
LANGUAGE_CODE = "en-us"
