"""Report sections: each module defines ``ORDER``, ``TITLE`` and ``render(ctx) -> str``."""
