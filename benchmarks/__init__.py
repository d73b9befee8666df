"""asv benchmark suites (time_*, peakmem_*, track_*). Numba kernels are warmed in setup."""
