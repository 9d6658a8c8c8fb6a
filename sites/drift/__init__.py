"""Driftwood Goods: a shop that drifts between visits (the frozen-web acceptance site; sites/drift/README.md)."""
