"""clawrec's minimal django-oscar shop: SQLite, guest checkout, mail written as files, all state in one folder.

Everything the shop writes lives under $CLAWREC_APP_DATA (the instance's copy of the seeded snapshot): the SQLite
database, the search index (Whoosh, as Oscar's sandbox), uploaded media and the outgoing mail (one .eml per message, shop/mail.py). Sessions are Django's
database sessions stored as readable JSON (shop/sessions.py) so that a task's checks can read the pending checkout
(the guest e-mail, the shipping address) that Oscar keeps in the session until "Place order".
"""

import os
from pathlib import Path

from oscar.defaults import *  # noqa: F401,F403  (Oscar's documented way to configure it)
from oscar import INSTALLED_APPS as OSCAR_APPS

DATA = Path(os.environ.get("CLAWREC_APP_DATA", Path(__file__).resolve().parent.parent / "data"))
SECRET_KEY = "clawrec-oscar-loopback-only"  # a test shop on 127.0.0.1: nothing to protect
DEBUG = os.environ.get("CLAWREC_APP_DEBUG") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = OSCAR_APPS + ["sorl.thumbnail", "shop"]
SITE_ID = 1
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]
ROOT_URLCONF = "shop.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [Path(__file__).resolve().parent / "templates"],  # before Oscar's own: shop/templates/oscar/base.html
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug",
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.template.context_processors.i18n",
        "django.contrib.messages.context_processors.messages",
        "oscar.apps.search.context_processors.search_form",
        "oscar.apps.checkout.context_processors.checkout",
        "oscar.apps.communication.notifications.context_processors.notifications",
        "oscar.core.context_processors.metadata",
    ]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATA / "db.sqlite3"),
                         "OPTIONS": {"timeout": 20}}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}  # no state outside DATA
SESSION_ENGINE = "shop.sessions"
AUTHENTICATION_BACKENDS = ["oscar.apps.customer.auth_backends.EmailBackend",
                           "django.contrib.auth.backends.ModelBackend"]
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.whoosh_backend.WhooshEngine",  # as Oscar's sandbox
                                 "PATH": str(DATA / "whoosh_index"), "INCLUDE_SPELLING": True}}
EMAIL_BACKEND = "shop.mail.EmlFileBackend"
EMAIL_FILE_PATH = str(DATA / "mail")
DEFAULT_FROM_EMAIL = "shop@clawrec.test"
OSCAR_FROM_EMAIL = DEFAULT_FROM_EMAIL
MEDIA_ROOT = str(DATA / "media")
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-gb"
OSCAR_SHOP_NAME = "Clawrec Books"
OSCAR_DEFAULT_CURRENCY = "GBP"
OSCAR_ALLOW_ANON_CHECKOUT = True
OSCAR_ALLOW_ANON_REVIEWS = False
OSCAR_HOMEPAGE = "/catalogue/"
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"console": {"class": "logging.StreamHandler"}},
           "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"},
                       "oscar": {"handlers": ["console"], "level": "WARNING"}}}
