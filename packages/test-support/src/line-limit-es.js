// A stand-in for Elasticsearch's HTTP layer in unit tests of request sizes: it records every
// request line and refuses one longer than Elasticsearch's http.max_initial_line_length (4096
// bytes) the way a node does (400, too_long_http_line_exception), so a test sees the failure a
// 10,000-tenant lab saw, without a cluster. Answers come from the test's handler; loopback only.
import { createServer } from 'node:http';

export const MAX_INITIAL_LINE = 4096;

/**
 * startLineLimitEs(handler) -> { url, lines, close() }. handler({ method, path, query, body })
 * returns the JSON answer (undefined: {}). `lines` holds every request line as sent
 * ("METHOD URL HTTP/1.1"), the refused ones too.
 */
export async function startLineLimitEs(handler = () => ({})) {
  const lines = [];
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    const line = `${req.method} ${req.url} HTTP/${req.httpVersion}`;
    lines.push(line);
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const send = (status, obj) => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
        res.end(JSON.stringify(obj));
      };
      if (Buffer.byteLength(line) > MAX_INITIAL_LINE) {
        send(400, { error: { type: 'too_long_http_line_exception', reason: `An HTTP line is larger than ${MAX_INITIAL_LINE} bytes.` }, status: 400 });
        return;
      }
      const u = new URL(req.url, 'http://127.0.0.1');
      const text = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try { body = text ? JSON.parse(text) : null; } catch { body = text; }
      try {
        send(200, (await handler({ method: req.method, path: decodeURIComponent(u.pathname), query: Object.fromEntries(u.searchParams), body })) ?? {});
      } catch (e) {
        send(500, { error: { type: 'test_handler_failed', reason: e.message }, status: 500 });
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    lines,
    longest: () => Math.max(0, ...lines.map((l) => Buffer.byteLength(l))),
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
