"""clawrec: evaluate browser agents on the live web without side effects."""

__version__ = "0.1.0"
