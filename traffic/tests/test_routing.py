"""Where a store's searches go (lib/routing.py): a node of its group, spread over the group's
nodes, and the new group's node once the allocator has moved it. Pure logic."""
import pytest

from lib import config, routing

URLS = {"g1": ["http://127.0.0.1:9201", "http://127.0.0.1:9202"], "g2": ["http://127.0.0.1:9203"]}


def stores():
    return [{"id": "a", "group": "g1", "es_url": ""}, {"id": "b", "group": "g1", "es_url": ""},
            {"id": "c", "group": "g2", "es_url": ""}, {"id": "d", "group": "", "es_url": ""}]


def test_every_store_through_a_node_of_its_group_spread_over_them():
    t = stores()
    assert routing.route(t, URLS) == []
    assert [x["es_url"] for x in t] == ["http://127.0.0.1:9201", "http://127.0.0.1:9202", "http://127.0.0.1:9203", ""]


def test_a_moved_store_goes_through_its_new_group_the_others_keep_their_node():
    t = stores()
    routing.route(t, URLS)
    moved = routing.route(t, URLS, {"a": "g2", "b": "g1", "c": "g2"})
    assert [(x["id"], old, new) for x, old, new in moved] == [("a", "g1", "g2")]
    assert t[0]["group"] == "g2" and t[0]["es_url"] == "http://127.0.0.1:9203"
    assert [x["es_url"] for x in t[1:]] == ["http://127.0.0.1:9202", "http://127.0.0.1:9203", ""]
    # a store the allocator no longer lists keeps its group; unchanged groups route nothing
    assert routing.route(t, URLS, {}) == []


def test_a_group_without_listed_nodes_keeps_the_store_s_url():
    t = [{"id": "a", "group": "g1", "es_url": "http://127.0.0.1:9200"}]
    routing.route(t, {"g2": URLS["g2"]}, {"a": "g3"})
    assert t[0] == {"id": "a", "group": "g3", "es_url": "http://127.0.0.1:9200"}


def test_group_urls_bad_input_is_one_line():
    assert routing.group_urls("") == {}
    assert routing.group_urls('{"g1": ["http://127.0.0.1:9201"]}') == {"g1": ["http://127.0.0.1:9201"]}
    for bad in ["[1]", "{", '{"g1": []}', '{"g1": "http://127.0.0.1:9201"}']:
        with pytest.raises(config.ConfigError, match=r"^GROUP_URLS: want a JSON object"):
            routing.group_urls(bad)
    with pytest.raises(config.ConfigError, match=r"GROUP_URLS g1"):
        routing.group_urls('{"g1": ["http://example.com:9200"]}')
