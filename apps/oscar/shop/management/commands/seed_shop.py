"""`manage.py seed_shop`: the snapshot's small deterministic catalogue (run once, right after migrate).

Three books from one partner with stock, one category, the United Kingdom as the one shipping country, the site
named 127.0.0.1 and one customer account (alex@example.com / clawrec-pass). Idempotent: a second run changes nothing.
"""

from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.sites.models import Site
from django.core.management.base import BaseCommand
from oscar.core.loading import get_model

BOOKS = [  # (upc, title, price, stock)
    ("9780000000011", "The Clockwork Garden", "12.50", 40),
    ("9780000000028", "A Field Guide to Loopback", "18.00", 25),
    ("9780000000035", "Small Boats in Heavy Weather", "9.99", 60),
]


class Command(BaseCommand):
    help = "Seed the shop's catalogue, shipping country and one customer (deterministic, idempotent)."

    def handle(self, *args, **options):
        Site.objects.update_or_create(id=1, defaults={"domain": "127.0.0.1", "name": "Clawrec Books"})
        Country = get_model("address", "Country")
        Country.objects.update_or_create(iso_3166_1_a2="GB", defaults={
            "iso_3166_1_a3": "GBR", "iso_3166_1_numeric": "826", "printable_name": "United Kingdom",
            "name": "United Kingdom of Great Britain and Northern Ireland", "is_shipping_country": True})
        ProductClass = get_model("catalogue", "ProductClass")
        Product = get_model("catalogue", "Product")
        Category = get_model("catalogue", "Category")
        ProductCategory = get_model("catalogue", "ProductCategory")
        Partner = get_model("partner", "Partner")
        StockRecord = get_model("partner", "StockRecord")
        book, _ = ProductClass.objects.get_or_create(name="Book", defaults={"requires_shipping": True,
                                                                          "track_stock": True})
        partner, _ = Partner.objects.get_or_create(name="Clawrec Books")
        category = Category.objects.filter(name="Books").first() or Category.add_root(name="Books", slug="books")
        for upc, title, price, stock in BOOKS:
            product, _ = Product.objects.get_or_create(upc=upc, defaults={
                "title": title, "product_class": book, "structure": "standalone", "is_public": True})
            ProductCategory.objects.get_or_create(product=product, category=category)
            StockRecord.objects.update_or_create(product=product, partner=partner, defaults={
                "partner_sku": upc, "price": Decimal(price), "num_in_stock": stock, "price_currency": "GBP"})
        User = get_user_model()
        if not User.objects.filter(email="alex@example.com").exists():
            User.objects.create_user(username="alex", email="alex@example.com", password="clawrec-pass",
                                     first_name="Alex", last_name="Doe")
