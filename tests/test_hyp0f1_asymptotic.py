"""The large-σ expansion of log ₀F₁ (symcheck.hyp0f1.asymptotic) and its Wick engine (wick.py).

Independent routes: explicit ad matrices on so(k) (trace identities, the Jacobian of exp by a
matrix power series), mpmath Taylor coefficients (c_p), tensor-product Gauss–Hermite quadrature
(the Gaussian cumulants T₁, T₂, T₃ for k = 3, 4: exact for these polynomial degrees), the exact
k = 2, 3 forms (gradients). Each claim on the expansion is also run with a planted error.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from symcheck.claims import get_claim, z_for_alpha
from symcheck.evidence import ROUNDING
from symcheck.hyp0f1 import asymptotic, closed_form, closed_form_mp, expmap, wick

EPS = np.finfo(float).eps


# --- so(k) machinery: ad matrices, trace identities, the Jacobian of exp --------------------

def _ad_matrices(big):
    """ad_Θ on so(k) in the basis E_b = e_i e_jᵀ − e_j e_iᵀ (i < j): (n, N, N), explicit."""
    n, k, _ = big.shape
    iu, ju = np.triu_indices(k, 1)
    out = np.empty((n, iu.size, iu.size))
    for b, (i, j) in enumerate(zip(iu, ju)):
        e = np.zeros((k, k))
        e[i, j], e[j, i] = 1.0, -1.0
        comm = big @ e - e @ big
        out[:, :, b] = comm[:, iu, ju]
    return out


def _trace_words(big, words):
    """∏ tr(Θ^m) over plain words (0, m) (tr Θ⁰ = k)."""
    k = big.shape[1]
    val = np.ones(big.shape[0])
    for marked, m in words:
        assert marked == 0
        val = val * np.trace(np.linalg.matrix_power(big, m), axis1=1, axis2=2) if m else val * k
    return val


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("p", [1, 2, 3, 4])
def test_ad_trace_identity(k, p, rng):
    """tr_so(k)(ad^{2p}) = ½Σ C(2p,j) tr Θ^{2p−j} tr Θ^j − 2^{2p−1} tr Θ^{2p}, against the explicit ad matrix."""
    big = expmap.skew_from_theta(rng.standard_normal((5, k * (k - 1) // 2)), k)
    ad = _ad_matrices(big)
    direct = np.trace(np.linalg.matrix_power(ad, 2 * p), axis1=1, axis2=2)
    ident = sum(float(c) * _trace_words(big, words) for c, words in asymptotic.ad_trace_monomials(p))
    # |tr M^m| rounding ≤ m·n²·eps·‖M‖₂^m for each trace; the coefficients sum to at most 2^{2p}·(k + 1)
    m = 2 * p
    bound = (m * ad.shape[1] ** 2 * np.linalg.norm(ad, 2, axis=(1, 2)) ** m
             + 2**m * (k + 1) * m * k**2 * np.linalg.norm(big, 2, axis=(1, 2)) ** m)
    assert np.all(np.abs(direct - ident) <= 4 * EPS * bound)


def test_ad_trace_identity_catches_a_wrong_coefficient(rng):
    """Planted: −2^{2p−1} → −2^{2p−2} in the identity for p = 2 must disagree with the ad matrix."""
    k = 5
    big = expmap.skew_from_theta(rng.standard_normal((3, 10)), k)
    direct = np.trace(np.linalg.matrix_power(_ad_matrices(big), 4), axis1=1, axis2=2)
    wrong = [(c if words != ((0, 4),) else c / 2, words) for c, words in asymptotic.ad_trace_monomials(2)]
    ident = sum(float(c) * _trace_words(big, words) for c, words in wrong)
    assert np.all(np.abs(direct - ident) > 1e-6 * np.abs(direct))


def test_log_jacobian_coefficients_match_mpmath_taylor():
    """c_p = B_{2p}/(2p(2p)!) against mpmath's Taylor coefficients of log(sinh(x/2)/(x/2))."""
    mpmath.mp.dps = 40
    try:
        taylor = mpmath.taylor(lambda x: mpmath.log(mpmath.sinh(x / 2) / (x / 2)) if x else mpmath.mpf(0), 0, 10)
    finally:
        mpmath.mp.dps = 15
    for p in range(1, 6):
        c = asymptotic.log_jacobian_coefficient(p)
        assert abs(float(c) - float(taylor[2 * p])) <= 4 * EPS * abs(float(c))
    assert asymptotic.log_jacobian_coefficient(3) == Fraction(1, 181440)


