"""What the pandas and the Dask accessors share: one set of methods, one signature each.

:class:`PairedFrontEnd` holds the configuration call, ``compare`` and every
one-call form (``bootstrap``, ``randomization``, ``exact_binomial``,
``by_slice``, ``report``, ``delong``, ...), the several-model forms
(``against``, ``all_pairs``) and the selection forms (``select_best``,
``split``). A front end (``pdpaired.accessor`` for pandas,
``pdpaired.dask`` for Dask) subclasses it and supplies only how a table
becomes a :class:`~pdpaired.Comparison` (:meth:`PairedFrontEnd._make`) and how
it reads the table's column names, so the two accessors cannot drift apart:
their methods are the same functions, with the same signatures and the same
documentation (tests compare ``inspect.signature`` of each pair).

The class is assembled from one module per concern: :mod:`.base` (the table,
the column configuration and the hooks), :mod:`.two_models` (``compare`` and
the one-call forms), :mod:`.pass_at_k` (``pass_at_k``, ``pass_hat_k`` of
sampled outputs), :mod:`.several_models` (``against``, ``all_pairs``),
:mod:`.selection` (``select_best``, ``split``: choosing among candidates)
and :mod:`.suite` (``suite``: one comparison per task, pooled);
the mixins keep no state, so an accessor holds only its table and columns.
"""

from __future__ import annotations

from pdpaired._frontend.base import FrontEndBase
from pdpaired._frontend.pass_at_k import PassAtKForms
from pdpaired._frontend.selection import SelectionForms
from pdpaired._frontend.several_models import SeveralModelForms
from pdpaired._frontend.suite import SuiteForms
from pdpaired._frontend.two_models import TwoModelForms

__all__ = [
    "FrontEndBase",
    "PairedFrontEnd",
    "PassAtKForms",
    "SelectionForms",
    "SeveralModelForms",
    "SuiteForms",
    "TwoModelForms",
]


class PairedFrontEnd(TwoModelForms, PassAtKForms, SelectionForms, SeveralModelForms, SuiteForms):
    """Base of the ``paired`` accessors: configuration, ``compare`` and the one-call forms.

    Holds only the table and the column configuration; nothing is stored on
    the table, and every call returns a new object.
    """
