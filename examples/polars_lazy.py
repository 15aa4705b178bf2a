"""Compare two models on a Parquet log with polars: a lazy scan, reduced before pandas.

Writes a Parquet evaluation log (three models, 2,000 cases each, a score, a
prompt group, a language and a column no analysis reads) to a temporary
directory, then runs the same analyses on

* ``pl.scan_parquet(...)`` (a ``LazyFrame``: polars' streaming engine reads
  only the columns the analysis names and the rows of the two compared models),
* ``pl.read_parquet(...)`` (an eager ``DataFrame``), and
* ``pd.read_parquet(...)`` (the pandas accessor),

and prints that the three give the same numbers, bit for bit: a cluster
bootstrap over prompt groups and a slice per language. Run it as
``python examples/polars_lazy.py`` (needs ``pip install pdpaired[polars]``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

import pdpaired  # noqa: F401  (registers df.paired on pandas and polars tables)

rng = np.random.default_rng(0)
n = 2000
base = rng.normal(size=n)
log = pd.concat(
    [
        pd.DataFrame({
            "case_id": np.arange(n),
            "model": name,
            "score": base + rng.normal(shift, 1.0, n),
            "group": np.arange(n) // 20,  # prompts from 100 templates
            "lang": np.array(["de", "en", "fr"])[np.arange(n) % 3],
            "raw_output": "...",  # what a log holds and no analysis reads
        })
        for name, shift in (("candidate", 0.1), ("baseline", 0.0), ("other", -0.3))
    ],
    ignore_index=True,
)  # fmt: skip

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "log.parquet"
    log.to_parquet(path)
    tables = {
        "polars LazyFrame": pl.scan_parquet(path),
        "polars DataFrame": pl.read_parquet(path),
        "pandas DataFrame": pd.read_parquet(path),
    }
    kw = {"higher_is_better": True, "rng": 1, "n_resamples": 2000}
    boots = {k: t.paired.bootstrap("candidate", "baseline", unit="group", **kw)
             for k, t in tables.items()}  # fmt: skip
    slices = {k: t.paired.by_slice("candidate", "baseline", columns="lang", **kw)
              for k, t in tables.items()}  # fmt: skip

ref = boots["pandas DataFrame"]
print(ref)
for name in tables:
    same = bool(
        boots[name].confidence_interval == ref.confidence_interval
        and np.array_equal(boots[name].bootstrap_distribution, ref.bootstrap_distribution)
        and slices[name].table.equals(slices["pandas DataFrame"].table)
    )
    print(f"{name}: same interval, replicates and slices as pandas: {same}")
    assert same
print(slices["polars LazyFrame"].table[["value", "n", "improvement"]].to_string(index=False))
