"""Fixed data for the jobs board: postings, companies, the one test account."""

from __future__ import annotations

ACCOUNTS = {"alex.doe@example.com": {"password": "Hireloop-2026!", "name": "Alex Doe"}}

JOBS = [
    {"id": 1042, "title": "Senior Data Analyst", "company": "Brightwave Energy", "location": "Austin, TX",
     "type": "Full-time", "salary": "$110k – $135k", "posted_days": 3, "color": "#f2a20c",
     "summary": "Turn grid and customer data into decisions for a fast-growing renewable utility.",
     "duties": ["Own the weekly demand-forecast dashboards", "Partner with operations on outage analytics",
                "Build SQL models in our dbt project", "Mentor two junior analysts"],
     "reqs": ["5+ years of analytics experience", "Strong SQL and Python", "Experience with Looker or Tableau"]},
    {"id": 1038, "title": "Data Analyst", "company": "Brightwave Energy", "location": "Remote (US)",
     "type": "Contract", "salary": "$55 – $65 / hour", "posted_days": 6, "color": "#f2a20c",
     "summary": "Six-month contract supporting our customer-growth team.",
     "duties": ["Maintain acquisition reports", "Run A/B test readouts"], "reqs": ["2+ years of SQL"]},
    {"id": 1051, "title": "Frontend Engineer", "company": "Tidepool Labs", "location": "Seattle, WA",
     "type": "Full-time", "salary": "$140k – $170k", "posted_days": 1, "color": "#1f8fd6",
     "summary": "Build the web app oceanographers use to explore sensor data.",
     "duties": ["Ship features in TypeScript and React", "Own accessibility"], "reqs": ["3+ years of React"]},
    {"id": 1047, "title": "Product Designer", "company": "Mossgreen", "location": "Portland, OR",
     "type": "Full-time", "salary": "$105k – $125k", "posted_days": 2, "color": "#3a9d5d",
     "summary": "Design tools that help small farms sell directly to restaurants.",
     "duties": ["Lead discovery interviews", "Prototype in Figma"], "reqs": ["Portfolio of shipped work"]},
    {"id": 1029, "title": "Senior Data Analyst", "company": "Northgate Bank", "location": "Chicago, IL",
     "type": "Full-time", "salary": "$100k – $120k", "posted_days": 12, "color": "#6b4fd8",
     "summary": "Risk analytics for consumer lending.", "duties": ["Credit-risk reporting"],
     "reqs": ["4+ years in banking analytics"]},
    {"id": 1055, "title": "Customer Success Manager", "company": "Tidepool Labs", "location": "Remote (US)",
     "type": "Full-time", "salary": "$85k – $100k", "posted_days": 4, "color": "#1f8fd6",
     "summary": "Be the voice of our research customers.", "duties": ["Onboard new labs"],
     "reqs": ["3+ years in SaaS customer success"]},
]


def job_by_id(job_id: int) -> dict | None:
    return next((j for j in JOBS if j["id"] == job_id), None)
