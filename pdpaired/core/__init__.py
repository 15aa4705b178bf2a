"""The statistics core: aligned NumPy arrays or unit tables in, frozen results out.

One module per method family (bootstrap, randomization, exact tests, score
intervals, DeLong, several models, planning, confidence sequences, repeated
runs, metrics), the resampling engine and its optional numba kernels. No
module here knows a column name.
"""
