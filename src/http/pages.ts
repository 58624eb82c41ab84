import type { App } from '../app.ts';
import type { PageHandler } from './server.ts';

/** Browser-facing pages (hosted payment page, SDK) mounted next to the API; none yet. */
export function webPages(_app: App): PageHandler[] {
  return [];
}
