"""The imported résumé is a real PDF: a strict parser (pypdf) reads it, its text is the template's with the
profile's address, long content breaks into pages, and the same lines give the same bytes (idempotent import)."""

from __future__ import annotations

import io
import json

import pypdf

from clawrec.resume_pdf import build_pdf
from taskspec.clawbench_user import resume_lines
from tests.clawbench.conftest import corpus_path


def _text(data: bytes) -> tuple[int, str]:
    reader = pypdf.PdfReader(io.BytesIO(data), strict=True)
    return len(reader.pages), "\n".join(page.extract_text() for page in reader.pages)


def test_resume_from_the_template_reads_back():
    template = json.loads((corpus_path().parent / "resume_template.json").read_bytes())
    lines = resume_lines(template, "alex@mail.example")
    data = build_pdf(lines, title="Alex Green - Resume")
    assert build_pdf(lines, title="Alex Green - Resume") == data
    pages, text = _text(data)
    assert pages == 1 and text.startswith("Alex Green\nSenior Software Engineer  |  Toronto, ON, Canada  |  "
                                          "alex@mail.example\n")
    for expected in ("Pinecrest Technologies Inc., Toronto, ON  (Mar 2019 – Present)", "Ph.D. in Computer Science",
                     "Certified Kubernetes Administrator – CKA (2025)", "French (Intermediate (B1))"):
        assert expected in text, expected
    assert "dummy_email" not in text


def test_long_content_breaks_into_pages_and_wraps():
    lines = [("title", "T")] + [("text", f"line {i} " + "word " * 40) for i in range(80)]
    pages, text = _text(build_pdf(lines))
    assert pages > 2 and "line 79 " in text and text.count("line ") == 80
