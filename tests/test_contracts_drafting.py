"""Change-of-control, warranty and termination-notice fingerprints on drafting forms written
for these tests."""

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

# One sentence per drafting convention of a change-of-control clause (id: the convention).
CHANGE_OF_CONTROL_CONVENTIONS = [
    ("merger", "If the Licensee merges with or into another corporation, the Licensor may terminate this Licence."),  # noqa: E501
    ("merger-passive-negated", "The Supplier shall not be merged into any other entity without the Buyer's written approval."),  # noqa: E501
    ("merger-negated", "The Company shall not merge or consolidate with any other entity."),
    ("consolidation", "Any consolidation of the Distributor with a third party requires thirty days' notice."),  # noqa: E501
    ("reorganisation", "A reorganisation of the Contractor's group does not release it from its obligations."),  # noqa: E501
    ("substantially-all-assets", "If the Vendor sells or otherwise disposes of all or substantially all of its assets, the Customer may end this Agreement."),  # noqa: E501
    ("sale-of-the-company", "Upon the sale of the Company, this Agreement shall continue with the purchaser."),  # noqa: E501
    ("purchase-of-substantially-all", "Should a third party purchase substantially all of the Seller's product lines, the Buyer may terminate."),  # noqa: E501
    ("whole-or-part-of-business", "Any conveyance of the whole or part of its business to a third party requires the Licensor's consent."),  # noqa: E501
    ("substantial-part-of-undertaking", "If the Agent transfers the whole or a substantial part of the Agent's undertaking, the Principal may terminate."),  # noqa: E501
    ("business-is-sold", "If the Distributor's business is sold to another firm, this Agreement ends."),  # noqa: E501
    ("divestment", "If the Vendor divests the division that supplies the Services, the Customer may terminate."),  # noqa: E501
    ("succession-to-business", "An entity that succeeds to all or substantially all of the Reseller's operations is bound hereby."),  # noqa: E501
    ("interest-in-the-entity", "The Franchisee shall not sell or pledge any ownership interest in the Franchisee without approval."),  # noqa: E501
    ("stake-in", "Should the Founder sell his stake in the Company, the Investor may terminate."),
    ("shares-sold", "The Founders shall not sell or pledge their shares without the Investor's approval."),  # noqa: E501
    ("percent-words-and-numerals", "If any person becomes the beneficial owner of fifty-one percent (51%) of the Supplier's shares, the Customer may terminate."),  # noqa: E501
    ("smaller-holding-or-more", "If a competitor comes to hold fifteen percent (15%) or more of the Company's common stock, the Partner may terminate."),  # noqa: E501
    ("fraction", "Should any person come to own more than one half of the issued share capital of the Contractor, the Client may terminate."),  # noqa: E501
    ("majority-of-voting-power", "Any person acquiring a majority of the voting power of the Licensee must assume these obligations."),  # noqa: E501
    ("voting-capital", "A transfer of voting capital of the Agent requires consent."),
    ("beneficially-owns", "Any entity that beneficially owns the Licensee's units must sign this Agreement."),  # noqa: E501
    ("majority-owned", "The Supplier shall remain majority-owned by its current parent."),
    ("controlling-interest", "The acquisition of a controlling interest in the Reseller requires the Supplier's consent."),  # noqa: E501
    ("direct-or-indirect-holding", "If a competitor holds, directly or indirectly, over half of the units of the Distributor, the Supplier may terminate."),  # noqa: E501
    ("direct-or-indirect-change", "Any direct or indirect change in the ownership of the Agent must be notified to the Principal."),  # noqa: E501
    ("change-in-control", "The Licensee shall not undergo a change in control without the Licensor's prior written consent."),  # noqa: E501
    ("change-in-management", "A change in the management of the Contractor entitles the Client to terminate."),  # noqa: E501
    ("change-in-partners", "Any change in the partners of the Consultant firm must be notified to the Client within ten days."),  # noqa: E501
    ("change-of-board", "A change of the board of directors of the Agent entitles the Principal to review this Agreement."),  # noqa: E501
    ("change-of-parent", "A change in the ultimate parent company of the Supplier entitles the Buyer to terminate."),  # noqa: E501
    ("incumbent-board", "The Supplier shall notify the Buyer whenever the Incumbent Board no longer approves its nominees."),  # noqa: E501
    ("chief-executive-leaves", "If Jane Roe ceases to be the Chief Executive Officer of the Supplier, the Customer may terminate."),  # noqa: E501
    ("ceases-to-control", "If the Parent no longer controls the Licensee, the licence granted here ends."),  # noqa: E501
    ("ceasing-to-own", "Upon the Guarantor ceasing to own the Borrower, the guarantee lapses."),
    ("transfer-of-control", "Any transfer of effective control of the Operator requires the Owner's prior written consent."),  # noqa: E501
    ("control-transferred", "If control of the Reseller is transferred to a third party, the Manufacturer may end this Agreement."),  # noqa: E501
    ("ownership-passes", "Where ownership of the company passes to a new holder, the Lender's approval is required."),  # noqa: E501
    ("takes-control", "Should a competitor take control of the Licensee, the Licensor may terminate."),  # noqa: E501
    ("actual-controller", "Party B shall inform Party A before its actual controller is replaced."),
    ("joins-a-group", "If the Customer becomes part of a group that competes with the Provider, the Provider may terminate."),  # noqa: E501
    ("new-parent", "Any new parent company of the Reseller must accept these terms."),
    ("deemed-assignment", "Any reverse triangular transaction involving the Licensee shall be treated as an assignment of this Licence."),  # noqa: E501
    ("operation-of-law", "An assignment by operation of law in a merger is an assignment for the purposes of this clause."),  # noqa: E501
    ("series-of-transactions", "The threshold applies whether reached in a single transaction or a series of related transactions."),  # noqa: E501
    ("person-or-group", "Any person or group that comes to hold the power to elect the directors must be disclosed."),  # noqa: E501
    ("holders-immediately-before", "The right lapses unless the shareholders of the Licensee immediately before the event keep their holdings."),  # noqa: E501
    ("defined-transaction", "Upon a Fundamental Transaction, the holder may require the Company to redeem the Note."),  # noqa: E501
    ("defined-control-event", "The Licensee shall give notice of any Control Event within ten days."),  # noqa: E501
    ("termination-upon-change-of-control", "This Agreement terminates automatically upon a Change of Control of the Distributor."),  # noqa: E501
    ("termination-upon-change-of-status", "In the event of any change in the Buyer's legal status, the Seller may terminate this Agreement."),  # noqa: E501
    ("notice-of-change-of-constitution", "The Licensee shall notify the Licensor promptly of any change in its constitution."),  # noqa: E501
    ("termination-upon-change-in-circumstances", "Upon any material change in circumstances of the Buyer, the Seller may terminate deliveries."),  # noqa: E501
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
    # A plain anti-assignment clause, goods and their control passing, notices of other changes,
    # a change in law, a volume rebate, an affiliate definition and an IP assignment are not
    # a change of control.
    "Neither party may assign this Agreement without the prior written consent of the other party.",
    "Neither party may assign or transfer this Agreement or any interest in it without consent.",
    "Risk of loss and control of the goods pass to the Buyer on delivery.",
    "The Distributor shall notify the Supplier of any change in its address or bank details.",
    "Any change in circumstances affecting delivery shall be notified to the Buyer.",
    "If a change in law makes performance unlawful, either party may terminate this Agreement.",
    "If the Customer purchases fifteen percent (15%) or more above the forecast, a rebate applies.",
    "The Consultant no longer holds any Confidential Information once it is returned.",
    "The Licensee shall be deemed to have accepted the Deliverables after ten days.",
    "'Affiliate' means any entity that directly or indirectly controls, is controlled by or is under common control with a party.",  # noqa: E501
    "Neither party acquires any interest in the other party's intellectual property.",
    "Shareholders of record immediately after the record date receive the dividend.",
    "After termination the Distributor may sell its remaining stock of the Products.",
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


@pytest.mark.parametrize(
    "text",
    [text for _, text in CHANGE_OF_CONTROL_CONVENTIONS],
    ids=[convention for convention, _ in CHANGE_OF_CONTROL_CONVENTIONS],
)
def test_change_of_control_conventions_match(text: str) -> None:
    """Each drafting convention of a change-of-control clause is recognised."""
    assert matches("CHANGE_OF_CONTROL", text)


@pytest.mark.parametrize("text", NOT_CHANGE_OF_CONTROL)
def test_near_misses_are_no_change_of_control(text: str) -> None:
    """Small holdings, sold goods, plain anti-assignment and other changes are not the clause."""
    assert not matches("CHANGE_OF_CONTROL", text)


@pytest.mark.parametrize("text", WARRANTY)
def test_warranty_forms_match(text: str) -> None:
    """Active, passive and joint warranties, their periods and their disclaimers match."""
    assert matches("WARRANTY", text)


@pytest.mark.parametrize("text", NOT_WARRANTY)
def test_near_misses_are_no_warranty(text: str) -> None:
    """English "as is", repair covenants, payment periods and bare representations do not."""
    assert not matches("WARRANTY", text)


# One sentence per way of drafting a notice to end an agreement (id: the convention).
TERMINATION_NOTICE_CONVENTIONS = [
    ("bring-to-an-end", "The Principal may bring the agency to an end by giving the Agent at least two months' written notice."),  # noqa: E501
    ("passive-cancellation", "This Order may be cancelled by the Buyer on fourteen (14) days notice."),  # noqa: E501
    ("notice-no-later-than", "The Licensee may cancel by giving notice no later than sixty days before the anniversary date."),  # noqa: E501
    ("notice-of-a-period", "Either party may, by notice to the other of not less than one (1) year, terminate this Agreement."),  # noqa: E501
    ("resignation", "The Director may resign from office by giving the Company three months' notice in writing."),  # noqa: E501
    ("notice-to-quit", "The landlord may serve a notice to quit giving the tenant not less than 28 days' notice."),  # noqa: E501
    ("stop-a-renewal", "To stop the plan from renewing, the Customer must tell the Provider at least 10 days before the renewal date."),  # noqa: E501
    ("plain-warning", "Either of us may end this agreement by giving the other four weeks' warning."),  # noqa: E501
]  # fmt: skip

NOT_TERMINATION_NOTICE = [
    "The restriction does not apply to an employee who has resigned and served at least three months' notice.",  # noqa: E501
    "The insurance policies shall not be cancelled without thirty (30) days' prior written notice to the Company.",  # noqa: E501
    "Any notice shall be deemed received two (2) business days after it is posted.",
    "The Supplier shall bring any defect to an end within 5 days of being notified of it.",
    "Invoices are payable no later than thirty days after the date of invoice.",
]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [text for _, text in TERMINATION_NOTICE_CONVENTIONS],
    ids=[convention for convention, _ in TERMINATION_NOTICE_CONVENTIONS],
)
def test_termination_notice_conventions_match(text: str) -> None:
    """Each way of drafting a notice period to end an agreement is recognised."""
    assert matches("TERMINATION_NOTICE", text)


