"""WSGI entry point, for tools that need one (the app itself is served over ASGI)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")

application = get_wsgi_application()
