"""django-helpdesk at the root, plus the uploaded attachments (served here: the desk runs without a front proxy)."""

from django.conf import settings
from django.urls import include, path, re_path
from django.views.static import serve

urlpatterns = [
    path("", include("helpdesk.urls", namespace="helpdesk")),
    re_path(r"^media/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
]
