"""Moore's experiments (Figs. 1–4): the models' building blocks, and planted errors in every claim.

Each planted error (a wrong threshold, a wrong shrinkage, a wrong ring radius, a wrong soft threshold)
must turn its claim to "fails". The unpatched claims are run by ``test_claims.py``.
"""

import math

import numpy as np
import pytest

import symcheck.claims.moore_experiments as claims
import symcheck.models.moore_mf as mf
from symcheck.claims import get_claim
from symcheck.models.moore_scalar import GOLDEN, mfvi_optimum, mfvi_product, ring_radius, scalar_problem


def assert_fails(claim_id):
    result = get_claim(claim_id).run()
    assert result.status == "fails", f"{claim_id} still reports {result.status!r} with a planted error:\n{result.detail}"


# ----- planted errors ---------------------------------------------------------------------------


def test_threshold_catches_map_threshold_for_mfvi(monkeypatch):
    # MAP's collapse rule r − 1 in place of MFVI's r − 1 − 1/r
    monkeypatch.setattr(claims, "mfvi_product", lambda r: max(r - 1.0, 0.0))
    assert_fails("moore.fig13.mfvi-threshold")


def test_threshold_catches_wrong_nakajima_threshold(monkeypatch):
    monkeypatch.setattr(claims, "nakajima_threshold", lambda p: 1.5)
    assert_fails("moore.fig13.mfvi-threshold")


def test_ring_catches_wrong_radius(monkeypatch):
    # the stationarity condition without the Jacobian-like ½ log(1 + |u|²) term: t² = r²
    monkeypatch.setattr(claims, "ring_radius", lambda r: math.sqrt(max(abs(r) - 1, 0.0)))
    assert_fails("moore.fig2.ring")


@pytest.fixture
def small_problems(monkeypatch):
    """The Nakajima claim without Moore's 40×40 size (its coordinate ascent takes most of the claim's time)."""
    monkeypatch.setattr(claims, "_PROBLEMS", claims._PROBLEMS[:-1])


def test_nakajima_catches_shrinkage_one_percent_off(monkeypatch, small_problems):
    monkeypatch.setattr(claims, "nakajima_vb", lambda p, f=mf.nakajima_vb: tuple(0.99 * x for x in f(p)))
    assert_fails("moore.fig4.nakajima-vb")


def test_nakajima_catches_prior_without_sqrt_k(monkeypatch, small_problems):
    # c_a² c_b² = 1 (forgetting the 1/√k of Moore's scaling) in Nakajima's formulas
    monkeypatch.setattr(claims, "nakajima_vb",
                        lambda p, f=mf.nakajima_vb: f(mf.MFProblem(p.R, p.k, p.sigma2, 1.0)))
    assert_fails("moore.fig4.nakajima-vb")


def test_map_catches_threshold_without_sqrt_k(monkeypatch):
    monkeypatch.setattr(claims, "map_closed_form",
                        lambda p, f=mf.map_closed_form: f(mf.MFProblem(p.R, p.k, p.sigma2, 1.0)))
    assert_fails("moore.fig4.map-soft-threshold")


def test_map_catches_half_threshold(monkeypatch):
    monkeypatch.setattr(claims, "map_closed_form",
                        lambda p, f=mf.map_closed_form: f(mf.MFProblem(p.R, p.k, p.sigma2, 2 * p.gain)))
    assert_fails("moore.fig4.map-soft-threshold")


# ----- building blocks --------------------------------------------------------------------------


def test_scalar_closed_forms():
    assert mfvi_product(1.5) == 0.0 and mfvi_product(GOLDEN) == 0.0
    assert mfvi_product(2.0) == pytest.approx(0.5, abs=1e-15)
    mu, mv, lu, lv = mfvi_optimum(3.0)
    assert mu * mv == pytest.approx(mfvi_product(3.0), rel=1e-14) and math.exp(lu) == pytest.approx(1 / 3)
    assert ring_radius(1.0) == 0.0 and ring_radius(2.0) == pytest.approx(0.7493682758, rel=1e-9)


def test_mfvi_fixed_point_is_coordinate_optimal():
    # at the closed-form optimum, one coordinate-ascent update leaves (m, s) unchanged
    for r in (1.0, 2.5):
        mu, mv, lu, lv = mfvi_optimum(r)
        sv = math.exp(lv)
        su = 1 / (1 + mv * mv + sv)
        assert su == pytest.approx(math.exp(lu), rel=1e-14) and r * mv * su == pytest.approx(mu, abs=1e-14)


