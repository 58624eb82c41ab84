import type { GatewayModule } from '../module.ts';
import './overview.graphql.ts';
import './report.graphql.ts';

export { settlementCsvPage } from './report.csv.ts';

/** Operator reports: the settlement report of a merchant (GraphQL, and as CSV: report.csv.ts). */
export const reportModule: GatewayModule = { name: 'report' };
