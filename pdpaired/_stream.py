"""Seeds: SPEC 7 normalization of ``rng`` and the streams derived from it.

Every random stream of an analysis is a PCG64 generator seeded by a child of
the root :class:`numpy.random.SeedSequence`, addressed by a fixed tuple (see
:func:`child_sequence`): bootstrap index chunk ``k`` is ``(0, k)``, the
multinomial stream of stratum ``h`` is ``(1, h)``, the randomization bit
stream is ``(2,)`` and its binomial stream for stratum ``h`` is ``(3, h)``.
Because streams are addressed, not consumed in turn, results do not depend on
batch sizes, thread counts or which engine runs.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SeedInfo", "child_sequence", "normalize_rng", "pcg64_state"]

_MASK64 = (1 << 64) - 1


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


def child_sequence(root: np.random.SeedSequence, *words: int) -> np.random.SeedSequence:
    """Return the child of ``root`` addressed by ``words`` (stable, order free)."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *words))


def pcg64_state(ss: np.random.SeedSequence, advance: int = 0) -> tuple[int, int, int, int]:
    """Return ``(state_hi, state_lo, inc_hi, inc_lo)`` of PCG64(ss) advanced by ``advance``."""
    bg = np.random.PCG64(ss)
    if advance:
        bg.advance(advance)
    st = bg.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    return s >> 64, s & _MASK64, inc >> 64, inc & _MASK64
