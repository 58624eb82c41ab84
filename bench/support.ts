/** The value below which a fraction `p` of the sorted samples fall (nearest rank); 0 for none. */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