@pytest.mark.parametrize("text", NOT_TERMINATION_NOTICE)
def test_notice_periods_that_end_nothing_are_no_termination_notice(text: str) -> None:
    """A cancelled insurance policy, deemed receipt, a remedied defect or a payment period is
    not a notice to end the agreement."""
    assert not matches("TERMINATION_NOTICE", text)


# Other clauses that mention law, a cap or a cited heading, and are no such clause.
NOT_OTHER_CLAUSES = [
    ("GOVERNING_LAW", "If any provision is held invalid, the rest shall be enforced to the fullest extent permitted by law."),  # noqa: E501
    ("GOVERNING_LAW", "Each party shall, subject to applicable law, comply with all anti-bribery rules."),  # noqa: E501
    ("GOVERNING_LAW", "The Customer shall comply with the export control laws of the United States applicable to it."),  # noqa: E501
    ("GOVERNING_LAW", "Without prejudice to Clause 25 (Governing Law), any dispute shall first be referred to the steering committee."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "Interest on late payments shall not exceed eighteen percent (18%) per annum."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "Travel expenses in any month shall not exceed ten percent (10%) of the Fees."),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), NOT_OTHER_CLAUSES)
def test_boilerplate_that_mentions_law_caps_or_cited_headings_is_not_the_clause(
    clause_id: str, text: str
) -> None:
    """Severability, compliance, export control, a cross-reference to the clause's heading, an
    interest cap and an expenses cap do not match the governing-law or liability fingerprint."""
    assert not matches(clause_id, text)


