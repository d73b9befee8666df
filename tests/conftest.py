"""Shared fixtures: one seeded generator per test, derived from the test's node id."""

import pytest

from symcheck.evidence import claim_rng


@pytest.fixture
def rng(request):
    """A reproducible numpy Generator, distinct for every test."""
    return claim_rng(request.node.nodeid)
