"""Tests for ``action: redact``: masked spans in new chunks, offsets in the audit, fail closed."""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_guard_integrations import Chunk, Guard, parse_policy
from rag_guard_integrations.classify.base import Classification
from rag_guard_integrations.core.decisions import Redaction
from rag_guard_integrations.engine.redact import mask_text
from rag_guard_integrations.policy.lint import lint_text

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rag_guard_integrations.classify.base import Classifier
    from rag_guard_integrations.policy.schema import LabelSpec

POLICY = """
version: 1
name: pii
labels: {contact_details: {}, financial: {}, entity_identifier: {}}
classifiers: {builtin: {email: contact_details, phone: contact_details, money: financial}}
rules:
  - name: no_contacts
    action: redact
    trigger: {all_present: [contact_details]}
    message: Contact details are masked
  - name: money_and_client
    action: block
    trigger: {all_present: [financial, entity_identifier]}
    message: Figures with a client name
"""
EMAIL = "bob.stone@example.com"
PHONE = "+1 415 555 0100"
CONTACT = Chunk(f"Write to {EMAIL} or call {PHONE} today.", {"team": "sales"}, 0.9, "c1")
PLAIN = Chunk("Our offices open at nine.", id="p1")


class LabelsWithoutSpans:
    """A classifier that labels contact_details without saying where, as a model would."""

    def classify(self, text: str) -> Classification:
        return Classification(frozenset({"contact_details"}))

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        return [self.classify(t) for t in texts]

    async def aclassify_many(self, texts: Sequence[str]) -> list[Classification]:
        return self.classify_many(texts)

    def bind(self, vocabulary: Mapping[str, LabelSpec]) -> Classifier:
        return self


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(POLICY))


def test_recogniser_spans_are_masked_in_a_new_chunk(guard: Guard) -> None:
    """The allowed chunk carries [LABEL] masks; the input chunk is untouched."""
    chunks = [CONTACT, PLAIN]
    before = copy.deepcopy([(c.text, dict(c.metadata)) for c in chunks])
    result = guard.check("how do I reach sales?", chunks)
    masked, plain = result.allowed
    assert masked.text == "Write to [CONTACT_DETAILS] or call [CONTACT_DETAILS] today."
    assert (masked.id, masked.score, dict(masked.metadata)) == ("c1", 0.9, {"team": "sales"})
    assert masked is not CONTACT
    assert plain is PLAIN
    assert [(c.text, dict(c.metadata)) for c in chunks] == before
    assert result.redacted == {0: masked.text}
    decision = result.decisions[0]
    assert (decision.allowed, decision.rule, decision.source) == (True, "no_contacts", CONTACT)
    spans = [(r.label, CONTACT.text[r.start : r.end], r.recognizer) for r in decision.redactions]
    assert spans == [("contact_details", EMAIL, "email"), ("contact_details", PHONE, "phone")]


async def test_async_masks_the_same_way(guard: Guard) -> None:
    """acheck masks exactly as check does."""
    sync = guard.check("q", [CONTACT])
    other = await guard.acheck("q", [CONTACT])
    assert [c.text for c in other.allowed] == [c.text for c in sync.allowed]


def test_audit_keeps_offsets_and_no_text(guard: Guard) -> None:
    """The audit says redact, gives the offsets and hashes the original, holding no text."""
    record = guard.check("q", [CONTACT]).audit()
    (entry,) = record["chunks"]
    assert entry["decision"] == "redact"
    assert [(r["start"], r["end"]) for r in entry["redactions"]] == [(9, 30), (39, 54)]
    assert entry["content_hmac"] == guard.audit_key.digest(CONTACT.text)
    dumped = json.dumps(record)
    assert EMAIL not in dumped
    assert "[CONTACT_DETAILS]" not in dumped


def test_label_claimed_by_metadata_cannot_be_masked_and_drops(guard: Guard) -> None:
    """A chunk tagged contact_details in metadata is dropped: no span would remove the label."""
    tagged = Chunk(f"Reach {EMAIL}", {"classification": "contact_details"})
    result = guard.check("q", [tagged, PLAIN])
    assert result.allowed == [PLAIN]
    assert result.decisions[0].rule == "no_contacts"


def test_label_without_spans_drops() -> None:
    """A label a classifier gave without a span cannot be masked, so the chunk is dropped."""
    guard = Guard(parse_policy(POLICY), classifier=LabelsWithoutSpans())
    result = guard.check("q", [CONTACT])
    assert result.allowed == []
    assert result.decisions[0].rule == "no_contacts"


def test_chunk_with_unreadable_labels_is_dropped_not_masked(guard: Guard) -> None:
    """When a chunk's labels are uncertain (malformed metadata), masking is not trusted."""
    broken = Chunk(f"Reach {EMAIL}", {"classification": [1]})
    result = guard.check("q", [broken])
    assert result.allowed == []
    assert result.decisions[0].redactions == ()


