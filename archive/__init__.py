"""Web archives: WARC/1.1 write and read, WACZ packaging, the replay lookup index (archive/README.md)."""
