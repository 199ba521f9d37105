#!/usr/bin/env node
// tenantlab-harness MODE [PATTERN] [--allowed FILE] [--limits FILE] [--log-dir DIR] [SPEC...]
//   native   make test: everything, on a test lab of its own, then the compose runtime
//   compose  make test-compose: the compose runtime alone
//   check    make check: every suite that needs no lab
//   suites   the given suites (bats=FILE npm=DIR:SCRIPT pytest=DIR:TESTS promtool=FILE part=NAME):
//            the harness's own fixture tests (tests/static/harness.bats)
// Called by tests/run, tests/compose/run and tests/check, which set the test lab's environment.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
main(process.argv.slice(2), { root }).catch((e) => {
  console.error(`tenantlab-harness: ${e.message}`);
  process.exit(2);
});
