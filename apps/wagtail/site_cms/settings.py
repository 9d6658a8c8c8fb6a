"""clawrec's minimal Wagtail site: SQLite, the admin at /admin/, pages at /, all state in one folder.

Everything the site writes lives under $CLAWREC_APP_DATA (the instance's copy of the seeded snapshot): the SQLite
database (pages, revisions, snippets, form submissions) and uploaded images (media/original_images/).
"""

import os
from pathlib import Path

DATA = Path(os.environ.get("CLAWREC_APP_DATA", Path(__file__).resolve().parent.parent / "data"))
SECRET_KEY = "clawrec-wagtail-loopback-only"  # a test site on 127.0.0.1: nothing to protect
DEBUG = os.environ.get("CLAWREC_APP_DEBUG") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "site_cms",
    "wagtail.contrib.forms", "wagtail.contrib.redirects", "wagtail.embeds", "wagtail.sites", "wagtail.users",
    "wagtail.snippets", "wagtail.documents", "wagtail.images", "wagtail.search", "wagtail.admin", "wagtail",
    "modelcluster", "taggit",
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions",
    "django.contrib.messages", "django.contrib.staticfiles",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
]
ROOT_URLCONF = "site_cms.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug",
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
        "site_cms.context.announcements",
    ]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATA / "db.sqlite3"),
                         "OPTIONS": {"timeout": 20}}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}  # no state outside DATA
EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"  # the form page stores, it does not mail
MEDIA_ROOT = str(DATA / "media")
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
WAGTAIL_SITE_NAME = "Clawrec Journal"
WAGTAILADMIN_BASE_URL = "http://127.0.0.1"
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}
WAGTAIL_ENABLE_UPDATE_CHECK = False  # no traffic off loopback
WAGTAIL_ENABLE_WHATS_NEW_BANNER = False
WAGTAIL_GRAVATAR_PROVIDER_URL = None  # the admin asked www.gravatar.com for avatars: loopback only
# Wagtail 8 autosaves the edit form every 500 ms (a multipart POST to the edit URL, a revision each): one raced the
# "Save draft" redirect and saved the old title over the draft, and one sent mid-click kept Publish from being sent
WAGTAIL_AUTOSAVE_INTERVAL = 0
WAGTAILADMIN_COMMENTS_ENABLED = False
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "handlers": {"console": {"class": "logging.StreamHandler"}},
           "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}}}
