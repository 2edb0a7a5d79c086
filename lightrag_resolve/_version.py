"""The package's version, in one place: the public ``__version__`` and the spans' instrumentation scope read it."""

__version__ = "0.1.0"
