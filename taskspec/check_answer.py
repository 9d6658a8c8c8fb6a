"""The `answer:` key of an answer-mode spec: `{rubric, reference, url}` (docs/howto/clawbench.md).

Why a module of its own: answer mode is one feature (the submit page clawrec serves, the rubric judge), and its
small schema is checked with the spec checker's one-line problems, apart from the general format.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from taskspec.check import FieldChecker
from taskspec.model import Answer
from taskspec.yaml_source import FieldPath

ANSWER_KEYS = ("rubric", "reference", "url")


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False


def check_answer(c: FieldChecker, value: Any) -> Answer | None:
    """The Answer, or None with the problems in `c` (FILE:LINE: answer.KEY: message)."""
    path: FieldPath = ("answer",)
    answer = c.mapping(value, path, known=ANSWER_KEYS, required=("rubric",))
    if answer is None:
        return None
    start = len(c.problems)
    rubric = c.string(answer["rubric"], path + ("rubric",)) if "rubric" in answer else None
    reference = c.string(answer["reference"], path + ("reference",)) if "reference" in answer else None
    url = c.string(answer["url"], path + ("url",)) if "url" in answer else None
    if url is not None and not _is_http_url(url):
        c.bad(path + ("url",), f"must be an http:// or https:// URL, got '{url}'")
    if len(c.problems) > start or rubric is None:
        return None
    return Answer(rubric=rubric, reference=reference, url=url)
