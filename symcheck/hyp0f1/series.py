"""PLACEHOLDER: the Koev–Edelman zonal series is being written (see issue 2)."""


def _missing(*args, **kwargs):
    raise NotImplementedError("the zonal series is not implemented yet")


log_hyp0f1_series = grad_log_hyp0f1_series = series_degree_needed = _missing
