"""``python -m rag_guard_integrations.cli``: the ``rag-guard`` command."""

from __future__ import annotations

import sys

from rag_guard_integrations.cli import main

sys.exit(main())
