// Bash glob patterns (the allowed-skips and limits tables are written in them): * any text, ?
// one character, [...] a class, \x a literal x. Anchored at both ends, as bash's [[ == ]].
export function globToRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) re += escape(pattern[++i]);
    else if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) { re += '\\['; continue; }
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += escape(c);
  }
  return new RegExp(`^${re}$`);
}

function escape(c) { return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'); }

export function globMatch(pattern, text) { return globToRegExp(pattern).test(text); }