@pytest.mark.parametrize("k", [3, 4, 5, 6, 8])
def test_exp_jacobian_from_angles_matches_matrix_series(k, rng):
    """log J from the rotation angles vs log det(sinh(ad/2)/(ad/2)) by its matrix power series."""
    theta = 0.6 * rng.standard_normal((4, k * (k - 1) // 2))
    big = expmap.skew_from_theta(theta, k)
    phi = expmap.rotation_angles(big)
    assert np.all(phi.max(axis=1) < np.pi)
    half = _ad_matrices(big) / 2
    term = np.broadcast_to(np.eye(half.shape[1]), half.shape).copy()
    series = term.copy()
    sq = half @ half
    for j in range(1, 60):  # sinh(x)/x = Σ x^{2j}/(2j+1)!; ‖ad/2‖ < 2π/2 here, 60 terms leave < 1e-30
        term = term @ sq / ((2 * j) * (2 * j + 1))
        series = series + term
    direct = np.linalg.slogdet(series)[1]
    got = expmap.log_exp_jacobian(phi, k)
    assert np.all(np.abs(got - direct) <= 1e3 * EPS * (1 + np.abs(direct)))


def test_exp_jacobian_series_truncation(rng):
    """log J − Σ_{p≤3} c_p tr(ad^{2p}) is within the first omitted term's bound for small Θ."""
    k = 5
    big = expmap.skew_from_theta(0.05 * rng.standard_normal((4, 10)), k)
    ad = _ad_matrices(big)
    phi = expmap.rotation_angles(big)
    approx = sum(float(asymptotic.log_jacobian_coefficient(p)) * np.trace(np.linalg.matrix_power(ad, 2 * p),
                                                                           axis1=1, axis2=2) for p in (1, 2, 3))
    rho = np.linalg.norm(ad, 2, axis=(1, 2))
    # |c_p| ≤ 2/(2π)^{2p} (radius of convergence 2π), so the tail is ≤ N·2(ρ/2π)^8/(1 − (ρ/2π)²)
    tail = ad.shape[1] * 2 * (rho / (2 * np.pi)) ** 8 / (1 - (rho / (2 * np.pi)) ** 2)
    assert np.all(np.abs(expmap.log_exp_jacobian(phi, k) - approx) <= tail + ROUNDING)


def _skew_test_set(k, rng):
    """60 skew k×k matrices: 50 with N(0, 0.4²) entries, 10 = Q·(angles 1e-9, 0.5 … 2.5)·Qᵀ, one angle
    near 0 (where √ of a rounded φ² is only good to √eps), Q Haar from the QR of a Gaussian matrix."""
    m = k // 2
    big = [expmap.skew_from_theta(0.4 * rng.standard_normal((50, k * (k - 1) // 2)), k)]
    for _ in range(10):
        block = np.zeros((k, k))
        for a, ang in enumerate(np.concatenate([[1e-9], rng.uniform(0.5, 2.5, m - 1)])):
            block[2 * a, 2 * a + 1], block[2 * a + 1, 2 * a] = ang, -ang
        q, r = np.linalg.qr(rng.standard_normal((k, k)))
        q = q * np.sign(np.diag(r))
        big.append((q @ block @ q.T)[None])
    big = np.concatenate(big)
    return 0.5 * (big - big.transpose(0, 2, 1))


def _complex_route(big):
    """The spectrum λ of −iΘ (complex Hermitian eigvalsh): angles (pairs of sorted |λ|, the 0 of odd k
    skipped), log J = Σ_{i<j} log |sinc((λᵢ + λⱼ)/2)| over all pairs, and max |λ|."""
    k = big.shape[1]
    lam = np.linalg.eigvalsh(-1j * big)
    mag = np.sort(np.abs(lam), axis=1)[:, k % 2:]
    iu, ju = np.triu_indices(k, 1)
    with np.errstate(divide="ignore"):
        log_j = np.sum(np.log(np.abs(np.sinc((lam[:, iu] + lam[:, ju]) / (2 * np.pi)))), axis=1)
    return 0.5 * (mag[:, 0::2] + mag[:, 1::2]), log_j, np.abs(lam).max(axis=1)


def _angle_route_bounds(big):
    """Rounding bounds for comparing the real route (eigvalsh of −Θ², :func:`expmap.rotation_angles`)
    with :func:`_complex_route`: on the squared angles u = φ², and on log J.

    Real route: fl(Θ·Θ) is within k·eps·|Θ|ᵀ|Θ| (2-norm ≤ ‖Θ‖_F²), the symmetric eigensolver adds a
    backward error p(k)·eps·‖Θ‖₂² (p(k) taken as k), √ and the pair average one eps each: |Δu| ≤
    (2k + 2)·eps·‖Θ‖_F². Complex route: |Δλ| ≤ k·eps·‖Θ‖₂, so |Δ(λ²)| ≤ (2‖Θ‖₂ + k·eps·‖Θ‖₂)·k·eps·‖Θ‖₂.
    log J: with ℓ(x) = log sinc x, −ℓ''(x) = csc²x − 1/x² is increasing on [0, π), M its value at x₀
    = max φ (every argument is ≤ x₀). J is even in each φₐ; |∂ log J/∂uₐ| ≤ M·m/2 (m = ⌊k/2⌋: each
    pair term's φₐ-derivative is ℓ'(x) + ℓ'(y), x + y = φₐ, at most φₐ·M; the odd-k term's is
    ℓ'(φₐ/2), at most φₐ·M/2), so the real route is within M·m²/2·|Δu|. The complex route's
    k(k−1)/2 terms each move by ≤ |ℓ'|·|Δλ| ≤ x₀·M·|Δλ|. Each evaluated log sinc and sum adds
    ~eps·(1 + |log J|) per term: k²·eps·(1 + |log J|) for both.
    """
    k = big.shape[1]
    m = k // 2
    fro2 = np.sum(big**2, axis=(1, 2))
    norm2 = np.linalg.norm(big, 2, axis=(1, 2))
    d_lam = k * EPS * norm2
    du_real = (2 * k + 2) * EPS * fro2
    du = du_real + (2 * norm2 + d_lam) * d_lam
    _, log_j, x0 = _complex_route(big)
    big_m = 1 / np.sin(x0) ** 2 - 1 / x0**2
    d_log_j = big_m * (m * m / 2 * du_real + k * (k - 1) / 2 * x0 * d_lam) + k * k * EPS * (1 + np.abs(log_j))
    return du, d_log_j


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 8])
def test_rotation_angles_and_jacobian_match_the_complex_spectrum(k, rng):
    """Angles from eigvalsh(−Θ²) and log J from them vs the spectrum of −iΘ (complex Hermitian, the
    route they replace) within the rounding bounds of `_angle_route_bounds`, also with an angle of 1e-9."""
    big = _skew_test_set(k, rng)
    phi_c, log_j_c, x0 = _complex_route(big)
    assert np.all(x0 < np.pi)
    du, d_log_j = _angle_route_bounds(big)
    phi = expmap.rotation_angles(big)
    assert phi.shape == (big.shape[0], k // 2) and np.all(np.diff(phi, axis=1) >= 0)
    assert np.all(np.abs(phi**2 - phi_c**2) <= du[:, None])
    assert np.all(np.abs(expmap.log_exp_jacobian(phi, k) - log_j_c) <= d_log_j)


def _known_angles(k, rng, n=200):
    """Skew Θ = Q·blockdiag(φ₁J, φ₂J[, 0])·Qᵀ with known angles φ₁ < φ₂ in [0.05, 3.1], at least 0.1 apart, Q Haar
    (QR of a Gaussian matrix with the sign fix): its upper-triangle entries and the angles."""
    thetas, phis = [], []
    j = np.array([[0.0, 1.0], [-1.0, 0.0]])
    while len(phis) < n:
        phi = np.sort(rng.uniform(0.05, 3.1, 2))
        if phi[1] - phi[0] < 0.1:
            continue
        block = np.zeros((k, k))
        block[:2, :2], block[2:4, 2:4] = phi[0] * j, phi[1] * j
        q, r = np.linalg.qr(rng.standard_normal((k, k)))
        q *= np.sign(np.diag(r))
        big = q @ block @ q.T
        thetas.append(big[np.triu_indices(k, 1)])
        phis.append(phi)
    return np.array(thetas), np.array(phis)


@pytest.mark.parametrize("k", [4, 5])
def test_pfaffian_angles_recover_known_angles(k, rng, monkeypatch):
    """The Pfaffian route returns the angles a skew matrix was built with. Bound: s = Σθ² and 2√p carry at most
    ~50 roundings of size eps·s, and φ₂ ± φ₁ = √(s ± 2√p) moves by that over 2(φ₂ ± φ₁) ≥ 2·0.1 (construction's
    rounding included); 4× margin. Planted: the middle Pfaffian term with the wrong sign."""
    theta, phi = _known_angles(k, rng)
    s = np.sum(theta**2, axis=1)
    bound = 4 * 50 * EPS * s / (2 * 0.1)
    assert np.all(np.abs(expmap.pfaffian_angles(theta, k) - phi) <= bound[:, None])
    monkeypatch.setattr(expmap, "_PFAFFIAN_TERMS", ((1.0, (0, 1), (2, 3)), (1.0, (0, 2), (1, 3)), (1.0, (0, 3), (1, 2))))
    assert not np.all(np.abs(expmap.pfaffian_angles(theta, k) - phi) <= bound[:, None])


def test_pfaffian_angles_refuse_other_k():
    with pytest.raises(ValueError, match="k"):
        expmap.pfaffian_angles(np.zeros((1, 15)), 6)


def _expm_diagonal_mp(big):
    """diag(e^Θ) of each matrix by mpmath.expm at 30 digits (error far below float64)."""
    with mpmath.workdps(30):
        return np.array([[float(v) for v in np.diag(mpmath.expm(mpmath.matrix(m.tolist())).tolist())] for m in big])


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_exp_diagonal_matches_mpmath_expm(k, rng):
    """diag(e^Θ) = Σₘ W_{im}² cos √μₘ from the eigendecomposition of −Θ² vs mpmath's expm, also with an
    angle of 1e-9 (a repeated eigenvalue near 0), and its angles vs `expmap.rotation_angles`.

    Bound: fl(Θ·Θ) and the eigensolver's backward error (p(k) taken as k) move −Θ² by ≤ 2k·eps·‖Θ‖_F²
    in Frobenius norm, and cos √μ has |d/dμ| ≤ ½, so the matrix function moves by ≤ k·eps·‖Θ‖_F²
    (Fréchet derivative of a symmetric matrix function bounded by sup |f'|); W's loss of orthogonality
    and the k-term sums add ≤ 3k·eps. Planted: cos μ for cos √μ.
    """
    big = _skew_test_set(k, rng)[::6]
    ref = _expm_diagonal_mp(big)
    tol = (k * EPS * np.sum(big**2, axis=(1, 2)) + 3 * k * EPS)[:, None]
    diag, phi = expmap.exp_diagonal(big)
    assert np.all(np.abs(diag - ref) <= tol)
    # both angle routes are within (2k + 2)·eps·‖Θ‖_F² of the true φ² (`_angle_route_bounds`)
    fro2 = np.sum(big**2, axis=(1, 2))[:, None]
    assert np.all(np.abs(phi**2 - expmap.rotation_angles(big) ** 2) <= 2 * (2 * k + 2) * EPS * fro2)
    mu, w = np.linalg.eigh(-(big @ big))
    planted = np.einsum("nim,nm->ni", w**2, np.cos(mu))
    moved = phi.max(axis=1) > 0.1  # cos μ ≈ cos √μ ≈ 1 where every angle is tiny
    assert np.all(np.abs(planted - ref).max(axis=1)[moved] > tol[moved, 0]) and np.sum(moved) >= 8


@pytest.mark.parametrize("k", [5, 7])
def test_angle_route_bounds_catch_planted_errors(k, rng):
    """Planted, odd k: pairs taken without skipping the 0 of −Θ² (angles), and log J without its
    sinc((φₐ − φ_b)/2) terms, must break the bounds the true routes meet."""
    big = _skew_test_set(k, rng)
    phi_c, log_j_c, _ = _complex_route(big)
    du, d_log_j = _angle_route_bounds(big)
    mu = np.linalg.eigvalsh(-(big @ big))
    unskipped = np.sqrt(np.maximum(0.5 * (mu[:, 0:-1:2] + mu[:, 1::2]), 0.0))
    assert np.all(np.abs(unskipped**2 - phi_c**2).max(axis=1) > du)
    phi = expmap.rotation_angles(big)
    ia, ib = np.triu_indices(k // 2, 1)
    no_diff = expmap.log_exp_jacobian(phi, k) - 2 * np.sum(np.log(np.sinc((phi[:, ia] - phi[:, ib]) / (2 * np.pi))),
                                                           axis=1)
    assert np.all(np.abs(no_diff - log_j_c) > d_log_j)


# --- the Wick engine against Gauss–Hermite quadrature ---------------------------------------

def _gh_terms(s, k, n_gh=7):
    """T₁, T₂, T₃ for θᵢⱼ ~ N(0, 1/(sᵢ+sⱼ)) by tensor Gauss–Hermite quadrature, with a rounding bound.

    Φ_p = tr(SΘ^{2p+2})/(2p+2)! + c_p tr(ad^{2p}) with the explicit ad matrix; n_gh = 7 nodes per
    variable integrate polynomials of degree ≤ 13 in each θ exactly (Φ₁³ has degree 12).
    """
    iu, ju = np.triu_indices(k, 1)
    v = 1.0 / (s[iu] + s[ju])
    x, w = np.polynomial.hermite_e.hermegauss(n_gh)
    w = w / math.sqrt(2 * math.pi)
    grids = np.meshgrid(*([x] * iu.size), indexing="ij")
    nodes = np.stack([g.ravel() for g in grids], axis=1) * np.sqrt(v)
    wts = np.prod(np.stack(np.meshgrid(*([w] * iu.size), indexing="ij"), axis=-1).reshape(-1, iu.size), axis=1)
    big = expmap.skew_from_theta(nodes, k)
    ad = _ad_matrices(big)
    phi = []
    for p in (1, 2, 3):
        sig_part = np.einsum("i,nii->n", s, np.linalg.matrix_power(big, 2 * p + 2)) / math.factorial(2 * p + 2)
        jac = float(mpmath.taylor(lambda t: mpmath.log(mpmath.sinh(t / 2) / (t / 2)) if t else mpmath.mpf(0),
                                  0, 2 * p)[2 * p])
        phi.append(sig_part + jac * np.trace(np.linalg.matrix_power(ad, 2 * p), axis1=1, axis2=2))
    f1, f2, f3 = phi

    def e(x_):
        return float(np.sum(wts * x_)), float(np.sum(wts * np.abs(x_)))

    (m1, a1), (m11, a11), (m111, a111) = e(f1), e(f1 * f1), e(f1**3)
    (m2, a2), (m12, a12), (m3, a3) = e(f2), e(f1 * f2), e(f3)
    t1 = m1
    t2 = m2 + 0.5 * (m11 - m1 * m1)
    t3 = m3 + (m12 - m1 * m2) + (m111 - 3 * m11 * m1 + 2 * m1**3) / 6
    # each weighted sum (pairwise summation of n terms, each a product of ~30 roundings) is off by
    # ≤ (log2 n + 30)·eps·Σ|w f|; propagated through the cumulant formulas with absolute values
    g = (math.log2(wts.size) + 30) * EPS
    b1 = g * a1
    b2 = g * (a2 + 0.5 * (a11 + 2 * a1 * abs(m1)))
    b3 = g * (a3 + a12 + a1 * abs(m2) + abs(m1) * a2 + (a111 + 3 * (a11 * abs(m1) + m11 * a1) + 6 * m1 * m1 * a1) / 6)
    return np.array([t1, t2, t3]), np.array([b1, b2, b3])


@pytest.mark.parametrize("s", [[2.0, 1.3, 0.7], [3.0, 2.0, -0.5], [3.0, 2.0, 1.5, 1.0], [4.0, 2.5, 2.0, -1.5]],
                         ids=["k3", "k3-flipped", "k4", "k4-flipped"])
def test_wick_terms_match_gauss_hermite(s):
    """T_p from the cached Wick patterns = T_p from quadrature of the cumulants, both cosets' sign patterns."""
    s = np.array(s)
    k = s.size
    ref, ref_err = _gh_terms(s, k)
    v = 1.0 / (s[:, None] + s[None, :])
    np.fill_diagonal(v, 0.0)
    for p in (1, 2, 3):
        val, rnd = wick.evaluate(asymptotic.order_patterns(p), s[None, :], v[None])
        assert abs(val[0] - ref[p - 1]) <= rnd[0] + ref_err[p - 1], (p, val[0], ref[p - 1])


def test_k4_kernel_matches_einsum(rng):
    """The Numba K₄ contraction against numpy's einsum over all four indices."""
    w = rng.random((4, 3, 5))
    m = rng.random((6, 3, 5, 5))
    out = np.empty(3)
    wick._k4_kernel(w, m, out)
    ref = np.einsum("za,zb,zc,zd,zab,zac,zad,zbc,zbd,zcd->z", *w, *m)
    # all terms positive: each of the 5⁴ products and sums is off by ≤ (10 + 4·5)·eps relative
    assert np.allclose(out, ref, rtol=30 * EPS, atol=0)


def test_wick_simple_moments():
    """E[tr Θ²] = −Σ_ab v_ab and E[tr(SΘ²)] = −Σ_ab s_a v_ab by hand; odd words vanish."""
    s = np.array([[1.0, 2.0, 3.5]])
    v = np.array([[[0.0, 0.3, 0.2], [0.3, 0.0, 0.5], [0.2, 0.5, 0.0]]])
    one = Fraction(1)
    val, _ = wick.evaluate(wick.cumulant_patterns((((one, ((0, 2),)),),)), s, v)
    assert val[0] == pytest.approx(-v.sum(), rel=4 * EPS)
    val, _ = wick.evaluate(wick.cumulant_patterns((((one, ((1, 2),)),),)), s, v)
    assert val[0] == pytest.approx(-(s[0][:, None] * v[0]).sum(), rel=4 * EPS)
    assert wick.cumulant_patterns((((one, ((1, 3),)),),)) == {}


# --- the expansion: API, shapes, bad input, gradient ----------------------------------------

def test_order_and_k1_and_invalid_rows():
    sig = np.array([[300.0, 200.0, 100.0], [3.0, 0.0, 0.0]])
    for order in range(asymptotic.MAX_ORDER + 1):
        val, err = asymptotic.log_hyp0f1_asymptotic(sig, 3, order, return_error=True)
        assert np.isfinite(val[0]) and np.isfinite(err[0]) and val[1] == np.inf and err[1] == np.inf
        assert np.array_equal(err, asymptotic.asymptotic_error_estimate(sig, 3, order))
    one = np.array([[0.5], [30.0]])
    assert np.allclose(asymptotic.log_hyp0f1_asymptotic(one, 1, 3), np.log(np.cosh(one[:, 0])), rtol=4 * EPS)


@pytest.mark.parametrize("order", [-1, 4, 1.5, True, "2"])
def test_bad_order(order):
    with pytest.raises(ValueError, match="order"):
        asymptotic.log_hyp0f1_asymptotic(np.array([100.0, 50.0]), 2, order)
    with pytest.raises(ValueError, match="order"):
        asymptotic.grad_log_hyp0f1_asymptotic(np.array([100.0, 50.0]), 2, order)


def test_bad_return_error():
    with pytest.raises(ValueError, match="return_error"):
        asymptotic.log_hyp0f1_asymptotic(np.array([100.0, 50.0]), 2, 1, return_error="False")


def test_batch_shape_and_permutation_invariance(rng):
    sig = 200 + 100 * rng.random((2, 3, 4))
    val = asymptotic.log_hyp0f1_asymptotic(sig, 4, 3)
    assert val.shape == (2, 3)
    perm = asymptotic.log_hyp0f1_asymptotic(sig[..., ::-1], 4, 3)
    assert np.allclose(val, perm, rtol=0, atol=ROUNDING * np.abs(val).max())


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_gradient_matches_exact_k3(order):
    """Central-difference gradient of each order vs the exact k = 3 gradient.

    The expansion's error E ~ T_{order+1} is homogeneous of degree −(order+1) in σ, so |∂E/∂σᵢ|
    ≲ (order+1)·|E|/min pair sum; the estimate stands in for |E|, times 4 for the remainder and
    the per-coordinate split. Central differences add ~1e-9 relative (module notes).
    """
    sig = np.array([[400.0, 300.0, 150.0], [2000.0, 900.0, 850.0]])
    got = asymptotic.grad_log_hyp0f1_asymptotic(sig, 3, order)
    ref = closed_form.grad_log_hyp0f1_exact(sig, 3)
    est = asymptotic.asymptotic_error_estimate(sig, 3, order)
    tol = 4 * (order + 2) * est / (sig[:, 1] + sig[:, 2]) + 1e-9 * np.abs(ref).max(axis=1)
    assert np.all(np.abs(got - ref) <= tol[:, None])


def test_dropped_coset_enters_the_error_estimate():
    """σ_{k−1} = σ_k with a small σ_k: I₋ is dropped and its bound (not small) is in the estimate."""
    parts = asymptotic.expansion_terms(np.array([300.0, 2.0, 2.0]), 3, 1)
    assert parts["lead_minus"][0] == -np.inf and parts["dropped"][0] > 1e-3
    assert asymptotic.asymptotic_error_estimate(np.array([300.0, 2.0, 2.0]), 3, 3) >= parts["dropped"][0]


# --- the degenerate second coset: Laplace's method on its critical manifold (module notes) ---------

def _log_coset_ratio(a: float, k: int) -> float:
    """log(I₋/I₊) at σ = a·1_k from the two cosets' Bessel determinants (mpmath, 20 digits kept)."""
    with mpmath.workdps(closed_form_mp.equal_spectrum_dps(a, k, 20)):
        plus, minus = closed_form_mp.equal_spectrum_cosets_mp(a, k)
        return float(mpmath.log(minus / plus))


def _degenerate_failures(estimate) -> list:
    """Where ``estimate`` (a function like asymptotic.log_degenerate_ratio) misses the truth: below the exact log(I₋/I₊)
    of equal spectra (k = 2–32, σ from the edge of its range max(1, k/4) to 300) or of k = 2 near ties (exact
    I₀(δ)/I₀(2a + δ), δ < DEGENERATE_GAP) — the estimate is then no upper estimate, and DEGENERATE_SAFETY is its only
    margin — or, at σ = 50k², more than 10|T₁| from it: Laplace's leading term is exact to first order in 1/σ, like
    the expansion's first term T₁ of I₊ (measured |log(true/estimate)| ≤ 2.02|T₁| on k = 2–64)."""
    bad = []
    for k in (2, 3, 4, 5, 6, 8, 12, 16, 20, 32):
        lo = max(1.0, k / 4)
        for a in (lo, 2 * lo, 5 * lo, 30.0, 300.0):
            if a >= lo and _log_coset_ratio(a, k) > estimate(np.full((1, k), a))[0]:
                bad.append(("below", k, a))
    for k in (2, 3, 4, 6, 8, 12):
        a = 50.0 * k * k
        sig = np.full((1, k), a)
        t1 = abs(asymptotic.expansion_terms(sig, k, 1)["terms_plus"][0, 0])
        if abs(_log_coset_ratio(a, k) - estimate(sig)[0]) > 10 * t1:
            bad.append(("far", k, a))
    for a in (1.0, 3.0, 30.0, 1000.0):
        for d in (1e-9, 0.01, 0.5, 0.999):
            exact = float(mpmath.log(mpmath.besseli(0, d) / mpmath.besseli(0, 2 * a + d)))
            if exact > estimate(np.array([[a + d, a]]))[0]:
                bad.append(("below", 2, a, d))
    return bad


def test_degenerate_coset_estimate_against_bessel_determinants():
    """Laplace's estimate of a degenerate I₋/I₊ holds the exact ratios from above and is asymptotically exact."""
    assert _degenerate_failures(asymptotic.log_degenerate_ratio) == []


def test_degenerate_coset_estimate_planted_errors_fail():
    """The flat directions counted as Gaussian ones of curvature 2σ_k (their factor (σ_k/π)^{1/2} each missing: an
    underestimate), and the manifold's volume doubled (2^{p−1}|S^{p−1}|), both fail the check above."""
    def no_flat_factor(flat):
        p = np.count_nonzero(flat - flat[:, -1:] < asymptotic.DEGENERATE_GAP, axis=1)
        return asymptotic.log_degenerate_ratio(flat) - 0.5 * (p - 1) * np.log(flat[:, -1] / np.pi)

    assert any(f[0] == "below" for f in _degenerate_failures(no_flat_factor))
    assert any(f[0] == "far" for f in _degenerate_failures(lambda flat: asymptotic.log_degenerate_ratio(flat)
                                                            + np.log(2.0)))


def test_degenerate_coset_makes_the_figure_usable_and_it_holds():
    """Tied bottoms: k = 20, σ = (300¹⁰, 100¹⁰) had the bound e^{230}·I₊ in its figure; now the figure is the
    truncation's. At k = 3, 4 with a tie at the bottom, σ_k = 1–8 (I₋/I₊ from 1e-7 up to 0.5, the estimate most of
    the figure), and with a near tie (gap < 1) at σ_k = 20–60 (I₋ negligible: dropped, where its expansion had made
    the figure inf), the figure holds against the closed forms (k = 3 integral, k = 4 series)."""
    sig = np.concatenate([np.full(10, 300.0), np.full(10, 100.0)])[None]
    assert asymptotic.expansion_terms(sig, 20, 0)["dropped"][0] < 1e-60
    assert asymptotic.asymptotic_error_estimate(sig, 20, 3)[0] < 1e-5
    rng = np.random.default_rng(2026_11_30)
    for k, low, tie in ((3, (1.0, 8.0), 0.0), (4, (1.0, 8.0), 0.0), (3, (20.0, 60.0), 1.0), (4, (20.0, 60.0), 1.0)):
        a = rng.uniform(*low, 40)
        top = -np.sort(-rng.uniform(80.0, 300.0, (40, k - 2)), axis=1)
        rows = np.column_stack([top, a + tie * rng.uniform(0.0, 1.0, 40), a])
        value, err = asymptotic.log_hyp0f1_asymptotic(rows, k, 3, return_error=True)
        exact = closed_form.log_hyp0f1_exact(rows, k)
        dropped = asymptotic.expansion_terms(rows, k, 0)["dropped"]
        fin = np.isfinite(err)  # a few rows with σ_k near 1 are outside I₊'s regime
        assert fin.mean() > 0.8 and np.all(dropped[fin] > 0)
        if tie == 0.0:  # there the estimate is what covers the error
            assert np.mean(dropped[fin] > 0.5 * err[fin]) > 0.5
        assert np.all(np.abs(value - exact)[fin] <= err[fin])


# --- claims with planted errors ----------------------------------------------------------------

def _plant_phi(monkeypatch, p_target, transform):
    original = asymptotic._phi

    def planted(p):
        mons = original(p)
        return tuple(transform(c, w) for c, w in mons) if p == p_target else mons

    monkeypatch.setattr(asymptotic, "_phi", planted)


def _status(cid):
    return get_claim(cid).run().status


def test_hankel_claim_catches_wrong_theta6_sign(monkeypatch, fresh_patterns):
    _plant_phi(monkeypatch, 2, lambda c, w: (-c if w == ((1, 6),) else c, w))
    assert _status("hyp0f1.asymptotic.hankel-k2") == "fails"


def test_hankel_claim_catches_wrong_leading_volume(monkeypatch):
    monkeypatch.setattr(asymptotic, "log_vol_so", lambda k: np.log(2 * np.pi) + 1e-9 if k == 2 else 0.0)
    assert _status("hyp0f1.asymptotic.hankel-k2") == "fails"


def test_rate_claim_catches_wrong_jacobian_coefficient(monkeypatch, fresh_patterns):
    """c₂ → −c₂ changes T₂ only for k ≥ 3 (so(2) is abelian): the k = 3 order-2 slope becomes −2."""
    original = asymptotic.log_jacobian_coefficient
    monkeypatch.setattr(asymptotic, "log_jacobian_coefficient", lambda p: -original(p) if p == 2 else original(p))
    assert _status("hyp0f1.asymptotic.error-rate") == "fails"


def test_rate_claim_catches_missing_third_cumulant(monkeypatch, fresh_patterns):
    """Dropping ⅙κ(Φ₁, Φ₁, Φ₁) from T₃: the order-3 error becomes O(1/σ³)."""
    original = wick.cumulant_patterns

    def planted(blocks):
        return {} if len(blocks) == 3 else original(blocks)

    monkeypatch.setattr(wick, "cumulant_patterns", planted)
    assert _status("hyp0f1.asymptotic.error-rate") == "fails"


def test_hankel_claim_catches_wrong_theta8_coefficient(monkeypatch, fresh_patterns):
    """tr(SΘ⁸)/8! → tr(SΘ⁸)/7! in Φ₃ changes T₃ at k = 2 (the 1e-11 agreement claim cannot see a T₃
    error: it looks where |T₃| is below its tolerance)."""
    _plant_phi(monkeypatch, 3, lambda c, w: (8 * c if w == ((1, 8),) else c, w))
    assert _status("hyp0f1.asymptotic.hankel-k2") == "fails"


def test_agreement_claim_catches_wrong_jacobian_coefficient(monkeypatch, fresh_patterns):
    """c₂ → −c₂: T₂ is off at k = 3, so order 2 misses the 1e-11 level where |T₃| is below it."""
    original = asymptotic.log_jacobian_coefficient
    monkeypatch.setattr(asymptotic, "log_jacobian_coefficient", lambda p: -original(p) if p == 2 else original(p))
    assert _status("hyp0f1.asymptotic.exact-agreement") == "fails"


def test_is_claim_catches_wrong_volume(monkeypatch):
    """log Vol SO(k) + 0.01 in the expansion only (the sampler keeps its own import)."""
    original = asymptotic.log_vol_so
    monkeypatch.setattr(asymptotic, "log_vol_so", lambda k: original(k) + 0.01)
    assert _status("hyp0f1.asymptotic.vs-importance-sampling") == "fails"


def test_is_claim_catches_wrong_first_correction(monkeypatch, fresh_patterns):
    _plant_phi(monkeypatch, 1, lambda c, w: (-c if w == ((1, 4),) else c, w))
    assert _status("hyp0f1.asymptotic.vs-importance-sampling") == "fails"


def test_vol_claim_catches_perturbed_volume(monkeypatch):
    original = asymptotic.log_vol_so
    monkeypatch.setattr(asymptotic, "log_vol_so", lambda k: original(k) + 0.01)
    assert _status("hyp0f1.asymptotic.vol-so") == "fails"


@pytest.mark.parametrize("k", [5, 6, 8])
def test_vol_mc_route_alone_catches_perturbed_volume(k, rng):
    """The Monte Carlo route by itself (k = 4 also has the exact route) rejects log Vol + 0.05:
    with 1e5 draws z·SE ≈ 0.013 < 0.05/2."""
    est, se = expmap.log_vol_so_mc(k, 100_000, rng)
    assert abs(est - asymptotic.log_vol_so(k)) <= z_for_alpha() * se
    assert abs(est - (asymptotic.log_vol_so(k) + 0.05)) > z_for_alpha() * se



@pytest.mark.parametrize("order", [0, 1, 2, 3, "best"])
def test_gradient_without_its_figure_is_the_same_gradient(order):
    """grad_log_hyp0f1(method="asymptotic") skips the next order's differences when no figure is asked
    for (`gradient_only`): the numbers must be those of the path with the figure, to the bit."""
    from symcheck.hyp0f1.api import grad_log_hyp0f1

    rng = np.random.default_rng(11)
    sig = -np.sort(-rng.uniform(3.0, 60.0, (6, 5)), axis=1)
    fast = grad_log_hyp0f1(sig, 5, method="asymptotic", order=order)
    full, err = grad_log_hyp0f1(sig, 5, method="asymptotic", order=order, return_error=True)
    np.testing.assert_array_equal(fast, full)
    assert np.all(np.isfinite(err))
    if order in (0, 1, 2):  # planted: the next order's gradient is not the same gradient
        other = grad_log_hyp0f1(sig, 5, method="asymptotic", order=order + 1)
        assert not np.array_equal(fast, other)


# --- the closed-form gradient of orders 0 and 1 ----------------------------------------------

def _t1_mp(s):
    """T₁ by its closed form (checked against the Wick patterns below) in mpmath."""
    k = len(s)
    v = [[0 if i == j else 1 / (s[i] + s[j]) for j in range(k)] for i in range(k)]
    r = [sum(row) for row in v]
    q = [sum(x * x for x in row) for row in v]
    u = [sum(v[i][j] * s[j] for j in range(k)) for i in range(k)]
    return (sum(s[i] * r[i] ** 2 + s[i] * q[i] + r[i] * u[i] for i in range(k)) / 24
            + (mpmath.mpf(1) / 12 - mpmath.mpf(k) / 24) * sum(r))


def _coset_mp(s, order):
    k = len(s)
    return sum(s) - sum(mpmath.log(s[i] + s[j]) for i in range(k) for j in range(i + 1, k)) / 2 + (
        _t1_mp(s) if order else 0)


def _value_mp(sig, order, minus):
    """log(I₊ + I₋) at ``order`` ≤ 1 in mpmath (the constant, equal on both cosets, left out)."""
    plus = _coset_mp(sig, order)
    if not minus:
        return plus
    return mpmath.log(mpmath.exp(plus) + mpmath.exp(_coset_mp(sig[:-1] + [-sig[-1]], order)))


def _magnitude(st):
    """Σ of |summand| of each gradient component of one coset (the docstring's formula with absolute
    values): the scale of its float64 rounding."""
    k = st.shape[1]
    s = np.abs(st)
    V = np.abs(1.0 / (st[:, :, None] + st[:, None, :]))
    V[:, np.arange(k), np.arange(k)] = 0.0
    mv = lambda M, x: np.einsum("nij,nj->ni", M, x)  # noqa: E731
    V2 = V * V
    r, u, q, p = V.sum(axis=2), mv(V, s), V2.sum(axis=2), (V2 * V).sum(axis=2)
    return (1 + r / 2 + (r * r + 2 * mv(V2, s * r) + 2 * s * r * q + q + 2 * mv(V2 * V, s) + 2 * s * p + mv(V, r)
                         + mv(V2, u) + u * q + r * mv(V2, s) + s * mv(V2, r)) / 24 + 2 * abs(1 / 12 - k / 24) * q)


@pytest.mark.parametrize("k", [2, 3, 5, 12, 20])
def test_first_term_closed_form_is_the_wick_patterns(k):
    """The closed form of T₁ in _first_term_and_gradient equals the generic contraction of its five patterns,
    on both cosets (signed s), within the rounding of two float64 sums of k² terms of size ≤ the magnitude."""
    rng = np.random.default_rng(k)
    st = -np.sort(-rng.uniform(2.0, 50.0, (8, k)), axis=1)
    st[4:, -1] *= -1
    t1, _, _ = asymptotic._first_term_and_gradient(st)
    V = 1.0 / (st[:, :, None] + st[:, None, :])
    V[:, np.arange(k), np.arange(k)] = 0.0
    ref, _ = wick.evaluate(asymptotic.order_patterns(1), st, V)
    scale = np.abs(V).sum(axis=(1, 2)) * (1 + k + np.abs(st).max(axis=1) * np.abs(V).max(axis=(1, 2)) * k)
    assert np.all(np.abs(t1 - ref) <= 8 * (k * k + 10) * EPS * scale)


def _gradient_cases(k, rng):
    sig = -np.sort(-rng.uniform(4.0, 80.0, (3, k)), axis=1)
    sig[2] = sig[2] + 300.0  # σ_k large: the second coset negligible and dropped
    rng.shuffle(sig[1])  # unsorted input
    return sig


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("k", [2, 3, 6, 20])
def test_closed_form_gradient_matches_mpmath_derivatives(k, order):
    """The closed-form gradient against mpmath's numerical derivatives (30 digits) of the order-0/1 value,
    both cosets where the second is kept; tolerance: γ_{4k+20} times the magnitude of the summands."""
    rng = np.random.default_rng(100 + k)
    sig = _gradient_cases(k, rng)
    grad = asymptotic.grad_log_hyp0f1_asymptotic(sig, k, order)
    parts = asymptotic.expansion_terms(sig, k, order)
    with mpmath.workdps(30):
        for row, g, minus in zip(sig, grad, np.isfinite(parts["lead_minus"])):
            x = [mpmath.mpf(float(v)) for v in row]
            idx = sorted(range(k), key=lambda i: -row[i])  # the value is symmetric; its cosets use sorted σ
            f = lambda *y: _value_mp([y[i] for i in idx], order, minus)  # noqa: E731
            ref = np.array([float(mpmath.diff(f, x, tuple(int(i == j) for i in range(k)))) for j in range(k)])
            srt = row[idx][None, :]
            mag = _magnitude(srt)[0]
            if minus:
                fl = srt.copy()
                fl[0, -1] *= -1
                mag = mag + _magnitude(fl)[0]
            tol = np.empty(k)
            tol[idx] = (4 * k + 20) * EPS * mag * 2
            assert np.all(np.abs(g - ref) <= tol), (row, g - ref, tol)


def test_a_planted_gradient_error_is_caught():
    """Dropping one summand (−s∘V²r) from the closed form moves the gradient far beyond the tolerance above."""
    k, order = 6, 1
    sig = _gradient_cases(k, np.random.default_rng(106))[:1]
    st = -np.sort(-sig, axis=1)
    _, g1, _ = asymptotic._first_term_and_gradient(st)
    V = 1.0 / (st[:, :, None] + st[:, None, :])
    V[:, np.arange(k), np.arange(k)] = 0.0
    scale = st.max(axis=1, keepdims=True)
    missing = (st / scale) * np.einsum("nij,nj->ni", (V * scale) ** 2, (V * scale).sum(axis=2)) / 24 / scale**2
    assert np.max(np.abs(missing)) > 1e3 * (4 * k + 20) * EPS * 2 * _magnitude(st).max()


def test_closed_form_gradient_evaluates_the_patterns_once():
    """The closed form evaluates the value's patterns once per call, not on 2k shifted copies of each row (counted)."""
    calls = []
    real = asymptotic.expansion_terms

    def counting(*a, **kw):
        calls.append(a[0].shape[0])
        return real(*a, **kw)

    sig = -np.sort(-np.random.default_rng(3).uniform(20.0, 90.0, (4, 12)), axis=1)
    import unittest.mock as mock
    with mock.patch.object(asymptotic, "expansion_terms", counting):
        asymptotic.grad_log_hyp0f1_asymptotic(sig, 12, 1)
    assert calls == [4]


@pytest.mark.parametrize("order", [0, 1, 2, 3, "best"])
def test_value_without_its_figure_is_the_same_value(order):
    """log_hyp0f1(method="asymptotic") skips the next term when no figure is asked for (`value_only`): the
    numbers must be those of the path with the figure, to the bit; the next order's value is not."""
    from symcheck.hyp0f1.api import log_hyp0f1

    rng = np.random.default_rng(12)
    sig = -np.sort(-rng.uniform(3.0, 60.0, (6, 5)), axis=1)
    fast = log_hyp0f1(sig, 5, method="asymptotic", order=order)
    full, _ = log_hyp0f1(sig, 5, method="asymptotic", order=order, return_error=True)
    np.testing.assert_array_equal(fast, full)
    if order in (0, 1, 2):
        assert not np.array_equal(fast, log_hyp0f1(sig, 5, method="asymptotic", order=order + 1))


# --- the compiled Wick program and the shared value-and-gradient route --------------------------

def _exact_pattern_sum(patterns, s, v):
    """Σ coefficient · ∏ components by brute force over every index assignment of each component's vertices,
    in exact rational arithmetic from the float64 inputs (one row s (k,), v (k, k))."""
    from itertools import product

    k = s.size
    fs = [Fraction(float(x)) for x in s]
    fv = [[Fraction(float(x)) for x in row] for row in v]
    comp_value = {}
    for comp in {c for pat in patterns for c in pat}:
        n_v, marks, edges = comp
        tot = Fraction(0)
        for x in product(range(k), repeat=n_v):
            term = Fraction(1)
            for a, b, m in edges:
                term *= fv[x[a]][x[b]] ** m
            for a, mk in enumerate(marks):
                term *= fs[x[a]] ** mk
            tot += term
        comp_value[comp] = tot
    total = Fraction(0)
    for pat, c in patterns.items():
        term = c
        for comp in pat:
            term *= comp_value[comp]
        total += term
    return total


def _program_matches_brute_force(compiled, patterns, s, v) -> bool:
    """The compiled program's value within its own proven rounding bound (+ the final rounding of the exact
    value, half an ulp) of the exact pattern sum, and its value without the bound the same to the bit."""
    val, rnd = compiled.evaluate(s[None], v[None])
    bare, none = compiled.evaluate(s[None], v[None], rounding=False)
    exact = _exact_pattern_sum(patterns, s, v)
    return (none is None and np.array_equal(val, bare)
            and abs(Fraction(float(val[0])) - exact) <= Fraction(float(rnd[0])) + abs(exact) * Fraction(EPS) / 2)


@pytest.mark.parametrize("p, s", [(1, [2.0, 1.3, 0.7]), (2, [3.0, 2.0, 1.5, -1.0]), (3, [2.0, 1.3, -0.7])],
                         ids=["T1-k3", "T2-k4-flipped", "T3-k3-flipped"])
def test_compiled_program_matches_brute_force(p, s):
    """CompiledPatterns (one straight-line program over every component, shared steps once; at order 3 it has
    matrix products and the K₄ kernel) against the exact sum over all index assignments, both coset signs."""
    s = np.array(s)
    v = 1.0 / (s[:, None] + s[None, :])
    np.fill_diagonal(v, 0.0)
    patterns = asymptotic.order_patterns(p)
    assert _program_matches_brute_force(wick.CompiledPatterns(patterns), patterns, s, v)


def test_a_planted_program_error_is_caught():
    """A program whose first v² step reads v instead (a wrong power in a shared step) fails the check above."""
    s = np.array([3.0, 2.0, 1.5, -1.0])
    v = 1.0 / (s[:, None] + s[None, :])
    np.fill_diagonal(v, 0.0)
    patterns = asymptotic.order_patterns(2)
    compiled = wick.CompiledPatterns(patterns)
    first = next(i for i, step in enumerate(compiled.steps) if step[0] == "vpow")
    compiled.steps = compiled.steps[:first] + (("v", 1, ()),) + compiled.steps[first + 1:]
    assert not _program_matches_brute_force(compiled, patterns, s, v)


def test_value_and_gradient_together_evaluate_the_terms_once():
    """log_hyp0f1_and_grad(method="asymptotic") at order 1 evaluates the expansion's terms once per call (the
    separate value and gradient evaluate them once each; counted), with the numbers of the two calls."""
    import unittest.mock as mock

    from symcheck.hyp0f1.api import grad_log_hyp0f1, log_hyp0f1, log_hyp0f1_and_grad

    calls = []
    real = asymptotic.expansion_terms

    def counting(*a, **kw):
        calls.append(a[0].shape[0])
        return real(*a, **kw)

    sig = np.random.default_rng(4).uniform(20.0, 90.0, (4, 12))
    with mock.patch.object(asymptotic, "expansion_terms", counting):
        value, grad = log_hyp0f1_and_grad(sig, 12, method="asymptotic")
        assert calls == [4]
        np.testing.assert_array_equal(value, log_hyp0f1(sig, 12, method="asymptotic"))
        np.testing.assert_array_equal(grad, grad_log_hyp0f1(sig, 12, method="asymptotic"))
    assert calls == [4, 4, 4]
