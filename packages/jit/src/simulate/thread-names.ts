/** How messages name threads: by coordinates, and runs of linear ids by their ends. */

/** The coordinates of linear thread id `t` in blocks of ntidX × ntidY. */
export function threadCoordinates(t: number, ntidX: number, ntidY: number): [number, number, number] {
  const x = t % ntidX;
  const rest = (t - x) / ntidX;
  const y = rest % ntidY;
  return [x, y, (rest - y) / ntidY];
}

export const coordinates = (c: readonly number[]): string => `(${c.join(', ')})`;

/** `thread (5, 0, 0)`. */
export function threadName(t: number, ntidX: number, ntidY: number): string {
  return `thread ${coordinates(threadCoordinates(t, ntidX, ntidY))}`;
}

/**
 * Sorted linear ids as runs: `thread (5, 0, 0)`, `threads 0–31` (1-D
 * blocks), `threads (0, 0, 0)–(7, 3, 0)` (blocks of 2 or 3 dimensions),
 * `threads 0–4 and 6–63`; at most `limit` runs, then how many more.
 */
export function threadRuns(ids: readonly number[], ntidX: number, ntidY: number, ntidZ: number, limit = 4): string {
  if (ids.length === 1) return threadName(ids[0]!, ntidX, ntidY);
  const flat = ntidY === 1 && ntidZ === 1;
  const name = (t: number): string => (flat ? String(t) : coordinates(threadCoordinates(t, ntidX, ntidY)));
  const runs: string[] = [];
  let n = 0;
  for (let i = 0; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j]! + 1) j++;
    if (runs.length < limit) runs.push(i === j ? name(ids[i]!) : `${name(ids[i]!)}–${name(ids[j]!)}`);
    else n++;
    i = j + 1;
  }
  const list =
    n > 0
      ? `${runs.join(', ')} and ${n} more run${n === 1 ? '' : 's'}`
      : runs.length === 1
        ? runs[0]!
        : `${runs.slice(0, -1).join(', ')} and ${runs[runs.length - 1]}`;
  return `threads ${list}`;
}
