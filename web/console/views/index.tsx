import type { JSX } from 'preact';
import { BASE, type Location } from '../router.ts';
import { Empty } from '../ui.tsx';
import { BatchView } from './batch.tsx';
import { DepositsView } from './deposits.tsx';
import { MerchantView } from './merchant.tsx';
import { MerchantsView } from './merchants.tsx';
import { OverviewView } from './overview.tsx';
import { PayoutView } from './payout.tsx';
import { PayoutsView } from './payouts.tsx';
import { ReportsView } from './reports.tsx';
import { SessionView } from './session.tsx';
import { SessionsView } from './sessions.tsx';
import { SystemView } from './system.tsx';
import { WebhooksView } from './webhooks.tsx';

/** Every view by its URL: a list at `/console/<things>`, an item at `/console/<things>/<id>`. */
const ROUTES: [RegExp, string, (id: string) => JSX.Element][] = [
  [/^\/console$/, 'Overview', () => <OverviewView />],
  [/^\/console\/merchants$/, 'Merchants', () => <MerchantsView />],
  [/^\/console\/merchants\/([^/]+)$/, 'Merchant', (id) => <MerchantView id={id} />],
  [/^\/console\/sessions$/, 'Sessions', () => <SessionsView />],
  [/^\/console\/sessions\/([^/]+)$/, 'Session', (id) => <SessionView id={id} />],
  [/^\/console\/payouts$/, 'Payouts', () => <PayoutsView />],
  [/^\/console\/payouts\/([^/]+)$/, 'Payout', (id) => <PayoutView id={id} />],
  [/^\/console\/batches\/([^/]+)$/, 'Batch', (id) => <BatchView id={id} />],
  [/^\/console\/deposits$/, 'Deposits', () => <DepositsView />],
  [/^\/console\/webhooks$/, 'Webhooks', () => <WebhooksView />],
  [/^\/console\/reports$/, 'Reports', () => <ReportsView />],
  [/^\/console\/system$/, 'System', () => <SystemView />],
];

export function routeOf(loc: Location): { title: string; view: JSX.Element } {
  for (const [pattern, title, view] of ROUTES) {
    const match = pattern.exec(loc.path);
    if (match) {
      const id = decodeURIComponent(match[1] ?? '');
      // Keyed by the path, so moving between two items starts each view afresh.
      return { title, view: <div key={loc.path}>{view(id)}</div> };
    }
  }
  return {
    title: 'Not found',
    view: (
      <section>
        <h1>No such view</h1>
        <Empty>
          Nothing lives at <code>{loc.path}</code>. Pick a view above, or open <a href={BASE}>the overview</a>
          .
        </Empty>
      </section>
    ),
  };
}
