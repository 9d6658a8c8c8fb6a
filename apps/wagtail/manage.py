#!/usr/bin/env python
"""Django's manage.py for clawrec's wagtail (run with the app's own venv; CLAWREC_APP_DATA names the data folder)."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site_cms.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