def test_a_clause_that_names_its_own_heading_keeps_it() -> None:
    """ "This Section 8 (Confidentiality) shall survive ..." still reads its own heading."""
    text = "The provisions of this Section 8 (Confidentiality) shall survive for five (5) years."
    assert "confidentiality" in clause_text(text)


# A confidentiality term written without the word "confidential" (id: the convention).
CONFIDENTIALITY_TERM_CONVENTIONS = [
    ("duty-of-confidence", "The duty of confidence owed by the Recipient shall subsist for seven years from disclosure."),  # noqa: E501
    ("non-disclosure", "The non-disclosure obligations remain in force for three (3) years after termination."),  # noqa: E501
    ("secrecy", "The obligation of secrecy shall continue to apply for a period of five years."),
    ("nda", "The obligations of this NDA shall survive for twenty-four (24) months."),
]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [text for _, text in CONFIDENTIALITY_TERM_CONVENTIONS],
    ids=[convention for convention, _ in CONFIDENTIALITY_TERM_CONVENTIONS],
)
def test_confidentiality_term_conventions_match(text: str) -> None:
    """A duty of confidence, non-disclosure, secrecy or an NDA that lasts a period is the
    confidentiality term, whether or not the word "confidential" is there."""
    assert matches("CONFIDENTIALITY_TERM", text)


