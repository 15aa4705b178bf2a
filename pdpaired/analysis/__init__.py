"""The analysis layer: one :class:`~pdpaired.Comparison` over any pairs backend.

Its constructor, the measures it estimates (means, corpus metrics, repeated
runs), slices, several models, planning, sensitivity and sequential
monitoring.
"""
