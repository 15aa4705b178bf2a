"""The Dask backend of the pairs protocol: a long Dask table reduced to pairs by graphs."""
