"""What a mask hid in the text is masked in the metadata handed on too, in every framework:
a value the prompt never renders (a LangChain or Haystack field, a LlamaIndex key excluded from
the LLM), a list, a number; the caller's own object is untouched."""

from __future__ import annotations

import pytest
from haystack import Document as HaystackDocument
from langchain_core.documents import Document
from langchain_support import ListRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llama_index_support import REDACT_POLICY

from rag_guard_integrations import Guard, parse_policy
from rag_guard_integrations.engine.scrub import scrubbed, scrubbed_text
from rag_guard_integrations.haystack import GuardedDocuments
from rag_guard_integrations.langchain import GuardedRetriever
from rag_guard_integrations.llama_index import GuardPostprocessor

pytestmark = pytest.mark.unit

EMAIL = "canary.leak@example.com"
MASK = "[CONTACT_DETAILS]"
TEXT = f"Write to {EMAIL} about the refund."
METADATA = {"contact": EMAIL, "copies": [EMAIL, "desk"], "dept": "sales"}
MASKED = {"contact": MASK, "copies": [MASK, "desk"], "dept": "sales"}


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(parse_policy(REDACT_POLICY))


def test_langchain_masks_what_the_text_hid_in_unrendered_metadata(guard: Guard) -> None:
    """The Document handed on has the address masked in its text and every metadata value."""
    given = Document(TEXT, metadata=dict(METADATA))
    retriever = GuardedRetriever(retriever=ListRetriever(documents=[given]), guard=guard)
    (document,) = retriever.invoke("who do I write to?")
    assert document.page_content == f"Write to {MASK} about the refund."
    assert document.metadata == MASKED
    assert given.metadata["contact"] == EMAIL


def test_haystack_masks_what_the_text_hid_in_the_meta(guard: Guard) -> None:
    """The same for a Haystack Document's ``meta``."""
    given = HaystackDocument(content=TEXT, meta=dict(METADATA))
    (document,) = GuardedDocuments(guard).run("who do I write to?", [given])["documents"]
    assert document.content == f"Write to {MASK} about the refund."
    assert document.meta == MASKED
    assert given.meta["contact"] == EMAIL


def test_llama_index_masks_what_the_text_hid_in_values_kept_from_the_llm(guard: Guard) -> None:
    """A LlamaIndex key excluded from the LLM holding a list is not judged, but what the text's
    mask hid is masked in it as well."""
    node = TextNode(
        text=TEXT,
        metadata={"copies": [EMAIL, "desk"], "dept": "sales"},
        excluded_llm_metadata_keys=["copies"],
    )
    kept = GuardPostprocessor(guard=guard).postprocess_nodes(
        [NodeWithScore(node=node, score=0.9)], query_str="who do I write to?"
    )
    (copy,) = [n.node for n in kept]
    assert copy.metadata == {"copies": [MASK, "desk"], "dept": "sales"}
    assert node.metadata["copies"] == [EMAIL, "desk"]


def test_a_masked_number_is_masked_in_a_number_typed_value() -> None:
    """A card number masked as written in the text is found again in an ``int`` value; other
    numbers, booleans and None stay as they are."""
    masks = [("4111 1111 1111 1111", "[PAYMENT_CARD]")]
    value = {"card": 4111111111111111, "count": 3, "ok": True, "none": None}
    assert scrubbed(value, masks) == {
        "card": "[PAYMENT_CARD]",
        "count": 3,
        "ok": True,
        "none": None,
    }


def test_scrubbing_masks_whole_values_only_in_any_case_and_numbers_by_their_digits() -> None:
    """A short masked value is masked where it stands alone, not inside a longer word or
    number; case does not hide it; a number matches whatever its separators; a dict key is
    masked like a value."""
    masks = [("Li", "[NAME]"), ("$5", "[MONEY]"), ("4111 1111 1111 1111", "[CARD]")]
    given = {
        "file": "Library/limits.pdf",
        "signed": "Mr. LI",
        "fees": "fees_$50.pdf",
        "card": "4111-1111-1111-1111",
        "size": 41111111111111110,
        "by": {"Li": 1},
    }
    assert scrubbed(given, masks) == {
        "file": "Library/limits.pdf",
        "signed": "Mr. [NAME]",
        "fees": "fees_$50.pdf",
        "card": "[CARD]",
        "size": 41111111111111110,
        "by": {"[NAME]": 1},
    }


