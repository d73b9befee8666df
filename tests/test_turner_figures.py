"""Turner figure claims (Figs. 5, 8): each turns to "fails" with a planted wrong formula."""

import numpy as np

import symcheck.claims.turner_figures as tf
import symcheck.models.turner_fa as fa_model
import symcheck.models.turner_ica as ica_model
from symcheck.claims import get_claim


def status(claim_id):
    return get_claim(claim_id).run().status


def test_fig5_erratum_holds_unpatched():
    assert status("turner.fig5.zero-temperature-bias-map") == "erratum"


def test_fig5_fails_when_zero_temperature_uses_the_printed_kl(monkeypatch):
    real = fa_model.fa_objective

    def planted(kind, S, w1, w2, theta1, theta2, sigma_y2):
        if kind == "zero_temperature":  # the printed (48) instead: a different, less biased objective
            return real("likelihood", S, w1, w2, theta1, theta2, sigma_y2) - fa_model.eq48_kl(w1, w2, theta1, theta2, sigma_y2)
        return real(kind, S, w1, w2, theta1, theta2, sigma_y2)

    monkeypatch.setattr(fa_model, "fa_objective", planted)
    assert status("turner.fig5.zero-temperature-bias-map") == "fails"


def test_fig8_holds_unpatched():
    assert status("turner.fig8.ica-posterior-multimodal-q-compact") == "holds"


def test_fig8_fails_with_a_single_switch_state(monkeypatch):
    # posterior from one switch state only (a planted enumeration error): a single Gaussian, one mode
    monkeypatch.setattr(tf.ica, "SWITCH_STATES", np.array([[1.0, 1.0]]))
    monkeypatch.setattr(tf.ica, "ica_switch_posterior", lambda y, s2, sy2: np.array([1.0]))
    assert status("turner.fig8.ica-posterior-multimodal-q-compact") == "fails"


def test_fig8_fails_when_q_is_inflated(monkeypatch):
    real = ica_model.ica_variational_fit

    def inflated(*a, **k):
        out = real(*a, **k)
        return dict(out, Sigma=out["Sigma"] * 10)

    monkeypatch.setattr(tf.ica, "ica_variational_fit", inflated)
    assert status("turner.fig8.ica-posterior-multimodal-q-compact") == "fails"


def test_report_section_renders_every_figure(tmp_path):
    """Quick render of the Figs. 2–9 section: every plot written, claims linked, the numbers it shows consistent."""
    import json
    from types import SimpleNamespace

    from symcheck.report import ReportContext
    from symcheck.report.sections import turner_figures as section

    ctx = ReportContext(out_dir=tmp_path, seed=1, quick=True,
                        results=[SimpleNamespace(id="turner.fig5.zero-temperature-bias-map", status="erratum")])
    md = section.render(ctx)
    for k in range(2, 10):
        assert (tmp_path / f"turner_fig{k}.png").stat().st_size > 10_000
        assert f"### Fig. {k}:" in md and f"](turner_fig{k}.png)" in md
    assert "[`turner.fig5.zero-temperature-bias-map`](paper-turner.html#turner.fig5.zero-temperature-bias-map) (erratum)" in md
    fig3 = json.loads((tmp_path / "turner_fig3.json").read_text())
    assert abs(fig3["likelihood"] - np.pi / 8) < 1e-6  # ML learns the truth (infinite data)
    assert abs(fig3["free_energy"] - fig3["zero_temperature"]) < 1e-6 < fig3["free_energy"] - np.pi / 8
    fig9 = json.loads((tmp_path / "turner_fig9.json").read_text())
    assert fig9["sigma2"][int(np.argmax(fig9["loglik"]))] == fig9["sigma2_true"]
    assert fig9["sigma2"][int(np.argmax(fig9["free_energy"]))] == 1.0
