"""Train the bundled clause model: ``rag_guard_integrations/data/clauses/model.npz``.

Run ``python tools/train_clause_model.py`` after editing ``data/clauses/examples.yaml`` (or
upgrading the embedding model). It embeds every passage of every example with the offline
all-MiniLM-L6-v2 and fits the logistic regression the semantic fingerprint scores with. The
package uses the shipped file only while its key matches the examples, the way of training and
the model; otherwise it trains the same model in-process on first use (slower, same result).
"""

from __future__ import annotations

import sys

from rag_guard_integrations.data.clause_examples import BUNDLED_EXAMPLES, load_examples
from rag_guard_integrations.guards.clause_model import SHIPPED_MODEL, save, train


def main() -> int:
    """Train on the bundled examples and write the shipped model."""
    examples = load_examples(BUNDLED_EXAMPLES)
    model = train(examples)
    save(model, SHIPPED_MODEL)
    print(f"{SHIPPED_MODEL}: {len(model.classes)} classes from {len(examples.texts)} examples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
