"""HTTP to the cluster: one keep-alive connection pool per node URL (geventhttpclient, the client
Locust's FastHttpUser is built on), the cluster's credentials and CA on every request. Errors are
answers too: a refused connection or a timeout comes back as status 0 with its reason, so the
caller counts it instead of losing it."""
import ssl
from urllib.parse import urlsplit

import gevent
from geventhttpclient import HTTPClient

from . import config

JSON = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}


class Answer:
    __slots__ = ("status", "body", "error")

    def __init__(self, status, body=b"", error=""):
        self.status = status
        self.body = body
        self.error = error


def _ssl_context_factory():
    ctx = ssl.create_default_context(cafile=config.ES_CA_CERT or None)
    if not config.ES_TLS_VERIFY:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Pool:
    """Clients by base URL; `concurrency` connections each (the open model's in-flight cap)."""

    def __init__(self, concurrency=64, network_timeout=30.0):
        self.concurrency = concurrency
        self.network_timeout = network_timeout
        self.clients = {}
        auth = config.authorization()
        self.headers = {"Authorization": auth} if auth else {}

    def client(self, base):
        c = self.clients.get(base)
        if c is None:
            parts = urlsplit(base)
            https = parts.scheme == "https"
            kw = dict(concurrency=self.concurrency, connection_timeout=10.0, network_timeout=self.network_timeout,
                      headers={"User-Agent": "tenantlab-load (locust)", "Connection": "keep-alive", **self.headers})
            if https:
                kw.update(ssl=True, ssl_context_factory=_ssl_context_factory, insecure=not config.ES_TLS_VERIFY)
            c = HTTPClient(parts.hostname, parts.port or (443 if https else 80), **kw)
            self.clients[base] = c
        return c

    def request(self, method, url, body=b"", headers=None, timeout=None):
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        try:
            with gevent.Timeout(timeout or self.network_timeout + 5):
                res = self.client(base).request(method, path, body=body, headers=headers or {})
                try:
                    data = res.read()
                finally:
                    res.release()
                return Answer(res.status_code, data)
        except gevent.Timeout:
            return Answer(0, b"", "timeout")
        except Exception as err:  # noqa: BLE001 - any transport error is an answer the run counts
            return Answer(0, b"", f"{type(err).__name__}: {err}")

    def close(self):
        for c in self.clients.values():
            c.close()
        self.clients.clear()
