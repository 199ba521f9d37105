// The console's calls to its allocator: same origin, JSON both ways, one error shape
// ({ error, message }) turned into an Error whose message is the allocator's own sentence.
async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error(data?.message ?? `${method} ${path} answered ${res.status}`);
  return data;
}

export const getJSON = (path) => call('GET', path);
export const postJSON = (path, body) => call('POST', path, body);
