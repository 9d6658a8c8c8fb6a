"""The task families: what a site of each family asks for (fields, their kinds and value pools) and how it words
the task. Pure data; the generator draws from it with the site's seeded random source."""

from __future__ import annotations

from dataclasses import dataclass

FIRST = ("Ada", "Bruno", "Chen", "Dana", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemi", "Lena")
LAST = ("Novak", "Okafor", "Park", "Quinn", "Rossi", "Silva", "Tanaka", "Ueda", "Varga", "Weber", "Yilmaz")
CITIES = ("Amsterdam", "Berlin", "Chicago", "Denver", "Lisbon", "Madrid", "Nairobi", "Osaka", "Porto", "Quito")
STREETS = ("Elm Street", "Harbour Road", "Mill Lane", "Oak Avenue", "Station Road", "Willow Way")
WORDS = ("amber", "breeze", "cobalt", "delta", "ember", "fjord", "granite", "harbor", "indigo", "juniper")
COMPANIES = ("Acme Labs", "Borealis Ltd", "Cinder Works", "Dune Analytics", "Ember Foods", "Fathom Group")


@dataclass(frozen=True)
class FieldDef:
    """One field a family asks for: payload key, visible label, kind and where its values come from."""
    key: str
    label: str
    kind: str              # text | email | tel | number | textarea | choice | date | checkbox | file | typeahead
    pool: tuple[str, ...] = ()   # choice/typeahead options, or value pool for text


@dataclass(frozen=True)
class Family:
    name: str
    title: str             # site name stem
    noun: str              # terminal resource (URL segment)
    verb: str              # the task's verb phrase
    submit: str            # the final button's name
    fields: tuple[FieldDef, ...]


def _names() -> tuple[str, ...]:
    return tuple(f"{f} {l}" for f in FIRST for l in LAST)


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("checkout", "Cart", "orders", "buy the item and check out", "Place order", (
        FieldDef("full_name", "Full name", "text", _names()),
        FieldDef("email", "Email", "email"),
        FieldDef("street", "Street address", "text", STREETS),
        FieldDef("city", "City", "typeahead", CITIES),
        FieldDef("quantity", "Quantity", "choice", ("1", "2", "3", "4")),
        FieldDef("shipping", "Shipping method", "choice", ("Standard", "Express", "Pickup")),
    )),
    Family("booking", "Stay", "bookings", "book a room", "Book now", (
        FieldDef("guest_name", "Guest name", "text", _names()),
        FieldDef("email", "Email", "email"),
        FieldDef("check_in", "Check-in date", "date"),
        FieldDef("nights", "Nights", "choice", ("1", "2", "3", "5", "7")),
        FieldDef("room", "Room type", "choice", ("Single", "Double", "Suite")),
    )),
    Family("account", "Account", "accounts", "sign up for an account", "Create account", (
        FieldDef("username", "Username", "text", WORDS),
        FieldDef("email", "Email", "email"),
        FieldDef("country", "Country", "choice", ("Canada", "Germany", "Japan", "Kenya", "Portugal")),
        FieldDef("language", "Language", "choice", ("English", "German", "Japanese", "Spanish")),
        FieldDef("newsletter", "Send me the newsletter", "checkbox"),
    )),
    Family("support", "Help", "tickets", "open a support ticket", "Send ticket", (
        FieldDef("name", "Your name", "text", _names()),
        FieldDef("email", "Email", "email"),
        FieldDef("topic", "Topic", "choice", ("Billing", "Delivery", "Returns", "Technical")),
        FieldDef("priority", "Priority", "choice", ("Low", "Normal", "High")),
        FieldDef("message", "Message", "textarea"),
    )),
    Family("crm", "Leads", "leads", "create the lead record", "Save lead", (
        FieldDef("first_name", "First name", "text", FIRST),
        FieldDef("last_name", "Last name", "text", LAST),
        FieldDef("company", "Company", "typeahead", COMPANIES),
        FieldDef("phone", "Phone", "tel"),
        FieldDef("stage", "Stage", "choice", ("New", "Contacted", "Qualified", "Won")),
    )),
    Family("social", "Chirp", "posts", "publish the post", "Publish", (
        FieldDef("body", "What is on your mind?", "textarea"),
        FieldDef("visibility", "Visibility", "choice", ("Public", "Friends", "Only me")),
        FieldDef("tag", "Topic tag", "typeahead", WORDS),
    )),
    Family("job", "Careers", "applications", "apply for the job", "Submit application", (
        FieldDef("full_name", "Full name", "text", _names()),
        FieldDef("email", "Email", "email"),
        FieldDef("position", "Position", "choice", ("Analyst", "Designer", "Engineer", "Manager")),
        FieldDef("start_date", "Earliest start date", "date"),
        FieldDef("resume", "Resume", "file"),
    )),
    Family("wizard", "Setup", "registrations", "complete the registration", "Finish", (
        FieldDef("full_name", "Full name", "text", _names()),
        FieldDef("email", "Email", "email"),
        FieldDef("plan", "Plan", "choice", ("Basic", "Team", "Enterprise")),
        FieldDef("seats", "Seats", "number"),
        FieldDef("start_date", "Start date", "date"),
        FieldDef("city", "Office city", "typeahead", CITIES),
        FieldDef("terms", "I accept the terms", "checkbox"),
    )),
)}
