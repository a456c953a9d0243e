"""``python -m rag_guard_integrations.cli``: the ``rag-guard`` command."""

import sys

from rag_guard_integrations.cli import main

sys.exit(main())
