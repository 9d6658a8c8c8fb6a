"""The run directory: file names, clock, JSONL writer/reader, record shapes, the manifest, RunDir. Pure data + I/O."""