def test_a_block_rule_takes_its_carriers_before_a_redact_rule_masks(guard: Guard) -> None:
    """Money and a contact in one chunk, a client in another: the block rule removes its tied
    carrier latest in retrieval (the client) first; the redact rule then masks the contact,
    and the masked chunk is safe with what is left."""
    both = Chunk(f"Mail {EMAIL}: revenue was $5,000,000 last year.", id="both")
    client = Chunk("Client: Acme Holdings", {"classification": "entity_identifier"}, id="client")
    result = guard.check("q", [both, client])
    assert [c.id for c in result.allowed] == ["both"]
    assert EMAIL not in result.allowed[0].text
    assert result.decisions[1].rule == "money_and_client"


def test_a_masked_chunk_another_redact_rule_still_fires_on_is_masked_for_it_too() -> None:
    """Masking the contact leaves money next to a client whose label metadata claims: the
    second redact rule still fires on the masked chunk, so its money is masked as well, and
    both chunks stay."""
    policy = POLICY.replace("action: block", "action: redact")
    both = Chunk(f"Mail {EMAIL}: revenue was $5,000,000 last year.", id="both")
    client = Chunk("Client: Acme Holdings", {"classification": "entity_identifier"}, id="client")
    guard = Guard(parse_policy(policy))
    result = guard.check("q", [both, client])
    assert [c.id for c in result.allowed] == ["both", "client"]
    masked = result.allowed[0].text
    assert EMAIL not in masked
    assert "5,000,000" not in masked
    assert guard.check("q", result.allowed).violations == ()


def test_masked_chunk_that_still_completes_another_redact_rule_is_dropped() -> None:
    """When the label the second redact rule names is claimed by metadata (nothing to mask
    there), masking cannot make the chunk safe: it goes."""
    policy = POLICY.replace("action: block", "action: redact")
    both = Chunk(f"Mail {EMAIL}: revenue was high.", {"classification": "financial"}, id="both")
    client = Chunk("Client: Acme Holdings", {"classification": "entity_identifier"}, id="client")
    result = Guard(parse_policy(policy)).check("q", [both, client])
    assert [c.id for c in result.allowed] == ["client"]
    assert "masking could not make it safe" in result.decisions[0].reason
    assert result.decisions[0].rule == "no_contacts"


def test_no_rule_fires_on_the_masked_context(guard: Guard) -> None:
    """Checking what was allowed again (masked texts) fires no rule: the safe subset is safe."""
    money = Chunk("Revenue was $5,000,000.", id="money")
    result = guard.check("q", [CONTACT, money, PLAIN])
    again = guard.check("q", result.allowed)
    assert again.violations == ()
    assert [d.allowed for d in again.decisions] == [True, True, True]


def card_masking_guard() -> Guard:
    """The ``default`` pack with a redact rule that masks payment cards."""
    cards = parse_policy(
        "version: 1\nname: cards\nrules:\n  - {name: mask_cards, action: redact, "
        "trigger: {all_present: [payment_card]}}\n"
    )
    return Guard.from_policy("default", cards)


def test_a_masked_value_after_a_secret_key_is_no_credential_when_checked_again() -> None:
    """A card after ``token:`` is masked; the mask is no secret, so checking the masked chunk
    again beside a host name fires no credentials rule."""
    guard = card_masking_guard()
    card = Chunk("card token: 4111 1111 1111 1111", id="card")
    host = Chunk("Connect to db1.internal.example.com on port 5432.", id="host")
    result = guard.check("q", [card, host])
    assert [c.text for c in result.allowed] == ["card token: [PAYMENT_CARD]", host.text]
    again = guard.check("q", result.allowed)
    assert again.violations == ()
    assert [d.allowed for d in again.decisions] == [True, True]


def test_a_chunk_that_holds_a_value_masked_in_another_chunk_is_withheld() -> None:
    """The card masked in one chunk, written in another as no recogniser reads a card (inside
    a reference), would reach the model unmasked beside it: that chunk is withheld, and a
    chunk that does not hold it stays."""
    guard = card_masking_guard()
    note = Chunk("Card 4111 1111 1111 1111 is on file for this customer.", id="note")
    shipping = Chunk("Shipping note: order ref 4111111111111111A dispatched.", id="ship")
    ids = Chunk("Shipping note: dispatched.", {"ref": "4111-1111-1111-1111X"}, id="meta")
    other = Chunk("Shipping note: order ref 5500000000000004A dispatched.", id="other")
    result = guard.check("q", [note, shipping, ids, other])
    assert [c.id for c in result.allowed] == ["note", "other"]
    assert "masked in another chunk" in result.decisions[1].reason
    assert result.decisions[1].rule == result.decisions[2].rule == "mask_cards"
    assert "4111" not in " ".join(c.text for c in result.allowed)