UNSEEN_DRAFTING = [
    # a notice of non-renewal given a period before the term ends, the sign on either side
    ("TERMINATION_NOTICE", "Unless a party gives notice no later than ninety (90) days before the expiry of the current term of its wish not to renew, the term continues."),  # noqa: E501
    ("TERMINATION_NOTICE", "If the Buyer does not want the Agreement to continue beyond the Initial Term, it must tell the Seller at least two months prior to the end of that term."),  # noqa: E501
    ("TERMINATION_NOTICE", "Subscribers may cancel online at least thirty days before the renewal date."),  # noqa: E501
    # a right at will stated before its verb; "determine" for terminate in older drafting
    ("TERMINATION_NOTICE", "The Council may, in its absolute discretion, terminate the Contract by giving notice to the Provider."),  # noqa: E501
    ("TERMINATION_NOTICE", "The Tenant may determine this Lease by serving not less than six months' notice on the Landlord."),  # noqa: E501
    ("RENEWAL", "Absent notice, the Agreement rolls over for another year."),
    ("RENEWAL", "The parties may agree that the term shall be further extended."),
    ("EXCLUSIVITY", "The Maker appoints the Trader as its sole and exclusive importer for Kenya."),
    ("EXCLUSIVITY", "The Buyer shall take one hundred percent (100%) of its annual needs of resin from the Seller."),  # noqa: E501
    ("AUDIT_RIGHTS", "The Client may examine the Vendor's project files and vouchers for any invoiced item."),  # noqa: E501
    ("NON_SOLICIT", "Neither party shall try to lure away any of the other's staff during the Term."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "No claim under this Agreement may be made by the Customer more than two years after the date on which it arose."),  # noqa: E501
    ("LIMITATION_OF_LIABILITY", "Any action for breach must be brought within one year of delivery."),  # noqa: E501
    ("PAYMENT_TERMS", "The Distributor shall remit the fees collected no later than the tenth day of each month."),  # noqa: E501
    ("PAYMENT_TERMS", "Overdue amounts carry interest at two percent above the base rate."),
    ("PAYMENT_TERMS", "Hosting is billed quarterly in advance."),
    ("PAYMENT_TERMS", "The balance is payable on delivery of the goods."),
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), UNSEEN_DRAFTING)
def test_conventions_of_unseen_drafting_match(clause_id: str, text: str) -> None:
    """Forms from drafting styles the earlier conventions missed: non-renewal notice timed
    from the end of a term, rights at will, older verbs, role nouns, requirements shares,
    files and vouchers, luring staff away, time limits on claims, remitting, interest on late
    sums, billing in advance, payment on delivery."""
    assert matches(clause_id, text)


