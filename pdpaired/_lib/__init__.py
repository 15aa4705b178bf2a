"""Shared leaf code: errors, argument validation, formatting, random streams, docs text.

Anything in pdpaired may import from here; nothing here imports the rest of
pdpaired.
"""
