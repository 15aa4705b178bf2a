"""The in-memory backend of the pairs protocol: a pandas long table paired case by case.

:mod:`~pdpaired.pairs.pandas.pairing` turns the rows into validated pairs;
:mod:`~pdpaired.pairs.pandas.backend` holds them and answers the protocol of
:mod:`pdpaired.pairs.backend`.
"""

from __future__ import annotations

__all__: list[str] = []
