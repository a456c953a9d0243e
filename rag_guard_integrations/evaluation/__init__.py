"""Measurements of the guards: leakage, real-clause recognition, out-of-domain filtering, speed."""
