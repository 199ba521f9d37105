// A few suites at a time (the machine has 2 cores): each suite's lines are kept and printed in
// one block when it ends, so the log reads as if they had run one after another.
export async function pool(items, width, work) {
  const queue = [...items];
  const workers = Array.from({ length: Math.max(1, Math.min(width, queue.length)) }, async () => {
    while (queue.length) await work(queue.shift());
  });
  await Promise.all(workers);
}

export function buffered(out) {
  const lines = [];
  return { out: (l) => lines.push(l), flush: () => { for (const l of lines.splice(0)) out(l); } };
}
