"""The papers' models (Turner, Berkes & Sahani: two-chain LDS, factor analysis, ICA; and others)."""
