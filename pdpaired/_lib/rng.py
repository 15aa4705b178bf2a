"""Random streams: SPEC 7 normalization of ``rng`` and the one registry of stream addresses.

Every random number pdpaired draws comes from a child of the root
:class:`numpy.random.SeedSequence` built from the user's ``rng``, addressed by
a fixed tuple of words (``SeedSequence(entropy, spawn_key=address)``), never
consumed in turn: results then do not depend on batch sizes, thread counts,
engines or which other analyses ran. :data:`FAMILIES` is the only place that
knows these addresses; :data:`CHUNK` is the only bootstrap chunk size.

An address is ``(word, *index)``: ``word`` names the family (each family has
its own first word) and ``index`` has the family's fixed number of words, so
no two addresses of the registry are equal or a prefix of one another.

============================  ============  ===========================================
family                        address       what reads it
============================  ============  ===========================================
``bootstrap_chunk``           ``(0, k)``    index bootstrap, replicates ``CHUNK*k ...``
``bootstrap_stratum``         ``(1, h)``    multinomial bootstrap of stratum ``h``
``randomization_bits``        ``(2,)``      sign-flip bits of the randomization test
``randomization_stratum``     ``(3, h)``    binomial sign flips of stratum ``h``
(word 4)                                    never used
(word 5)                                    retired (prediction mode's own swap bits,
                                            before it read ``randomization_bits``)
``slice_bootstrap``           ``(6, d*4)``  derived: a slice's bootstrap (``d``: digest)
``slice_randomization``       ``(7, d*4)``  derived: a slice's randomization test
``report_bootstrap``          ``(8,)``      derived: the report's bootstrap
``report_randomization``      ``(9,)``      derived: the report's randomization test
``report_slices``             ``(10,)``     derived: the report's slices
``dask_poisson``              ``(11,)``     two words keying the Dask Poisson bootstrap
``dask_flips``                ``(12,)``     two words keying the Dask partition flips
``plan_simulation``           ``(18, h, k)`` planning: units of stratum ``h``, simulations
                                            ``PLAN_CHUNK*k ...`` (:mod:`pdpaired.core.planning`)
``plan_mcnemar``              ``(19,)``     planning: discordant counts of 0/1 scores
``plan_bootstrap``            ``(20,)``     derived: planning's bootstrap (prediction mode)
``slice_heterogeneity``       ``(24, d*4)`` permutations of slice labels, heterogeneity test
                                            of a slice column (``d``: digest of the column)
``report_sensitivity``        ``(25,)``     derived: the report's missing-outcome sensitivity
``repeat_runs``               ``(31, k, m)`` two-stage bootstrap: the runs of model ``m``
                                            (0: A, 1: B) redrawn in replicates
                                            ``CHUNK*k ...`` (:mod:`pdpaired.core.repeats`)
``calibration``               ``(32, b)``   double bootstrap: outer resample ``b`` and its
                                            inner resamples (:mod:`pdpaired.core.studentized`)
``audit``                     ``(33, b, j)`` design audit, simulation ``b``: ``j = 0`` draws its
                                            outer resample, ``j = 1`` is the root of the
                                            analyses run on it (:mod:`pdpaired.core.audit`)
``suite``                     ``(34, d*4)`` derived: the bootstrap of one task of a suite
                                            (``d``: digest of the task column and value)
``split``                     ``(40, h)``   selection / confirmation split: the units of
                                            stratum ``h`` shuffled (``df.paired.split``)
``crossed_levels``            ``(41, k, j)`` pigeonhole bootstrap: the levels of axis ``j``
                                            (0: cases, then each factor) drawn in
                                            replicates ``CHUNK*k ...``
                                            (:mod:`pdpaired.core.crossed`)
============================  ============  ===========================================

Results name the stream they read (``result.stream``, :func:`stream_name`):
``bootstrap`` (``bootstrap_chunk`` and ``bootstrap_stratum``: one stream,
two engines), ``randomization`` (``randomization_bits`` and
``randomization_stratum``, and prediction mode's swaps, which read the
same bits unit for unit), ``poisson-bootstrap``, ``partition-flips``,
``slice:<column>=<value>:bootstrap`` and ``...:randomization``,
``report:bootstrap``, ``report:randomization``, ``report:slices``,
``suite:<task column>=<task>:bootstrap`` (one task of a suite),
``two-stage-bootstrap`` (``bootstrap(..., resample_repeats=True)``: its
units from ``bootstrap_chunk``, its runs from ``repeat_runs``),
``pigeonhole-bootstrap`` (``bootstrap(..., resample_factors=True)``: cases and
every factor's levels from ``crossed_levels``); a slice
scan is ``slices`` (:data:`SLICE_SCAN`) and the streams of a report's
slices carry the prefix ``report:``.

A *derived* family does not feed a generator: its child yields a 63-bit
integer (:func:`derived_seed`) that seeds the nested analysis (a slice, a
part of a report) as if it were a seed, so that analysis reads the ordinary
families under a root of its own. The integer is internal: results record
the user's seed and the name of the stream (:func:`stream_name`), and the
same call with ``rng=result.seed`` reproduces them.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = [
    "CHUNK",
    "FAMILIES",
    "PLAN_CHUNK",
    "SLICE_SCAN",
    "Family",
    "SeedInfo",
    "address",
    "derived_seed",
    "normalize_rng",
    "pcg64_state",
    "slice_index",
    "stream_name",
    "stream_sequence",
    "stream_state",
    "stream_words",
]

#: Bootstrap replicates per random stream: chunk ``k`` reads ``bootstrap_chunk`` ``(0, k)``.
CHUNK = 64
#: Simulated comparisons per stream of ``plan_simulation``: chunk ``k`` reads ``(18, h, k)``.
PLAN_CHUNK = 32
#: The name of a slice scan's streams (``slice_bootstrap`` and ``slice_randomization``).
SLICE_SCAN = "slices"

_MASK64 = (1 << 64) - 1
_MASK63 = (1 << 63) - 1


@dataclass(frozen=True, slots=True)
class Family:
    """One family of child-stream addresses.

    Attributes
    ----------
    word : int
        The first word of every address of the family (unique in the registry).
    n_index : int
        How many index words follow it (fixed per family).
    derived : bool
        True when the child seeds a nested analysis (:func:`derived_seed`)
        instead of a generator.
    stream : str
        The name results show for this stream (``{slice}`` stands for the
        slice's ``column=value``).
    """

    word: int
    n_index: int
    derived: bool
    stream: str


#: Every child-stream address family, by name. Add a family here, never a literal elsewhere.
FAMILIES: Mapping[str, Family] = MappingProxyType(
    {
        "bootstrap_chunk": Family(0, 1, derived=False, stream="bootstrap"),
        "bootstrap_stratum": Family(1, 1, derived=False, stream="bootstrap"),
        "randomization_bits": Family(2, 0, derived=False, stream="randomization"),
        "randomization_stratum": Family(3, 1, derived=False, stream="randomization"),
        "slice_bootstrap": Family(6, 4, derived=True, stream="slice:{slice}:bootstrap"),
        "slice_randomization": Family(7, 4, derived=True, stream="slice:{slice}:randomization"),
        "report_bootstrap": Family(8, 0, derived=True, stream="report:bootstrap"),
        "report_randomization": Family(9, 0, derived=True, stream="report:randomization"),
        "report_slices": Family(10, 0, derived=True, stream="report:slices"),
        "dask_poisson": Family(11, 0, derived=False, stream="poisson-bootstrap"),
        "dask_flips": Family(12, 0, derived=False, stream="partition-flips"),
        "plan_simulation": Family(18, 2, derived=False, stream="plan:simulation"),
        "plan_mcnemar": Family(19, 0, derived=False, stream="plan:mcnemar"),
        "plan_bootstrap": Family(20, 0, derived=True, stream="plan:bootstrap"),
        "slice_heterogeneity": Family(24, 4, derived=False, stream="slice:{slice}:heterogeneity"),
        "report_sensitivity": Family(25, 0, derived=True, stream="report:sensitivity"),
        "repeat_runs": Family(31, 2, derived=False, stream="two-stage-bootstrap"),
        "calibration": Family(32, 1, derived=False, stream="calibration"),
        "audit": Family(33, 2, derived=False, stream="audit"),
        "suite": Family(34, 4, derived=True, stream="suite:{slice}:bootstrap"),
        "split": Family(40, 1, derived=False, stream="split"),
        "crossed_levels": Family(41, 2, derived=False, stream="pigeonhole-bootstrap"),
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class SeedInfo:
    """The normalized ``rng`` argument: what was recorded and the root sequence."""

    seed: int | None
    rng_state: dict[str, Any] | None
    seed_sequence: np.random.SeedSequence


def normalize_rng(rng: int | np.random.Generator | None) -> SeedInfo:
    """Normalize ``rng`` following SPEC 7 and record how to reproduce it.

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        An int is the seed. ``None`` draws fresh OS entropy as a 63-bit int and
        records it as the seed. A Generator is consumed (four 63-bit words) and
        its starting ``bit_generator.state`` is recorded; the seed is then None.

    Returns
    -------
    SeedInfo
    """
    if isinstance(rng, np.random.Generator):
        state = dict(rng.bit_generator.state)
        entropy = [int(x) for x in rng.integers(0, 2**63, size=4, dtype=np.int64)]
        return SeedInfo(seed=None, rng_state=state, seed_sequence=np.random.SeedSequence(entropy))
    if rng is None:
        seed = secrets.randbits(63)
    elif isinstance(rng, (bool, np.bool_)):
        msg = f"`rng` must be an int, a numpy.random.Generator or None; got {rng!r}."
        raise TypeError(msg)
    elif isinstance(rng, (int, np.integer)):
        seed = int(rng)
        if seed < 0:
            msg = f"`rng` must be a non-negative int seed; got {seed}."
            raise ValueError(msg)
    else:
        msg = (
            "`rng` must be an int, a numpy.random.Generator or None "
            f"(numpy.random.RandomState is not supported); got {type(rng).__name__}."
        )
        raise TypeError(msg)
    return SeedInfo(seed=seed, rng_state=None, seed_sequence=np.random.SeedSequence(seed))


def address(family: str, *index: int) -> tuple[int, ...]:
    """Return the address ``(word, *index)`` of a registered family, checking its arity."""
    fam = FAMILIES[family]
    if len(index) != fam.n_index:
        msg = f"stream family {family!r} takes {fam.n_index} index word(s); got {len(index)}."
        raise ValueError(msg)
    return (fam.word, *index)


def _child(root: np.random.SeedSequence, words: tuple[int, ...]) -> np.random.SeedSequence:
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *words))


def _direct(family: str, *index: int) -> tuple[int, ...]:
    if FAMILIES[family].derived:
        msg = f"stream family {family!r} is derived: use derived_seed()."
        raise ValueError(msg)
    return address(family, *index)


def stream_sequence(
    root: np.random.SeedSequence, family: str, *index: int
) -> np.random.SeedSequence:
    """Return the child of ``root`` that seeds the generator of ``family`` at ``index``."""
    return _child(root, _direct(family, *index))


def stream_state(
    root: np.random.SeedSequence, family: str, *index: int
) -> tuple[int, int, int, int]:
    """Return the PCG64 state words of :func:`stream_sequence` (see :func:`pcg64_state`)."""
    return pcg64_state(stream_sequence(root, family, *index))


def stream_words(root: np.random.SeedSequence, family: str, n: int) -> np.ndarray:
    """Return ``n`` uint64 words of the child of ``root`` for ``family`` (no index)."""
    return stream_sequence(root, family).generate_state(n, dtype=np.uint64)


def derived_seed(root: np.random.SeedSequence, family: str, *index: int) -> int:
    """Return the internal 63-bit seed of a nested analysis (a derived family).

    It is ``(w0 << 31) ^ w1`` masked to 63 bits, ``w0, w1`` the first two
    uint64 words of the child ``(word, *index)`` of ``root``. Never shown to
    users: the nested result records the user's seed and :func:`stream_name`.
    """
    fam = FAMILIES[family]
    if not fam.derived:
        msg = f"stream family {family!r} feeds a generator: use stream_sequence()."
        raise ValueError(msg)
    state = _child(root, address(family, *index)).generate_state(2, np.uint64)
    return int((int(state[0]) << 31) ^ int(state[1])) & _MASK63


def slice_index(column: str, value: Any) -> tuple[int, int, int, int]:
    """Return the index of slice ``(column, value)`` in the slice families.

    Four 32-bit words of the SHA-256 of ``column``, the value's type name
    and its ``repr``: stable across runs, and independent of which other
    slices exist. A NumPy scalar is taken as the Python scalar it holds and a
    whole-number float as the int it equals, so an integer column that pandas
    turns into floats (when a missing value appears) keeps its slices' streams.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    key = f"{column}\x1f{type(value).__name__}\x1f{value!r}".encode()
    digest = hashlib.sha256(key).digest()
    w = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return w[0], w[1], w[2], w[3]


def stream_name(family: str, slice_label: str | None = None, *, scope: str | None = None) -> str:
    """Return the stream name results show for ``family``.

    Parameters
    ----------
    family : str
        A key of :data:`FAMILIES`.
    slice_label : str, optional
        ``column=value`` of a slice (slice families only).
    scope : str, optional
        The enclosing analysis, e.g. ``"report"``: ``"report:slice:site=3:bootstrap"``.

    Returns
    -------
    str
    """
    template = FAMILIES[family].stream
    if ("{slice}" in template) != (slice_label is not None):
        need = "needed" if slice_label is None else "not used"
        msg = f"stream family {family!r}: a slice label is {need}."
        raise ValueError(msg)
    name = template if slice_label is None else template.replace("{slice}", slice_label)
    return name if scope is None else f"{scope}:{name}"


def pcg64_state(ss: np.random.SeedSequence, advance: int = 0) -> tuple[int, int, int, int]:
    """Return ``(state_hi, state_lo, inc_hi, inc_lo)`` of PCG64(ss) advanced by ``advance``."""
    bg = np.random.PCG64(ss)
    if advance:
        bg.advance(advance)
    st = bg.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    return s >> 64, s & _MASK64, inc >> 64, inc & _MASK64
