"""The lab's contracts as the load engine needs them: a port of packages/contract (naming.js,
write-contract.js, storefront.js), the one home of these rules. The port is checked against the
golden vectors that home writes (packages/contract/golden/vectors.json, made by
packages/contract/bin/golden-vectors): traffic/tests/test_contract.py fails when either side drifts.
"""
import json
import math

# naming.js
ALIAS_PREFIX = "tenant-"


def alias_for(tenant_id):
    return f"{ALIAS_PREFIX}{tenant_id}"


def stats_group_for(tenant_id):
    """The search stats group a tenant's searches carry: its alias name."""
    return alias_for(tenant_id)


def document_id(tenant_id, product_id):
    return f"{tenant_id}:{product_id}"


# write-contract.js
VERSION_TYPE = "external_gte"


def bulk_action(id, version, index=None, routing=None, op="index"):
    """The bulk action of one versioned write, keys in the contract's order."""
    meta = {}
    if index is not None:
        meta["_index"] = index
    meta["_id"] = id
    meta["version"] = version
    meta["version_type"] = VERSION_TYPE
    if routing:
        meta["routing"] = routing
    return {op: meta}


def action_line(action):
    """An action as the JavaScript side serialises it (JSON.stringify: no spaces)."""
    return json.dumps(action, separators=(",", ":"), ensure_ascii=False)


# storefront.js
SEARCH_FIELDS = ["name^2", "name.partial", "description", "sku^3", "sku.partial", "keywords^2", "keywords.partial", "brand_name^2"]
AUTOCOMPLETE_FIELD = "name.partial"


def typed_part(word):
    """A word as a shopper types it before finishing: its first 60%, at least 2 characters."""
    return word[: max(2, math.ceil(len(word) * 0.6))]
