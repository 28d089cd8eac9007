/**
 * Optimal-string-alignment distance: insertions, deletions, substitutions and
 * swaps of two neighbours each cost one, so `cahce` is one edit from `cache`.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

// Case, `_` and `-` do not count: `fastmath`, `fast_math` and `fast-math` all mean `fastMath`.
const simplified = (s: string): string => s.toLowerCase().replace(/[_-]/g, '');

/**
 * The known name closest to `name` when one is close enough to be a likely
 * slip (at most one edit in three characters), else undefined. `aliases` maps
 * other libraries' spellings (cuda.core's `use_fast_math`) to known names.
 */
export function suggestName(
  name: string,
  known: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string | undefined {
  const alias = Object.hasOwn(aliases, name)
    ? aliases[name]
    : Object.hasOwn(aliases, name.toLowerCase())
      ? aliases[name.toLowerCase()]
      : undefined;
  if (alias !== undefined && known.includes(alias)) return alias;
  const wanted = simplified(name);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const d = editDistance(wanted, simplified(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(wanted.length / 3)) ? best : undefined;
}