@pytest.mark.parametrize(
    "written",
    [
        "4111 - 1111 - 1111 - 1111",
        "4111\u20131111\u20131111\u20131111",  # en dashes
        "4111_1111_1111_1111",
        "4111\u200b1111\u200b1111\u200b1111",  # zero-width spaces
        " ".join(["\uff14\uff11\uff11\uff11", *["\uff11" * 4] * 3]),  # full-width digits
        "card 4111/1111/1111/1111 on file",
    ],
)
def test_a_masked_number_is_masked_however_its_digits_are_separated_or_styled(
    written: str,
) -> None:
    """Dashes of any kind, spaced separators, underscores, invisible characters and full-width
    digits do not keep a masked card number in metadata."""
    result = scrubbed({"card": written, "cards": [written]}, [("4111 1111 1111 1111", "[CARD]")])
    assert "1111" not in str(result)
    assert "\uff11" not in str(result)


@pytest.mark.parametrize(
    "written",
    ["jo.roe@exam\u200bple.com", "jo.roe&#64;example.com", "jo.roe\uff20example.com"],
)
def test_a_masked_address_written_with_references_or_invisible_characters_is_masked(
    written: str,
) -> None:
    """An address split by a zero-width space, written with an HTML reference or a full-width
    at sign reads as the masked one: the value becomes the mask."""
    assert scrubbed({"to": written}, [("jo.roe@example.com", "[EMAIL]")]) == {"to": "[EMAIL]"}


CARD_POLICY = """
version: 1
name: cards-masked
extends: [default]
loosen: [rules.default_cardholder]
overrides:
  rules:
    default_cardholder: {action: redact}
"""
CARD_TEXT = "Customer Jane Roe paid with card 4111 1111 1111 1111."


def test_the_core_result_masks_what_the_text_hid_in_the_chunks_metadata() -> None:
    """``GuardResult.allowed`` is what may reach a model: its masked chunk's metadata holds
    neither the name nor the card the text's masks hid, however they are written there."""
    guard = Guard(parse_policy(CARD_POLICY))
    metadata = {"holder": "Roe, Jane", "card": "4111 -- 1111 -- 1111 -- 1111", "source": "b"}
    result = guard.check("who paid?", [{"text": CARD_TEXT, "metadata": metadata}])
    (chunk,) = result.allowed
    assert "[PAYMENT_CARD]" in chunk.text
    assert chunk.metadata == {
        "holder": "[PERSON_NAME], [PERSON_NAME]",
        "card": "[PAYMENT_CARD]",
        "source": "b",
    }


@pytest.mark.parametrize(
    ("written", "masked"),
    [
        (["41111111", "11111111"], ["[CARD]", "[CARD]"]),  # a card split over two values
        ("J. Roe", "[NAME]"),  # its first initial before its last word
        ("jane.roe", "[NAME]"),  # its words joined by marks, or run together
        ("Jane_Roe", "[NAME]"),
        ("Jane\tRoe", "[NAME]"),
        ("JANEROE", "[NAME]"),
        ("jroe", "[NAME]"),
        ("Roe, for now", "[NAME], for now"),  # a word of it that is no common word, alone
    ],
)
def test_a_masked_value_rewritten_or_split_in_metadata_is_masked(
    written: object, masked: object
) -> None:
    """A piece of a masked number is masked wherever it stands alone; a masked name written
    with its words run together or joined by marks, or as its first initial and last word,
    is masked whole, and each of its words that is no common word wherever it stands."""
    masks = [("Jane Roe", "[NAME]"), ("4111 1111 1111 1111", "[CARD]")]
    assert scrubbed({"v": written}, masks) == {"v": masked}


def test_a_masked_names_common_words_and_an_addresss_parts_stay_in_metadata() -> None:
    """``Will`` of ``Will Smith`` is a common word, and an address is no name: only whole
    values and uncommon name words are masked."""
    masks = [("Will Smith", "[NAME]"), ("jo.roe@example.com", "[EMAIL]")]
    assert scrubbed({"a": "Will do", "b": "Smith", "c": "roe.txt"}, masks) == {
        "a": "Will do",
        "b": "[NAME]",
        "c": "roe.txt",
    }


