"""Fixed catalog and coupons for the shop (Northwind Outfitters)."""

from __future__ import annotations

PRODUCTS = [
    {"slug": "ridgeline-trail-runner-2", "name": "Ridgeline Trail Runner 2", "price": 129.00, "category": "Footwear",
     "options": ["40", "41", "42", "43", "44", "45", "46"], "option_label": "EU size", "colors": ("#c2410c", "#1f2937"),
     "blurb": "A grippy, cushioned trail shoe with a rock plate and a 6 mm drop.", "rating": 4.6, "reviews": 212},
    {"slug": "merino-hiking-socks-3-pack", "name": "Merino Hiking Socks (3-pack)", "price": 24.00,
     "category": "Accessories", "options": ["S", "M", "L"], "option_label": "Size", "colors": ("#4d7c0f", "#e7e5e4"),
     "blurb": "Cushioned merino blend that stays warm when wet. Three pairs.", "rating": 4.8, "reviews": 530},
    {"slug": "stormline-rain-shell", "name": "Stormline Rain Shell", "price": 189.00, "category": "Jackets",
     "options": ["XS", "S", "M", "L", "XL"], "option_label": "Size", "colors": ("#0369a1", "#0c4a6e"),
     "blurb": "Three-layer waterproof shell with pit zips and a helmet-compatible hood.", "rating": 4.4, "reviews": 98},
    {"slug": "summit-22l-daypack", "name": "Summit 22L Daypack", "price": 89.00, "category": "Packs",
     "options": ["One size"], "option_label": "Size", "colors": ("#7c3aed", "#312e81"),
     "blurb": "Ventilated back panel, hydration sleeve and a stash pocket for a shell.", "rating": 4.7, "reviews": 144},
    {"slug": "thermal-bottle-750", "name": "Thermal Bottle 750 ml", "price": 32.00, "category": "Accessories",
     "options": ["750 ml"], "option_label": "Volume", "colors": ("#0f766e", "#99f6e4"),
     "blurb": "Keeps drinks hot for 12 hours or cold for 24.", "rating": 4.5, "reviews": 301},
    {"slug": "alpine-fleece-pullover", "name": "Alpine Fleece Pullover", "price": 79.00, "category": "Jackets",
     "options": ["S", "M", "L", "XL"], "option_label": "Size", "colors": ("#b45309", "#fef3c7"),
     "blurb": "A warm grid-fleece midlayer that packs small.", "rating": 4.3, "reviews": 76},
]

# code -> (percent off, error code or None, message)
COUPONS = {
    "WELCOME10": (10, None, "10% off your first order"),
    "SUMMER24": (15, "COUPON_EXPIRED", "Coupon SUMMER24 expired on 2024-09-30."),
    "FREESHIP": (0, "COUPON_NOT_APPLICABLE", "FREESHIP needs an order of $250 or more."),
}

SHIPPING = [
    {"id": "standard", "label": "Standard (5–7 business days)", "price": 0.0},
    {"id": "express", "label": "Express (2 business days)", "price": 15.0},
]


def product(slug: str) -> dict | None:
    return next((p for p in PRODUCTS if p["slug"] == slug), None)


def product_svg(p: dict) -> str:
    """A flat product illustration so the catalog has real images (served as /img/<slug>.svg)."""
    a, b = p["colors"]
    shapes = {
        "Footwear": f'<path d="M40 150q10-60 60-60l40 30 90 20q40 10 40 30v10H40z" fill="{a}"/>'
                    f'<rect x="40" y="170" width="230" height="14" rx="7" fill="{b}"/>',
        "Accessories": f'<rect x="110" y="50" width="80" height="150" rx="30" fill="{a}"/>'
                       f'<rect x="120" y="70" width="60" height="16" fill="{b}"/>',
        "Jackets": f'<path d="M100 60l50-20 50 20 40 60-25 15-15-20v105H100V115l-15 20-25-15z" fill="{a}"/>'
                   f'<path d="M150 40v180" stroke="{b}" stroke-width="4"/>',
        "Packs": f'<rect x="95" y="55" width="110" height="150" rx="36" fill="{a}"/>'
                 f'<rect x="115" y="120" width="70" height="60" rx="14" fill="{b}"/>',
    }
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 240"><rect width="300" height="240" fill="#f4f1ec"/>'
            f'<ellipse cx="150" cy="215" rx="110" ry="10" fill="#e4ded5"/>{shapes[p["category"]]}</svg>')
