"""Renderings of a run: a readable report, a JSON document (`--json`) and JUnit XML (`--junit`)."""