def test_llama_index_masks_a_masked_value_the_llm_metadata_writes_again() -> None:
    """The text's card is masked; a metadata value the LLM sees writes it again with seven
    marks between the groups, which no recogniser reads: it is masked there too, in the
    node's metadata and in what the LLM reads."""
    guard = Guard(parse_policy(CARD_POLICY))
    written = "~~~~~~~".join(["4111"] * 1 + ["1111"] * 3)
    node = TextNode(text=CARD_TEXT, metadata={"card_on_file": written})
    (kept,) = GuardPostprocessor(guard=guard).postprocess_nodes(
        [NodeWithScore(node=node, score=1.0)], query_str="who paid?"
    )
    assert kept.node.metadata == {"card_on_file": "[PAYMENT_CARD]"}
    assert "1111" not in kept.node.get_content(metadata_mode=MetadataMode.LLM)


def test_llama_index_withholds_a_node_whose_llm_metadata_writes_a_masked_value_another_way() -> (
    None
):
    """A metadata value the LLM sees writes the card as ``\\u`` escapes, which a reader of a
    JSON dump still reads and no mask can cover where it stands: the node is withheld."""
    guard = Guard(parse_policy(CARD_POLICY))
    written = "".join(f"\\u{ord(c):04x}" for c in "4111111111111111")
    node = TextNode(text=CARD_TEXT, metadata={"card_on_file": written})
    kept = GuardPostprocessor(guard=guard).postprocess_nodes(
        [NodeWithScore(node=node, score=1.0)], query_str="who paid?"
    )
    assert kept == []


@pytest.mark.parametrize(
    ("metadata", "masked"),
    [
        ({"card": ["4111", "1111", "1111", "1111"]}, {"card": "[CARD]"}),
        ({"card": {"g1": "4111", "g2": "1111", "g3": "1111", "g4": "1111"}}, {"card": "[CARD]"}),
        ({"x": {"y": ("4111", "1111", "1111", "1111")}}, {"x": {"y": "[CARD]"}}),
        (
            {"first8": "4111 1111", "last8": "1111 1111", "n": "a"},
            {"first8": "[CARD]", "last8": "[CARD]", "n": "a"},
        ),
        ({"card": "4111 1111, expires 12/27"}, {"card": "[CARD], expires 12/27"}),
    ],
)
def test_a_masked_number_spread_over_a_containers_items_or_keys_is_masked(
    metadata: dict[str, object], masked: dict[str, object]
) -> None:
    """A card kept as its groups in a list, a mapping or nested tuple is the container's
    value: the container becomes the mask; kept over two keys, both go; a piece of it beside
    other digits is masked alone."""
    assert scrubbed(metadata, [("4111 1111 1111 1111", "[CARD]")]) == masked


def test_groups_shorter_than_a_piece_stay_when_no_container_spells_the_number() -> None:
    """Four digits alone are no masked value: ``1111`` in a ticket number stays."""
    masks = [("4111 1111 1111 1111", "[CARD]")]
    assert scrubbed({"ticket": "T-1111", "ids": ["4111", "9"]}, masks) == {
        "ticket": "T-1111",
        "ids": ["4111", "9"],
    }


def test_a_number_spread_over_keys_in_pieces_too_short_alone_is_masked() -> None:
    """Five, five and six digits over three keys spell the card, though no piece is masked on
    its own: every key holding digits goes."""
    masks = [("4539 1488 0343 6467", "[CARD]")]
    given = {"a": "45391", "b": "48803", "c": "436467", "note": "call back"}
    assert scrubbed(given, masks) == {
        "a": "[CARD]",
        "b": "[CARD]",
        "c": "[CARD]",
        "note": "call back",
    }


