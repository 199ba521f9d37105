// tenantlab-seed: the CLI. Errors end in one line on stderr and a non-zero exit code
// (2 bad input, 3 allocator or cluster down, 1 the load or the verification failed); a stack
// trace only ever appears for a bug, and then with SEED_DEBUG=1.
import * as commands from './commands.js';
import { buildContext, OPTIONS, parseOptions } from './options.js';
import { UsageError } from '../errors.js';

const COMMANDS = {
  seed: ['create the profile\'s tenants through the allocator, bulk-load their catalogs, verify counts', commands.seed],
  ensure: ['the step of make up: load only the tenants missing (new, empty, half-loaded); report stores that differ from the manifest (drift) as a warning', commands.ensure],
  verify: ['compare every tenant\'s document count with the manifest', commands.verify],
  resubmit: ['re-send one tenant\'s whole catalog (--tenant ID), as a store\'s daily catalog push', commands.resubmit],
  update: ['change price and/or inventory of a share of one tenant\'s products (--tenant ID)', commands.update],
  querylog: ['write a query log (TIMESTAMP.MS|SEARCH_TYPE|JSON_QUERY) for the profile\'s stores', commands.querylog],
  warm: ['the last step of make up: replay the query log\'s searches (--log) for --seconds so the nodes compile the search path, once per start of the nodes', commands.warm],
  catalog: ['write the bulk body (NDJSON) the seed would send, without sending it', commands.catalog],
  manifest: ['print the manifest: every tenant with its exact document count', commands.manifest],
  delete: ['delete the profile\'s tenants through the allocator', commands.remove],
  profiles: ['list the profiles', commands.profiles],
};

function usage() {
  const lines = ['usage: tenantlab-seed COMMAND [options]', '', 'commands:'];
  for (const [name, [help]] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)} ${help}`);
  lines.push('', 'options (environment variable in brackets):');
  for (const [name, o] of Object.entries(OPTIONS)) {
    if (name === 'help') continue;
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ' V' : ''}`;
    lines.push(`  ${flag.padEnd(26)} ${o.help ?? ''}${o.env ? ` [${o.env}]` : ''}${o.default !== undefined && o.type === 'string' ? ` (default ${o.default})` : ''}`);
  }
  return lines.join('\n');
}

export async function main(argv) {
  try {
    const { command, rest, values } = parseOptions(argv);
    if (values.help || command === 'help' || !command) {
      console.log(usage());
      return command || values.help ? 0 : 2;
    }
    if (!COMMANDS[command]) throw new UsageError(`unknown command '${command}': one of ${Object.keys(COMMANDS).join(', ')}`);
    if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
    const ctx = command === 'profiles' ? null : buildContext(values);
    await COMMANDS[command][1](ctx);
    return 0;
  } catch (err) {
    if (err.exitCode) {
      // LabEnvError's message is already the lab's one line (`error: FILE:LINE: ...`)
      process.stderr.write(err.name === 'LabEnvError' ? `${err.message}\n` : `error: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`error: unexpected failure: ${err?.message ?? err} (SEED_DEBUG=1 shows the stack)\n`);
    if (process.env.SEED_DEBUG) process.stderr.write(`${err?.stack}\n`);
    return 1;
  }
}
