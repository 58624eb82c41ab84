import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.ts';
import type { ModuleContext } from '../module.ts';
import { movements, periodOf, totals, units } from './report.service.ts';

/**
 * `GET /reports/settlement.csv?merchant=…&from=YYYY-MM-DD&to=YYYY-MM-DD` with an operator bearer token:
 * the settlement report as CSV, streamed in chunks. First one `opening` row per network and token
 * (the position before the period in `opening`), then every movement. Per network and token,
 * opening + amount_in − amount_out is the closing position and amount_in, fee and amount_out each sum
 * to the report's totals: no base unit is in two rows.
 */

export const REPORT_CSV_PATH = '/reports/settlement.csv';

const COLUMNS = [
  'kind',
  'object_type',
  'object_id',
  'occurred_at',
  'network',
  'token',
  'opening',
  'amount_in',
  'fee',
  'amount_out',
  'tx_hash',
  'block',
];

/** A CSV field: quoted when it holds a comma, quote or line break; a leading formula sign is neutralised. */
function cell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
const line = (values: (string | number | null)[]) => `${values.map(cell).join(',')}\r\n`;

/** The CSV download as an HTTP handler, mounted by the composition root beside the pages. */
export function settlementCsvPage(
  app: ModuleContext,
): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  return async (req, res, url) => {
    if (url.pathname !== REPORT_CSV_PATH) return false;
    await serveSettlementCsv(app, req, res, url);
    return true;
  };
}

async function serveSettlementCsv(app: ModuleContext, req: IncomingMessage, res: ServerResponse, url: URL) {
  if (req.method !== 'GET')
    throw new AppError('method_not_allowed', `${req.method} is not allowed on ${url.pathname}`);
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const em = app.fork();
  const operator = token ? await app.services.authenticator.operator(em, token) : undefined;
  if (!operator) throw new AppError('unauthorized', 'operator token required');
  const merchantId = url.searchParams.get('merchant') ?? '';
  if (!merchantId) throw new AppError('validation', 'merchant: required');
  await app.services.merchants.get(em, merchantId);
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  const period = periodOf(merchantId, from, to);
  const decimals = (network: string, symbol: string) =>
    app.services.networks.token(network, symbol)?.decimals ?? 0;
  const opening = await totals(em, app.services.networks, period);

  res.writeHead(200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="settlement-${merchantId}-${from}-${to}.csv"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  const write = (text: string) =>
    res.write(text) ? Promise.resolve() : new Promise<void>((resolve) => res.once('drain', () => resolve()));
  await write(line(COLUMNS));
  for (const t of opening)
    await write(
      line([
        'opening',
        null,
        null,
        period.from.toISOString(),
        t.network,
        t.token,
        units(t.openingRaw, t.decimals),
        '0',
        '0',
        '0',
        null,
        null,
      ]),
    );
  for await (const chunk of movements(em, period)) {
    let text = '';
    for (const m of chunk) {
      const d = decimals(m.network, m.token);
      text += line([
        m.kind,
        m.objectType,
        m.objectId,
        m.occurredAt.toISOString(),
        m.network,
        m.token,
        '0',
        units(m.inRaw, d),
        units(m.feeRaw, d),
        units(m.outRaw, d),
        m.txHash,
        m.block,
      ]);
    }
    await write(text);
  }
  res.end();
}