def test_elbo_factorised_matches_monte_carlo():
    rng = np.random.default_rng(3)
    p, _ = mf.sample_problem(4, 3, 2, 0.7, rng)
    Mu, Mv = rng.standard_normal((4, 2)), rng.standard_normal((3, 2))
    Su, Sv = rng.uniform(0.1, 1, (4, 2)), rng.uniform(0.1, 1, (3, 2))
    n = 200_000
    U = Mu + np.sqrt(Su) * rng.standard_normal((n, 4, 2))
    V = Mv + np.sqrt(Sv) * rng.standard_normal((n, 3, 2))
    res = p.R - p.gain * U @ np.swapaxes(V, 1, 2)
    log_joint = (-0.5 * (np.sum(U**2, axis=(1, 2)) + np.sum(V**2, axis=(1, 2))) - 0.5 * 14 * math.log(2 * math.pi)
                 - 0.5 * 12 * math.log(2 * math.pi * p.sigma2) - 0.5 * np.sum(res**2, axis=(1, 2)) / p.sigma2)
    entropy = 0.5 * np.sum(np.log(2 * math.pi * math.e * Su)) + 0.5 * np.sum(np.log(2 * math.pi * math.e * Sv))
    mc, se = log_joint.mean() + entropy, log_joint.std() / math.sqrt(n)
    assert abs(mf.elbo_factorised(Mu, Mv, Su, Sv, p) - mc) < 4.5 * se


@pytest.mark.parametrize("form", mf.FORMS)
def test_symvi_kl_gradient_matches_finite_differences(form):
    rng = np.random.default_rng(4)
    M, E, lc = rng.standard_normal((6, 2)), rng.standard_normal((3, 6, 2)), math.log(0.4)
    kl, gM, gc = mf.symvi_kl(M, lc, E, form, "exact")
    h = 1e-6
    for i, j in ((0, 0), (3, 1), (5, 0)):
        D = np.zeros_like(M)
        D[i, j] = h
        fd = (mf.symvi_kl(M + D, lc, E, form, "exact")[0] - mf.symvi_kl(M - D, lc, E, form, "exact")[0]) / (2 * h)
        assert gM[i, j] == pytest.approx(fd, abs=1e-6)
    fd = (mf.symvi_kl(M, lc + h, E, form, "exact")[0] - mf.symvi_kl(M, lc - h, E, form, "exact")[0]) / (2 * h)
    assert gc == pytest.approx(fd, abs=1e-6)


def test_symvi_kl_matches_orthogonal_module():
    # the corrected r of symvi_kl is orthogonal.moore_r (independent implementation) on the same draws
    from symcheck.orthogonal import moore_r

    rng = np.random.default_rng(5)
    M, E, c = rng.standard_normal((5, 2)), rng.standard_normal((4, 5, 2)), 0.3
    for form in mf.FORMS:
        ref = np.mean(moore_r(M + math.sqrt(c) * E, M, c, form=form, method="exact"))
        assert mf.symvi_kl(M, math.log(c), E, form, "exact")[0] == pytest.approx(ref, rel=1e-12)


def test_symvi_fit_improves_on_its_isotropic_start():
    # eq. (5) = eq. (2) + KL ≥ eq. (2): the SymVI optimum's objective is at least the isotropic MFVI ELBO
    rng = np.random.default_rng(6)
    p, _ = mf.sample_problem(6, 6, 2, 1.5, rng)
    iso = mf.fit_isotropic(p, rng)
    sym = mf.fit_symvi(p, rng, method="exact", n_draws=8, start=iso)
    assert iso.converged and sym.converged and sym.elbo >= iso.elbo


def test_scalar_problem_is_the_matrix_model():
    p = scalar_problem(2.0)
    assert p.R.shape == (1, 1) and p.gain == 1.0 and p.sigma2 == 1.0


@pytest.mark.parametrize("kwargs, name", [
    (dict(R=np.ones(3), k=1, sigma2=1.0, gain=1.0), "R"),
    (dict(R=np.ones((2, 2)), k=0, sigma2=1.0, gain=1.0), "k"),
    (dict(R=np.ones((2, 2)), k=1, sigma2=-1.0, gain=1.0), "sigma2"),
    (dict(R=np.ones((2, 2)), k=1, sigma2=1.0, gain=0.0), "gain"),
    (dict(R=np.array([[np.nan]]), k=1, sigma2=1.0, gain=1.0), "R"),
])
def test_bad_problem_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mf.MFProblem(**kwargs)


def test_bad_form_names_the_argument():
    with pytest.raises(ValueError, match="form"):
        mf.symvi_kl(np.ones((3, 2)), 0.0, np.ones((2, 3, 2)), form="symmetrised")
