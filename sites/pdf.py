"""A tiny, deterministic PDF writer and the demo résumé (specs/demo/files/resume.pdf).

Why hand-written: one page of Helvetica text and a few rules is all the jobs task needs, and a fixed byte
output (no timestamps, no ids) lets tests compare the uploaded file's sha256 with the committed one.
Regenerate: `python -m sites.pdf specs/demo/files/resume.pdf`.
"""

from __future__ import annotations

import sys
from pathlib import Path

RESUME = [
    ("title", "Alex Doe"),
    ("sub", "Senior Data Analyst  |  Austin, TX  |  alex.doe@example.com  |  +1 512 555 0142"),
    ("rule", ""),
    ("head", "Summary"),
    ("text", "Data analyst with six years of experience turning operational data into forecasts and decisions"),
    ("text", "for energy and logistics companies. SQL, Python, dbt, Looker; mentor to junior analysts."),
    ("head", "Experience"),
    ("bold", "Lead Analyst, Pecan Grid Cooperative, Austin TX  (2022 - present)"),
    ("text", "- Built the day-ahead demand forecast used by dispatch (MAPE down from 7.9% to 4.1%)."),
    ("text", "- Moved 140 reports from spreadsheets to a dbt + Looker stack; cut refresh time from hours to minutes."),
    ("text", "- Mentored three junior analysts; ran the weekly analytics review with operations."),
    ("bold", "Data Analyst, Longhorn Freight, San Antonio TX  (2019 - 2022)"),
    ("text", "- Modelled lane profitability for 2,300 routes; findings saved $1.2M a year in empty miles."),
    ("text", "- Designed A/B tests for dynamic pricing and reported results to the executive team."),
    ("bold", "Junior Analyst, Hill Country Health, Austin TX  (2018 - 2019)"),
    ("text", "- Automated monthly quality-measure reporting with Python and SQL Server."),
    ("head", "Education"),
    ("text", "B.S. Statistics, The University of Texas at Austin, 2018"),
    ("head", "Skills"),
    ("text", "SQL (PostgreSQL, BigQuery), Python (pandas, statsmodels), dbt, Looker, Tableau, forecasting,"),
    ("text", "experiment design, stakeholder communication."),
]
STYLE = {"title": ("F2", 22, 30), "sub": ("F1", 10, 18), "head": ("F2", 13, 24), "bold": ("F2", 10.5, 17),
         "text": ("F1", 10, 14), "rule": ("F1", 10, 10)}


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def build_pdf(lines: list[tuple[str, str]]) -> bytes:
    """One US-letter page; objects: catalog, pages, page, content stream, two Type1 fonts."""
    y, ops = 740.0, []
    for kind, text in lines:
        font, size, lead = STYLE[kind]
        if kind == "rule":
            ops.append(f"0.2 0.4 0.3 RG 1.2 w 56 {y:.1f} m 556 {y:.1f} l S")
        else:
            color = "0.08 0.33 0.18 rg" if kind in ("title", "head") else "0.1 0.1 0.1 rg"
            ops.append(f"BT {color} /{font} {size} Tf 56 {y:.1f} Td ({_esc(text)}) Tj ET")
        y -= lead
    content = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info << /Title (Alex Doe - Resume) >> >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "specs/demo/files/resume.pdf")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(build_pdf(RESUME))
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
