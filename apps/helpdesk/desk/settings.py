"""clawrec's minimal django-helpdesk: SQLite, public ticket form on, mail written as .eml files, all state in one folder.

Everything the desk writes lives under $CLAWREC_APP_DATA (the instance's copy of the seeded snapshot): the SQLite
database, uploaded attachments (media/) and the outgoing mail (mail/, one .eml per message, desk/mail.py).
"""

import os
from pathlib import Path

DATA = Path(os.environ.get("CLAWREC_APP_DATA", Path(__file__).resolve().parent.parent / "data"))
SECRET_KEY = "clawrec-helpdesk-loopback-only"  # a test desk on 127.0.0.1: nothing to protect
DEBUG = os.environ.get("CLAWREC_APP_DEBUG") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
    "django.contrib.sites", "django.contrib.messages", "django.contrib.staticfiles", "django.contrib.humanize",
    "rest_framework", "helpdesk", "desk",
]
SITE_ID = 1
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "desk.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug",
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATA / "db.sqlite3"),
                         "OPTIONS": {"timeout": 20}}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}  # no state outside DATA
EMAIL_BACKEND = "desk.mail.EmlBackend"
EMAIL_FILE_PATH = str(DATA / "mail")
DEFAULT_FROM_EMAIL = "support@clawrec.test"
MEDIA_ROOT = str(DATA / "media")
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/tickets/"
HELPDESK_ALLOW_NON_STAFF_TICKET_UPDATE = False
HELPDESK_VIEW_A_TICKET_PUBLIC = True
HELPDESK_SUBMIT_A_TICKET_PUBLIC = True
HELPDESK_KB_ENABLED = False
HELPDESK_PUBLIC_TICKET_DUE_DATE = None
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"console": {"class": "logging.StreamHandler"}},
           "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}}}
HELPDESK_TEAMS_MODEL = "auth.Group"  # helpdesk's default needs pinax-teams; Django's groups are enough here
HELPDESK_TEAMS_MIGRATION_DEPENDENCIES = [("auth", "0012_alter_user_first_name_max_length")]
