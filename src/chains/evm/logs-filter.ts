import type { EvmLog, LogFilter } from './logs-parse.ts';

/**
 * eth_getLogs filters applied locally: whether a log passes one, and one filter that lets through
 * every log of several (so a follower reads its consumers' logs in one query and hands each its own).
 */

const lowerList = (value: string | readonly string[]) =>
  (typeof value === 'string' ? [value] : value).map((v) => v.toLowerCase());

/** Whether `log` passes an eth_getLogs-style filter (any of its addresses; topics by position). */
export function logMatches(filter: LogFilter, log: EvmLog): boolean {
  if (filter.address !== undefined && !lowerList(filter.address).includes(log.address.toLowerCase()))
    return false;
  return (filter.topics ?? []).every(
    (wanted, i) => wanted === null || lowerList(wanted).includes(log.topics[i]?.toLowerCase() ?? ''),
  );
}

/**
 * A filter whose logs include every log of each of `filters` (and possibly more: filter the answer
 * with {@link logMatches} per filter): their addresses together, and their first topics together (a
 * later position is left open). Any filter without an address or a first topic opens that part.
 */
export function unionFilter(filters: readonly LogFilter[]): LogFilter {
  const addresses = new Set<string>();
  const firstTopics = new Set<string>();
  let anyAddress = false;
  let anyTopic = false;
  for (const filter of filters) {
    if (filter.address === undefined) anyAddress = true;
    else for (const a of lowerList(filter.address)) addresses.add(a);
    const first = filter.topics?.[0];
    if (first === undefined || first === null) anyTopic = true;
    else for (const t of lowerList(first)) firstTopics.add(t);
  }
  return {
    ...(anyAddress ? {} : { address: [...addresses] }),
    ...(anyTopic ? {} : { topics: [[...firstTopics]] }),
  };
}
