"""Benchmarks (`make bench`): never part of the timed test suite."""
