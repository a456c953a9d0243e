"""Change-of-control and warranty fingerprints on drafting forms written for these tests."""

from __future__ import annotations

import pytest

from rag_guard_integrations import load_policy
from rag_guard_integrations.core.patterns import compile_pattern
from rag_guard_integrations.core.sentences import clause_text

POLICY = load_policy("contracts")


def matches(clause_id: str, text: str) -> bool:
    """Whether the clause's fingerprint matches ``text`` as the clause guard sees it."""
    fingerprint = POLICY.clauses[clause_id].fingerprint_regex
    assert fingerprint is not None
    return compile_pattern(fingerprint).search(clause_text(text)) is not None


CHANGE_OF_CONTROL = [
    "Licensor may terminate upon any change-of-control of Licensee.",
    "Any direct or indirect transfer of the equity interests in Vendor requires the Buyer's consent.",  # noqa: E501
    "A sale of the voting shares of the Distributor to a third party shall be notified to the Company.",  # noqa: E501
    "If any person comes to hold thirty-five percent (35%) or more of the outstanding voting securities of Supplier, Customer may terminate.",  # noqa: E501
    "Where 40% of the shares in the Contractor pass to a single holder, the Principal may end this Contract.",  # noqa: E501
    "If the Reseller is consolidated, the Supplier may terminate.",
    "If the Customer falls under the control of a competitor of the Provider, the Provider may terminate.",  # noqa: E501
    "A party holding the power to direct the management of the Licensee is deemed its parent.",
    "Should any person become entitled to appoint a majority of the board of the Supplier, the Customer may terminate.",  # noqa: E501
    "Any person within the meaning of Section 13(d) of the Exchange Act who gains that position must be disclosed.",  # noqa: E501
    "The surviving corporation shall assume all obligations hereunder.",
    "A tender offer for the Licensee entitles the Licensor to terminate.",
    "If the Seller sells substantially all of its business to a third party, the Buyer may terminate.",  # noqa: E501
    "The Acquirer shall be bound by this Agreement.",
    "Neither party may assign this Agreement, whether voluntarily or by operation of law, without consent.",  # noqa: E501
    "Any change in the shareholding structure of the Agent must be reported to the Principal.",
    "If the Licensee ceases to be a wholly-owned subsidiary of its parent, this licence ends.",
    "The purchaser of the Supplier's business shall take over this Contract.",
    "A new controlling stockholder of the Company must accept these terms.",
    "Any stock sale that brings in a new owner requires notice.",
]  # fmt: skip

NOT_CHANGE_OF_CONTROL = [
    # The passive-investment carve-out of a non-compete: a small holding is no control.
    "The Supplier shall not, directly or indirectly, hold more than five percent (5%) of the shares of a competitor.",  # noqa: E501
    "Holding 3% of the publicly traded stock of a competitor is not a breach.",
    "The goods are sold to the Customer on the terms of this Agreement.",
    "Ten percent (10%) of the fees shall be withheld until acceptance.",
    "Interest accrues at twenty percent (20%) per annum on late payments.",
    "The Distributor may transfer title to the goods to its customers.",
    "The Consultant shall report to the management of the Company.",
    "This Agreement binds the parties and their successors and permitted assigns.",
    "The buyer of the Products shall inspect them on delivery.",
]  # fmt: skip

WARRANTY = [
    "Vendor provides a warranty of eighteen (18) months on all parts.",
    "The Equipment shall be free from errors and faults.",
    "Seller guarantees that the units will perform as described.",
    "The Contractor remains liable for latent defects discovered after handover.",
    "All services will be performed in a professional and workmanlike manner.",
    "The warranties given in this clause shall survive the closing.",
    "The Manufacturer warrants the Goods until the second anniversary of shipment.",
    "Any warranty claims must be made in writing.",
    "The Licensor represents and warrants that it owns the Software.",
    "Each Unit is warranted against breakage.",
    "The Software is provided 'AS IS' and Licensor disclaims all other warranties.",
    "THE SUPPLIER MAKES NO WARRANTY OF MERCHANTABILITY OR FITNESS FOR A PARTICULAR PURPOSE.",
    "The foregoing is in lieu of all other warranties, express or implied.",
    "The goods are sold on an as-is, where-is basis.",
    "The Vehicle shall be delivered in good working order.",
    "Buyer accepts the Equipment with all faults.",
]  # fmt: skip

NOT_WARRANTY = [
    # "as is" is ordinary English unless it is quoted or names the basis of a sale.
    "The Consultant shall use such methods as is customary in the industry.",
    "Payment is due as is set out in Schedule 2.",
    "Licensee shall keep the premises in good repair.",
    "The Supplier shall maintain insurance against product liability.",
    "The Customer shall pay invoices within thirty (30) days of receipt.",
    "The Distributor will make no representations beyond the published specifications.",
]  # fmt: skip


@pytest.mark.parametrize("text", CHANGE_OF_CONTROL)
def test_change_of_control_forms_match(text: str) -> None:
    """Each usual way of drafting a change of control matches the fingerprint."""
    assert matches("CHANGE_OF_CONTROL", text)


@pytest.mark.parametrize("text", NOT_CHANGE_OF_CONTROL)
def test_near_misses_are_no_change_of_control(text: str) -> None:
    """Small holdings, sold goods, fee percentages and successors-and-assigns are not the clause."""
    assert not matches("CHANGE_OF_CONTROL", text)


@pytest.mark.parametrize("text", WARRANTY)
def test_warranty_forms_match(text: str) -> None:
    """Active, passive and joint warranties, their periods and their disclaimers match."""
    assert matches("WARRANTY", text)


@pytest.mark.parametrize("text", NOT_WARRANTY)
def test_near_misses_are_no_warranty(text: str) -> None:
    """English "as is", repair covenants, payment periods and bare representations do not."""
    assert not matches("WARRANTY", text)
