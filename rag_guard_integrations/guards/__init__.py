"""The guards: access and hints, clause, domain and combination checks, one module each."""
