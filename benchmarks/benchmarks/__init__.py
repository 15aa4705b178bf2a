"""pdpaired's benchmark suite: one module per method family, asv-style classes.

Run it with asv (``asv run`` from ``benchmarks/``) or with ``benchmarks/targets.py``,
which times the same classes in-process and prints the same-run ratio tables and
the targets table. ``PDPAIRED_BENCH_MODE`` (tiny, quick, default, full) sets the sizes.
"""
