"""annotate's URL glob (taskspec/generalize.generalize_url) on the real apps' URLs (issue 34): the object a final
submission is about becomes `*` when its path segment is an id, also a slug with its id (oscar's review form), so a
run on another object is caught, not let through to the site; words stay words."""

from __future__ import annotations

import pytest

from taskspec.generalize import generalize_url

SITES = {"oscar": "http://127.0.0.1:41735/"}


@pytest.mark.parametrize("path,glob", [
    ("catalogue/the-clockwork-garden_1/reviews/add/", "catalogue/*/reviews/add/"),
    ("accounts/wishlists/add/2/", "accounts/wishlists/add/*/"),
    ("checkout/preview/", "checkout/preview/"),
    ("checkout/step-2/", "checkout/step-2/"),
    ("catalogue/category/books/", "catalogue/category/books/"),
])
def test_object_segments_become_a_wildcard(path, glob):
    assert generalize_url(SITES["oscar"] + path + "?next=/", SITES) == "{sites.oscar}" + glob
