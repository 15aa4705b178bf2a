"""Bundled JSON Schemas of the comparison artifacts."""