TIMED_LOOKALIKES = [
    ("TERMINATION_NOTICE", "The Supplier shall deliver the goods at least ten days before the end of each quarter."),  # noqa: E501
    ("TERMINATION_NOTICE", "Reports are due thirty (30) days prior to the anniversary of the Effective Date."),  # noqa: E501
    ("TERMINATION_NOTICE", "The arbitrator shall determine the dispute within sixty days of notice."),  # noqa: E501
    ("RENEWAL", "Unused leave does not roll into the next year."),
    ("AUDIT_RIGHTS", "Each party shall keep its own files."),
    ("LIMITATION_OF_LIABILITY", "No claim for a refund is accepted more than once."),
    ("PAYMENT_TERMS", "The parties shall settle any dispute amicably."),
    ("PAYMENT_TERMS", "Notice is deemed given on receipt."),
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), TIMED_LOOKALIKES)
def test_timed_duties_and_lookalikes_are_not_those_clauses(clause_id: str, text: str) -> None:
    """A deadline before the end of a period that ends nothing, a verb in another sense, a
    file that nobody may examine, a repeated claim with no time bar."""
    assert not matches(clause_id, text)


LATER_DRAFTING = [
    # a period written as a figure and then in words
    ("TERMINATION_NOTICE", "The Buyer may terminate this Contract for convenience upon 45 (forty-five) days prior written notice."),  # noqa: E501
    # a notice that takes effect some time after it is given, in the next sentence
    ("TERMINATION_NOTICE", "Either of us may cancel the subscription by writing to the other. The cancellation becomes effective two months after it is received."),  # noqa: E501
    # a purchase order cancelled at will, with no period
    ("TERMINATION_NOTICE", "The Purchaser may cancel this Order at any time for its convenience by notice to the Vendor."),  # noqa: E501
    # a non-renewal notice due by a date, or a period before the term's last day
    ("TERMINATION_NOTICE", "A party that elects not to renew must say so in writing no later than 30 June of the final contract year."),  # noqa: E501
    ("TERMINATION_NOTICE", "The Client may opt out of the next term by notice given at least sixty days before the last day of the current term."),  # noqa: E501
    ("TERMINATION_NOTICE", "Either party may decline any further extension by notice served at least six months before the end of the term."),  # noqa: E501
    ("RENEWAL", "The Licensee may give notice of its intention not to renew this Licence."),
    ("RENEWAL", "The Operator may apply for a successor franchise of five years."),
    ("NON_COMPETE", "During the Term the Dealer shall not sell rival pumps in the Region for itself or for any other person."),  # noqa: E501
    ("NON_SOLICIT", "The Agency shall not encourage any consultant of the Client to end his engagement with the Client."),  # noqa: E501
    ("AUDIT_RIGHTS", "The Seller bears the cost of any such inspection where it finds an underpayment of more than five percent (5%)."),  # noqa: E501
    ("EXCLUSIVITY", "The rights granted under Clause 3 are exclusive, even as to the Owner."),
    ("LIMITATION_OF_LIABILITY", "and in no event shall it exceed the fees actually paid for the Services concerned"),  # noqa: E501
    # words a line break split at a hyphen, as extracted text keeps them
    ("ASSIGNMENT", "The Reseller shall not as- sign this Agreement without prior written consent."),
    ("AUDIT_RIGHTS", "The Owner may au- dit the books of the Tenant once a year."),
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), LATER_DRAFTING)
def test_periods_in_figures_and_words_dates_and_split_words_match(
    clause_id: str, text: str
) -> None:
    """Periods in figures then words, notices effective after a delay, cancelling an order at
    will, non-renewal by a date or before a term's last day, declining an extension, a
    successor franchise, competing for oneself or others, inducing staff to leave, the cost
    of an inspection, a grant that is exclusive, a cap by the amount paid, split words."""
    assert matches(clause_id, text)


LATER_LOOKALIKES = [
    ("TERMINATION_NOTICE", "Any notice under this Agreement shall be effective three (3) days after mailing."),  # noqa: E501
    ("TERMINATION_NOTICE", "Invoices must be submitted no later than 31 January of each year."),
    ("RENEWAL", "The Company shall not renew any lease of office space without the Board's approval."),  # noqa: E501
    ("EXCLUSIVITY", "The remedies set out in this Section are exclusive."),
    ("EXCLUSIVITY", "The Supplier grants the Buyer a non- exclusive licence to use the Marks."),
    ("LIMITATION_OF_LIABILITY", "The price shall in no event exceed the list price."),
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), LATER_LOOKALIKES)
def test_notices_deadlines_remedies_and_prices_are_not_those_clauses(
    clause_id: str, text: str
) -> None:
    """A notice that takes effect after mailing, a deadline for invoices, a lease not renewed,
    exclusive remedies, a licence split as "non- exclusive", a price capped by a price."""
    assert not matches(clause_id, text)


