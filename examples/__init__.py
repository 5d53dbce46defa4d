"""Example methods for the benchmark's slot for a new method (docs/benchmark.md)."""
