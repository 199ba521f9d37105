"""Settings (lib/config.py): durations as make load and the experiment specs write them; the
loopback-only rule."""
import pytest

from lib.config import ConfigError, checked_url, seconds


def test_durations():
    assert seconds("45s") == 45 and seconds("2m") == 120 and seconds("1h30m") == 5400
    assert seconds("500ms") == 0.5 and seconds("1.5s") == 1.5
    for bad in ("", "forever", "5", "-1s", "1d"):
        with pytest.raises(ConfigError):
            seconds(bad)


def test_loopback_only():
    assert checked_url("ES_URL", "http://127.0.0.1:9200/") == "http://127.0.0.1:9200"
    assert checked_url("ES_URL", "http://es-master:9200") == "http://es-master:9200"
    for bad in ("http://10.1.2.3:9200", "http://example.com:9200", "ftp://127.0.0.1"):
        with pytest.raises(ConfigError):
            checked_url("ES_URL", bad)
    # an external cluster the user named: anywhere
    assert checked_url("ES_URL", "https://search.example.com:9243", external=True)


def test_numbers_and_choices_from_the_environment(monkeypatch):
    from lib.config import env_choice, env_number
    monkeypatch.setenv("N", "3")
    assert env_number("N", 1, minimum=1, maximum=8, integer=True) == 3
    monkeypatch.setenv("N", "12")
    with pytest.raises(ConfigError, match=r"^N=12: want a whole number from 1 to 8$"):
        env_number("N", 1, minimum=1, maximum=8, integer=True)
    monkeypatch.delenv("N")
    assert env_number("N", 5, maximum=1) == 5, "the default is not checked"
    assert env_choice("KIND", "bot", ("bot", "resubmit")) == "bot"
    monkeypatch.setenv("KIND", "Bot")
    with pytest.raises(ConfigError, match=r"^KIND=Bot: want one of bot, resubmit$"):
        env_choice("KIND", "bot", ("bot", "resubmit"))
