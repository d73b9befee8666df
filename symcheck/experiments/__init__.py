"""Experiments behind report sections whose results are kept in the report's result cache (symcheck/report/cache.py)."""