PLAIN_AND_ONLY_DRAFTING = [
    # a termination "in advance", and a plain-English wish not to renew
    ("TERMINATION_NOTICE", "You may close your account and end this agreement by letting us know two weeks in advance."),  # noqa: E501
    ("TERMINATION_NOTICE", "If you do not want the membership to renew, email us at least 7 days before the renewal date."),  # noqa: E501
    ("RENEWAL", "Tell us if you don't want your cover to renew."),
    ("RENEWAL", "Each party may give notice of its election not to renew at least ninety days before the term ends."),  # noqa: E501
    # dealing only in the other party's goods, or making them for it alone
    ("EXCLUSIVITY", "The Dealer shall carry only the Manufacturer's tractors at its premises."),
    ("EXCLUSIVITY", "Contractor will produce the Components exclusively for Customer during the Term."),  # noqa: E501
    ("EXCLUSIVITY", "The Owner shall not supply the Fuel to any other operator at the Airport."),
    ("EXCLUSIVITY", "The Licensor grants an exclusive (even as to the Licensor) licence in the Field."),  # noqa: E501
    # a cap in plain English
    ("LIMITATION_OF_LIABILITY", "The most either party will have to pay the other is the fees for one year."),  # noqa: E501
]  # fmt: skip

PLAIN_AND_ONLY_LOOKALIKES = [
    ("EXCLUSIVITY", "The Customer may use the Software solely for the benefit of its own business."),  # noqa: E501
    ("EXCLUSIVITY", "The Licensee shall use only the current version of the Software."),
    ("LIMITATION_OF_LIABILITY", "Price increases shall not exceed the fees paid in the prior year by more than three percent."),  # noqa: E501
    ("TERMINATION_NOTICE", "Please book your delivery slot at least two days in advance."),
]  # fmt: skip


@pytest.mark.parametrize(("clause_id", "text"), PLAIN_AND_ONLY_DRAFTING)
def test_plain_english_notices_dealing_only_in_goods_and_plain_caps_match(
    clause_id: str, text: str
) -> None:
    """A termination in advance, not wanting a renewal, an election not to renew, carrying or
    making only one party's goods, a supply to no other, an exclusive licence "(even as to)"
    and a cap in plain words."""
    assert matches(clause_id, text)


@pytest.mark.parametrize(("clause_id", "text"), PLAIN_AND_ONLY_LOOKALIKES)
def test_use_restrictions_price_caps_and_bookings_are_not_those_clauses(
    clause_id: str, text: str
) -> None:
    """A licence used for its holder's benefit or in one version, a cap on price increases and
    a booking made in advance."""
    assert not matches(clause_id, text)


@pytest.mark.parametrize(
    "text",
    [
        "All prices are exclusive of sales, use and value added taxes.",
        "Fees are exclusive of all applicable sales taxes, which Customer shall pay.",
        "The foregoing states the entire liability and exclusive remedy of Vendor with "
        "respect to the use of the Products.",
    ],
)
def test_prices_exclusive_of_taxes_and_an_exclusive_remedy_of_a_party_are_no_exclusivity(
    text: str,
) -> None:
    """``exclusive of`` excludes (taxes from a price) and a party's exclusive remedy is a
    limit on remedies: neither grants an exclusive right."""
    assert not matches("EXCLUSIVITY", text)


@pytest.mark.parametrize(
    "text",
    [
        "Distributor shall be the exclusive distributor of the Products in the Territory.",
        "Company grants Licensee an exclusive, worldwide, royalty-free license to sell.",
    ],
)
def test_an_exclusive_appointment_or_licence_still_matches(text: str) -> None:
    """The words between ``exclusive`` and what is exclusive may be anything but ``of``."""
    assert matches("EXCLUSIVITY", text)
