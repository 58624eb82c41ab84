/**
 * `work`, or a rejection with `message` (default `no answer within <ms> ms`) once `ms` pass first. The
 * timer is cleared either way, so it never holds the process open. `work` itself is not cancelled:
 * give it its own bound where it holds a resource.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, message?: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message ?? `no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
