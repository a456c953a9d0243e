"""Measurements of the guards: leakage, real-clause recognition, out-of-domain filtering, speed.

Import an evaluation from its module; the package itself exports nothing."""

__all__: list[str] = []
