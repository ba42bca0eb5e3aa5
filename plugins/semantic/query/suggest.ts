/** Edit distance (insertions, deletions, substitutions), case-insensitive. */
function distance(a: string, b: string): number {
  const left = a.toLowerCase()
  const right = b.toLowerCase()
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let i = 1; i <= left.length; i++) {
    const current = [i]
    for (let j = 1; j <= right.length; j++) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    }
    previous = current
  }
  return previous[right.length]
}

/**
 * Up to `limit` candidates closest to `name`: names containing it or contained in it first, then by edit
 * distance, dropping those too far off to help.
 */
export function closest(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = name.toLowerCase()
  const tail = needle.includes('.') ? needle.slice(needle.lastIndexOf('.') + 1) : needle
  return [...new Set(candidates)]
    .map((candidate) => {
      const lower = candidate.toLowerCase()
      const candidateTail = lower.includes('.') ? lower.slice(lower.lastIndexOf('.') + 1) : lower
      const overlap = lower.includes(needle) || needle.includes(lower) || candidateTail === tail ? 0 : 1
      return { candidate, overlap, score: Math.min(distance(needle, lower), distance(tail, candidateTail)) }
    })
    .filter((entry) => entry.overlap === 0 || entry.score <= Math.max(2, Math.floor(tail.length / 3)))
    .sort((a, b) => a.overlap - b.overlap || a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((entry) => entry.candidate)
}

/** ` (did you mean a, b?)`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hits = closest(name, candidates)
  return hits.length > 0 ? ` (did you mean ${hits.join(', ')}?)` : ''
}