def test_redact_rule_does_not_raise_under_on_block_raise() -> None:
    """A redact rule resolved by masking is not a block: on_block: raise does not raise."""
    guard = Guard(parse_policy(POLICY + "on_block: raise\n"))
    result = guard.check("q", [CONTACT])
    assert result.decisions[0].redactions


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([], "abcdef"),
        ([(1, 3, "x")], "a[X]def"),
        ([(1, 4, "x"), (2, 3, "y")], "a[X]ef"),
        ([(0, 2, "x"), (1, 6, "y")], "[X]"),
        ([(4, 6, "y"), (0, 1, "x")], "[X]bcd[Y]"),
    ],
)
def test_mask_text_merges_overlapping_spans(
    spans: list[tuple[int, int, str]], expected: str
) -> None:
    """Overlapping spans become one mask, named by the first; others mask in place."""
    assert mask_text("abcdef", [Redaction(label, s, e, "r") for s, e, label in spans]) == expected


def test_lint_flags_a_redact_label_no_recogniser_gives() -> None:
    """Lint says when a redact rule's label has no recogniser, so masking could never happen."""
    _, clean = lint_text(POLICY)
    assert clean == []
    _, problems = lint_text(POLICY.replace("[contact_details]}", "[entity_identifier]}"))
    assert len(problems) == 1
    assert "redacts label 'entity_identifier' that no recogniser gives" in problems[0]


PARTS = {
    "email": "mail ann.lee@example.org",
    "phone": "call +1 212 555 0199",
    "money": "paid $7,500",
    "plain": "see the annex",
}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(sorted(PARTS)), min_size=1, max_size=3),
            st.sampled_from([None, "contact_details", "entity_identifier", "financial"]),
        ),
        max_size=6,
    )
)
def test_masked_context_is_safe_and_inputs_untouched(
    specs: list[tuple[list[str], str | None]],
) -> None:
    """Whatever mix is retrieved, no rule fires on what is allowed, masks hide every span of
    the masked labels, and the inputs are unchanged."""
    guard = Guard(parse_policy(POLICY))
    chunks = [
        Chunk(". ".join(PARTS[p] for p in parts), {} if tag is None else {"classification": tag})
        for parts, tag in specs
    ]
    texts = [c.text for c in chunks]
    result = guard.check("q", chunks)
    assert [c.text for c in chunks] == texts
    assert guard.check("q", result.allowed).violations == ()
    for decision in result.decisions:
        if decision.redactions:
            source = decision.source.text
            for span in decision.redactions:
                assert source[span.start : span.end] not in decision.chunk.text


CARDS = """
version: 1
name: cards
labels: {payment_card: {}, national_id: {}}
classifiers: {builtin: {credit_card: payment_card, us_ssn: national_id}}
rules:
  - {name: no_cards, action: redact, trigger: {all_present: [payment_card]}}
  - {name: no_ids, action: redact, trigger: {all_present: [national_id]}}
"""


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Card 4111 1111 1111 1111 on file; order ref 4111111111111111A.", "4111111111111111"),
        ("SSN 078-05-1120 on file; employee code E078051120.", "078051120"),
        ("SSN 078-05-1120 on file; case 078 051 120 closed.", "078 051 120"),
    ],
)
def test_a_masked_number_written_again_in_the_text_is_masked_there_too(
    text: str, value: str
) -> None:
    """The recogniser finds the value once; the same digits later in the text, inside a
    reference or split another way, are the masked value and are masked as well."""
    (kept,) = Guard(parse_policy(CARDS)).check("the account?", [Chunk(text)]).allowed
    assert value not in kept.text
    assert value.replace(" ", "") not in kept.text.replace(" ", "")
    assert "[" in kept.text


LINKED = """
version: 1
name: linked
labels: {person_name: {}, contact_details: {}, financial: {}}
linking: {keys: [customer, account_id]}
classifiers: {builtin: {person: person_name, email: contact_details, money: financial}}
rules:
  - {name: no_mail, action: redact, trigger: {all_present: [contact_details]}}
  - name: money_person_linked
    action: redact
    trigger: {all_present: [financial, person_name], scope: linked}
"""


def test_a_masked_chunk_that_links_a_linked_rules_carriers_is_dropped() -> None:
    """The masked chunk carries none of the linked rule's labels, but its metadata is what
    links the two that do: kept, it would complete the rule again, so it goes."""
    guard = Guard(parse_policy(LINKED))
    chunks = [
        Chunk("Reach ann@example.org about this account.", {"customer": "c1", "account_id": "a1"}),
        Chunk("Balance owed: $5,000.", {"customer": "c1"}),
        Chunk("Account holder Jane Roe.", {"account_id": "a1"}),
    ]
    result = guard.check("who owes what?", chunks)
    assert [d.allowed for d in result.decisions] == [False, True, True]
    assert "masking could not make it safe" in result.decisions[0].reason
    assert guard.check("who owes what?", result.allowed).violations == ()


