"""ClawBench metaclasses → the paper's 8 category groups (the table docs/howto/clawbench.md shows).

Why a table and not a guess: ClawBench v1 and v2 name the same groups differently (`shopping-commerce` and
`shopping`, `nonprofit-charity` and `charity`, `job-search-hr` and `jobs`), and a wrong group silently skews a
per-category score. Every metaclass of the published corpus (TIGER-AI-Lab/ClawBench test-cases, v1, v2, v1-lite,
claw-eval) is listed; the claw-eval suite's single metaclass is split by its `class`. Unknown metaclasses fall back
to a prefix guess and the caller warns either way (`in_table` tells a guess from the table).
"""

from __future__ import annotations

from typing import Any

GROUPS = ("daily", "finance", "work", "dev", "academic", "travel", "social", "pets")

# group → metaclasses (the corpus's, plus the 27 names of ClawBench's docs/test_cases.md)
GROUP_METACLASSES: dict[str, tuple[str, ...]] = {
    "daily": ("daily-life", "home-services", "home-services-maintenance", "beauty-personal", "beauty-personal-care",
              "shopping-commerce", "shopping", "personal-management", "automotive-vehicle",
              "automotive-vehicle-services", "automation-workflows", "government-civic", "civic-engagement",
              "deletion-revocation", "food-cooking", "health-fitness", "fitness"),
    "finance": ("finance-investment",),
    "work": ("office-secretary", "office-secretary-tasks", "job-search", "job-search-hr", "jobs", "creation-init"),
    "dev": ("dev-tech",),
    "academic": ("academia-research", "education-learning", "education"),
    "travel": ("travel", "travel-outdoor", "travel-general", "travel-flights", "travel-train", "travel-camping",
               "travel-bus"),
    "social": ("rating-voting", "entertainment-hobbies", "entertainment", "entertainment-gaming", "hobbies-gaming",
               "hobbies-crafts", "nonprofit-charity", "charity", "events",
               "web_task"),  # v2's web_task cases are Eventbrite event registrations
    "pets": ("pet-animal", "pet-animal-care"),
}
METACLASS_CATEGORY: dict[str, str] = {m: group for group, names in GROUP_METACLASSES.items() for m in names}

# claw-eval (answer mode): one metaclass, the group comes from the task's class
CLAW_EVAL = "claw-eval"
CLAW_EVAL_CLASS_CATEGORY = {"security": "dev", "ops": "dev", "compliance": "work", "finance": "finance",
                            "research": "academic"}

_PREFIX_CATEGORY = (("travel", "travel"), ("pet", "pets"), ("financ", "finance"), ("dev", "dev"),
                    ("academ", "academic"), ("educat", "academic"), ("job", "work"), ("office", "work"),
                    ("social", "social"), ("entertain", "social"))


def category_for(metaclass: Any, klass: Any = None) -> str | None:
    """The paper's group for a ClawBench metaclass (and class, for claw-eval); None when it cannot be told."""
    if not isinstance(metaclass, str):
        return None
    key = metaclass.strip().lower()
    if key == CLAW_EVAL:
        return CLAW_EVAL_CLASS_CATEGORY.get(klass.strip().lower()) if isinstance(klass, str) else None
    if key in METACLASS_CATEGORY:
        return METACLASS_CATEGORY[key]
    if key in GROUPS:
        return key
    return next((cat for prefix, cat in _PREFIX_CATEGORY if key.startswith(prefix)), None)


def in_table(metaclass: Any, klass: Any = None) -> bool:
    """Whether the table itself names this metaclass (for claw-eval: its class), not a prefix guess."""
    if not isinstance(metaclass, str):
        return False
    key = metaclass.strip().lower()
    if key == CLAW_EVAL:
        return isinstance(klass, str) and klass.strip().lower() in CLAW_EVAL_CLASS_CATEGORY
    return key in METACLASS_CATEGORY or key in GROUPS


def markdown_table() -> str:
    """The table as README shows it (a test keeps README in step with this module)."""
    rows = ["| group | ClawBench metaclasses |", "|---|---|"]
    for group in GROUPS:
        names = [f"`{m}`" for m in GROUP_METACLASSES[group]]
        names += [f"`{CLAW_EVAL}` class `{c}`" for c, g in CLAW_EVAL_CLASS_CATEGORY.items() if g == group]
        rows.append(f"| {group} | {', '.join(names)} |")
    return "\n".join(rows)
