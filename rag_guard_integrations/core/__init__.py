"""Framework-free primitives: chunks, access contexts, decisions, errors, normalisation, patterns.

Import a primitive from its module (the common ones are also at the package root); the package
itself exports nothing."""

__all__: list[str] = []
