// (node) The machine's side of the shape: the CPUs this process may run on.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseCpuList } from './topology.js';

/**
 * The CPUs this process may run on (its affinity: what a cpuset or taskset around `make up`
 * leaves), else every CPU the OS counts.
 */
export function machineCpus() {
  try {
    const line = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    const ids = line && parseCpuList(line[1]);
    if (ids) return ids;
  } catch {
    // not Linux: fall through
  }
  return cpus().map((_, i) => i);
}