def test_a_chunk_carrying_two_redact_rules_labels_is_masked_for_both() -> None:
    """A card and a national id in one chunk, each its own redact rule's: both are masked and
    the chunk stays."""
    guard = Guard(parse_policy(CARDS))
    text = "Card 4111 1111 1111 1111 and SSN 078-05-1120 on file."
    result = guard.check("the account?", [Chunk(text)])
    (kept,) = result.allowed
    assert kept.text == "Card [PAYMENT_CARD] and SSN [NATIONAL_ID] on file."
    assert {r.label for r in result.decisions[0].redactions} == {"payment_card", "national_id"}
    assert guard.check("the account?", result.allowed).violations == ()


def test_a_masked_value_written_again_in_another_spelling_drops_the_chunk() -> None:
    """Escaped digits (a JSON ``\\u`` escape) no recogniser reads and no mask can cover where
    they stand: the chunk is withheld."""
    escaped = "".join(f"\\u{ord(c):04x}" for c in "4111111111111111")
    text = f"Card 4111 1111 1111 1111 on file; raw {escaped} (see above)."
    result = Guard(parse_policy(CARDS)).check("the card?", [Chunk(text)])
    assert result.allowed == []
    assert result.decisions[0].rule == "no_cards"


@pytest.mark.parametrize(
    "spelled",
    [
        "four one one one, one one one one, one one one one, one one one one",
        "Four One One One – One One One One – One One One One",
        "four.one.one.one/one_one_one_one",
        "four, one, one, one, one and one, one, one",
        "4 one 1 one 1 one 1 one",
        "four double one, double one, double one",
        "vier eins eins eins eins eins eins eins",
        "4111 then 1111 then 1111 then 1111",
    ],
)
def test_a_masked_number_read_back_in_words_drops_the_chunk(spelled: str) -> None:
    """The card's digits spelled out, as an agent reads a number back (any marks between,
    digits among the words, ``double``, another language's words, groups joined by a word),
    are the masked value in a spelling no mask can cover where it stands: the chunk is
    withheld. A few number words in a sentence are no number."""
    guard = Guard(parse_policy(CARDS))
    text = f"Card 4111 1111 1111 1111 on file; read back as {spelled}."
    result = guard.check("the card?", [Chunk(text)])
    assert result.allowed == []
    assert result.decisions[0].rule == "no_cards"
    words = "Card 4111 1111 1111 1111 on file; one or two calls, oh and three more."
    (kept,) = guard.check("the card?", [Chunk(words)]).allowed
    assert kept.text.endswith("one or two calls, oh and three more.")


def test_a_masked_number_read_back_in_metadata_becomes_the_mask() -> None:
    """Read back in words in a metadata value, with a repeat joined by a hyphen, the card is
    masked there and the chunk kept."""
    chunk = Chunk(
        "Card 4111 1111 1111 1111 on file.",
        {"readback": "four double-one, double-one double-one", "team": "sales"},
    )
    (kept,) = Guard(parse_policy(CARDS)).check("the card?", [chunk]).allowed
    assert kept.metadata == {"readback": "[PAYMENT_CARD]", "team": "sales"}


@pytest.mark.parametrize(
    "source",
    [
        f"https://crm.example/contact?email={EMAIL.replace('@', '%40')}",
        f"mailto%3A{EMAIL.replace('@', '%40')}",
        f'{{"to": "{EMAIL.replace("@", chr(92) + "u0040")}"}}',
    ],
)
def test_a_masked_address_encoded_in_metadata_is_masked(guard: Guard, source: str) -> None:
    """Percent-encoding (a URL) and a JSON ``\\u`` escape spell the address a reader still
    reads: the metadata value holding it is masked."""
    chunk = Chunk(f"Write to {EMAIL} today.", {"source": source, "team": "sales"})
    (kept,) = guard.check("who do I write to?", [chunk]).allowed
    assert kept.metadata == {"source": "[CONTACT_DETAILS]", "team": "sales"}


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("cannot be printed")


def test_a_carrier_whose_metadata_cannot_be_scrubbed_is_dropped_alone(guard: Guard) -> None:
    """A cycle or a value whose ``str()`` raises cannot be searched for the masked address:
    that carrier is withheld (fail closed) and the rest of the request goes on."""
    loop: list[object] = []
    loop.append(loop)
    carriers = [Chunk(f"Write to {EMAIL}.", {"x": value}) for value in (loop, _Unprintable())]
    result = guard.check("who do I write to?", [*carriers, PLAIN])
    assert [d.allowed for d in result.decisions] == [False, False, True]
