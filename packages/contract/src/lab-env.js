// THE lab.env parser. lab.env is the lab's one config file; bash (scripts/lib/config.sh via
// bin/lab-env), the allocator, seed-data and the tests all read it through this module so a
// malformed line is the same one-line error everywhere. No Node APIs here (a plain ES module);
// the load engine (Locust, Python) gets lab.env's values through its environment instead.
//
// The file's contract: blank lines and `#` comments are skipped; every other line is
// KEY=VALUE with KEY [A-Z][A-Z0-9_]* and a VALUE without whitespace (no quotes, no expansion),
// so the same file is valid for bash, make, compose's env_file and this parser alike.
import { LabEnvError } from './errors.js';

const SKIP = /^\s*(#|$)/;
const LINE = /^([A-Z][A-Z0-9_]*)=(\S*)$/;

export { LabEnvError };

/** text of a lab.env file -> { KEY: 'VALUE' }; throws LabEnvError on the first bad line. */
export function parseLabEnv(text, file = 'lab.env') {
  const out = {};
  const lines = text.split('\n');
  // A final newline is not an extra (empty) line.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    if (SKIP.test(line)) return;
    const m = LINE.exec(line);
    if (!m) throw new LabEnvError(file, i + 1, line);
    out[m[1]] = m[2];
  });
  return out;
}

/** The file's values with the environment winning (`ES_HEAP=1g make up`), as every consumer merges them. */
export function mergeLabEnv(fileValues, env = {}) {
  const out = { ...fileValues };
  for (const key of Object.keys(fileValues)) if (env[key] !== undefined) out[key] = env[key];
  return out;
}
