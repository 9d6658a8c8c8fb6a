"""The ClawBench user (alex_green_personal_info.json) as a spec's `user`, and the résumé template as text lines.

Why the email comes from the environment: ClawBench assigns every run a disposable mailbox (the profile's address
is a placeholder), and tasks that register or verify need one the person running clawrec controls. Its address and
password are named, never written: `{env: NAME}` values the spec loader fills at run time (env-sourced values are
secrets: no run file holds them in clear).
"""

from __future__ import annotations

from typing import Any

EMAIL_ENV = "CLAWBENCH_EMAIL"
EMAIL_PASSWORD_ENV = "CLAWBENCH_EMAIL_PASSWORD"
TEMPLATE_EMAIL = "dummy_email"   # the résumé template's placeholder for the run's address


class ProfileError(ValueError):
    """The personal-info file is not what ClawBench publishes; the message names the field."""


# user field → where it is in the profile (the fields web forms ask for most; the whole profile is a file too)
USER_FIELDS = (
    ("preferred_name", ("identity", "preferred_name")), ("date_of_birth", ("identity", "date_of_birth")),
    ("gender", ("identity", "gender")), ("nationality", ("identity", "nationality")),
    ("address", ("address", "home", "full")), ("unit", ("address", "home", "unit")),
    ("street", ("address", "home", "street")), ("city", ("address", "home", "city")),
    ("province", ("address", "home", "province")), ("postal_code", ("address", "home", "postal_code")),
    ("country", ("address", "home", "country")),
    ("job_title", ("work_experience", 0, "title")), ("employer", ("work_experience", 0, "company")),
    ("card_name", ("financial", "credit_cards", 0, "cardholder_name")),
    ("card_number", ("financial", "credit_cards", 0, "number")),
    ("card_expiry", ("financial", "credit_cards", 0, "expiry_formatted")),
    ("card_cvv", ("financial", "credit_cards", 0, "cvv")),
)


def _dig(value: Any, path: tuple) -> Any:
    for key in path:
        if isinstance(key, int):
            value = value[key] if isinstance(value, list) and len(value) > key else None
        else:
            value = value.get(key) if isinstance(value, dict) else None
    return value


def user_from_profile(profile: Any) -> dict[str, Any]:
    """`user:` for every imported spec: name, the env-sourced mailbox, then the profile's form fields (USER_FIELDS;
    those the profile lacks are left out). The whole profile goes to the agent as a file (`profile_file_data`)."""
    if not isinstance(profile, dict):
        raise ProfileError("must be a JSON object (ClawBench's alex_green_personal_info.json)")
    name = _dig(profile, ("identity", "legal_name"))
    if not isinstance(name, dict) or not isinstance(name.get("first"), str) or not isinstance(name.get("last"), str):
        raise ProfileError("identity.legal_name: needs 'first' and 'last' strings")
    user: dict[str, Any] = {"first_name": name["first"], "last_name": name["last"],
                            "email": {"env": EMAIL_ENV}, "email_password": {"env": EMAIL_PASSWORD_ENV}}
    for key, path in USER_FIELDS:
        value = _dig(profile, path)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            user[key] = value
    return user


def profile_file_data(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile as the agent's file: ClawBench's placeholder address is left out (the run's is `user.email`)."""
    out = dict(profile)
    if isinstance(out.get("contact"), dict):
        out["contact"] = {k: v for k, v in out["contact"].items() if k != "email"}
        out["contact"]["email"] = f"the task's user.email (${EMAIL_ENV})"
    return out


def profile_email(profile: dict[str, Any]) -> str | None:
    contact = profile.get("contact")
    email = contact.get("email") if isinstance(contact, dict) else None
    return email if isinstance(email, str) else None


def resume_lines(template: Any, email: str) -> list[tuple[str, str]]:
    """The résumé as (style, text) lines: title, sub, head, bold, text, rule (clawrec/resume_pdf.py lays them out).

    `template` is ClawBench's resume_template.json; its `dummy_email` placeholder becomes `email`."""
    if not isinstance(template, dict) or not isinstance(template.get("header"), dict):
        raise ProfileError("must be a JSON object with a 'header' (ClawBench's resume_template.json)")

    def s(value: Any) -> str:
        return str(value).replace(TEMPLATE_EMAIL, email) if value is not None else ""

    header = template["header"]
    lines = [("title", s(header.get("name"))),
             ("sub", "  |  ".join(s(header[k]) for k in ("title", "location", "email") if header.get(k))),
             ("rule", "")]
    if template.get("summary"):
        lines += [("head", "Summary"), ("text", s(template["summary"]))]
    if template.get("experience"):
        lines.append(("head", "Experience"))
        for job in template["experience"]:
            where = ", ".join(s(job[k]) for k in ("company", "location") if job.get(k))
            lines.append(("bold", f"{s(job.get('title'))}, {where}  ({s(job.get('dates'))})"))
            lines += [("text", f"- {s(b)}") for b in job.get("bullets") or []]
    if template.get("education"):
        lines.append(("head", "Education"))
        for edu in template["education"]:
            lines.append(("bold", f"{s(edu.get('degree'))}, {s(edu.get('institution'))}  ({s(edu.get('dates'))})"))
            if edu.get("detail"):
                lines.append(("text", s(edu["detail"])))
    skills = template.get("skills")
    if isinstance(skills, dict) and skills:
        lines.append(("head", "Skills"))
        lines += [("text", f"{k.replace('_', ' / ').title()}: {', '.join(map(s, v))}") for k, v in skills.items()]
    if template.get("certifications"):
        lines.append(("head", "Certifications"))
        lines += [("text", f"- {s(c)}") for c in template["certifications"]]
    if template.get("languages"):
        langs = [f"{s(x.get('language'))} ({s(x.get('proficiency'))})" if isinstance(x, dict) else s(x)
                 for x in template["languages"]]
        lines += [("head", "Languages"), ("text", ", ".join(langs))]
    return lines
