"""The Python port of the lab's contracts (traffic/lib/contract.py) against the golden vectors
their home writes (packages/contract/bin/golden-vectors): fails when either side drifts."""
import json
import pathlib

from lib import contract

GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "packages" / "contract" / "golden" / "vectors.json"
V = json.loads(GOLDEN.read_text())


def test_naming():
    assert V["naming"], "no naming vectors"
    for case in V["naming"]:
        t = case["tenant"]
        assert contract.alias_for(t) == case["alias"]
        assert contract.stats_group_for(t) == case["stats_group"]
        for product, expected in case["document_ids"]:
            assert contract.document_id(t, product) == expected


def test_bulk_action():
    assert V["bulk_action"], "no write-contract vectors"
    for case in V["bulk_action"]:
        action = contract.bulk_action(**case["args"])
        assert action == case["action"]
        # byte for byte as JSON.stringify writes it, keys in order
        assert contract.action_line(action) == case["line"]


def test_storefront():
    s = V["storefront"]
    assert contract.SEARCH_FIELDS == s["search_fields"]
    assert contract.AUTOCOMPLETE_FIELD == s["autocomplete_field"]
    for word, typed in s["typed_part"]:
        assert contract.typed_part(word) == typed