def test_a_masked_value_written_again_reaches_no_framework_output(guard: Guard) -> None:
    """The address again in the text (inside a longer word) and percent-encoded in a URL field:
    both masked in what LangChain and Haystack hand on."""
    encoded = EMAIL.replace("@", "%40")
    text = f"Write to {EMAIL}; ticket ref:{EMAIL}_2 logged."
    meta = {"source": f"https://crm.example/contact?email={encoded}", "dept": "sales"}
    retriever = GuardedRetriever(
        retriever=ListRetriever(documents=[Document(text, metadata=dict(meta))]), guard=guard
    )
    (langchain,) = retriever.invoke("who do I write to?")
    given = HaystackDocument(content=text, meta=dict(meta))
    (haystack,) = GuardedDocuments(guard).run("who do I write to?", [given])["documents"]
    for content, metadata in (
        (langchain.page_content, langchain.metadata),
        (haystack.content, haystack.meta),
    ):
        assert "canary.leak" not in content + repr(metadata)
        assert metadata == {"source": MASK, "dept": "sales"}


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        ("jane.roe at example dot com", "[EMAIL]"),  # the address spelled out
        ("jane.roe [at] example [dot] com", "[EMAIL]"),
        ("Thornbury2", "[NAME]2"),  # a name's word glued to a digit
        ("MargaretThornbury", "[NAME]"),  # camel case
        ("/users/margaretThornbury/profile", "/users/[NAME]/profile"),
        ("Thornbury-Margaret", "[NAME]-[NAME]"),
        ("thornburyMargaret", "[NAME][NAME]"),
        ("Thornburyish", "Thornburyish"),  # a longer word is no name
        ("Jose Nunez", "[NAME]"),  # without its accents
        ("mueller.a", "[NAME].a"),  # an umlaut written out
        ("one two three, four five six seven eight nine", "[SSN]"),  # digits read back
        ("123 then 45 then 6789", "[SSN]"),
        ("١٢٣-٤٥-٦٧٨٩", "[SSN]"),  # Arabic-Indic digits
        ("j\u0430ne.roe@example.com", "[EMAIL]"),  # a Cyrillic look-alike letter
        ("\u0422hornbury", "[NAME]"),
        ("meet at noon", "meet at noon"),  # "at" alone writes no address
        ("jane.roe @ example.com", "[EMAIL]"),  # spaces around the "@"
        ("jane.roe＠example。com", "[EMAIL]"),  # another script's "@" and full stop
        ("the Thornburys", "the [NAME]"),  # a family in the plural
        ("T h o r n b u r y", "[NAME]"),  # letter by letter
        ("Thorn-bury", "[NAME]"),  # cut by a hyphen
        ("a b c d e", "a b c d e"),  # letters spelled out that name nothing masked
        ("well-known", "well-known"),
    ],
)
def test_a_masked_value_a_reader_still_reads_in_metadata_is_masked(value: str, masked: str) -> None:
    """Spellings a reader reads as the value: ``at`` and ``dot`` for an address's marks, a
    digit after a name, a name's words in camel case, digits of another script, look-alike
    letters of another script."""
    masks = [
        ("jane.roe@example.com", "[EMAIL]"),
        ("Margaret Thornbury", "[NAME]"),
        ("José Núñez", "[NAME]"),
        ("Anna Müller", "[NAME]"),
    ]
    assert scrubbed({"v": value}, [*masks, ("123-45-6789", "[SSN]")]) == {"v": masked}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Filed by [NAME]. The Thornburys left.", "Filed by [NAME]. The [NAME] left."),
        ("Filed by [NAME], signed T h o r n b u r y.", None),  # no mask covers it in place
        ("Filed by [NAME] (Thorn-bury on the form).", None),
        ("Write to [EMAIL] (or jane.roe @ example.com).", None),
        ("Write to [EMAIL] (alt: jane.roe＠example。com).", None),
        ("Filed by [NAME]; a b c d e f g.", "Filed by [NAME]; a b c d e f g."),
    ],
)
def test_a_masked_value_written_again_in_the_text_is_masked_or_drops_the_chunk(
    text: str, expected: str | None
) -> None:
    """In the masked text, a plural of a masked name is masked; a value spelled letter by
    letter, cut by a hyphen or with spaces around its "@" cannot be masked where it stands, so
    the copy is not made (None: the chunk is withheld)."""
    masks = [("Margaret Thornbury", "[NAME]"), ("jane.roe@example.com", "[EMAIL]")]
    assert scrubbed_text(text, masks) == expected
