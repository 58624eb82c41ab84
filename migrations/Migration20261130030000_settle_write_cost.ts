import { Migration } from '@mikro-orm/migrations';

/**
 * What a settled payment costs the database to write, cut where nothing reads or guards it.
 *
 * A session's settlement changes `status` and `payment_id`, so PostgreSQL writes a new entry in every
 * index of the row. Two of them now hold only the rows their queries ask for, and a settled or
 * unreported session costs them nothing:
 * - `(network, status)` only for open sessions (pending, processing): the follower's reads of open
 *   sessions (claims, depth, expiry) are its only users; listings and reports go by merchant or
 *   settlement time.
 * - `reported_tx_hash` only where one was reported: every lookup asks for a given hash.
 *
 * A delivery's `merchant_id` is its event's (the outbox writes both from one row, a resend from the
 * stored event), and the event's own key guards that merchant; deleting a merchant removes its
 * deliveries through their events. The delivery's second check of the same merchant goes.
 */
export class Migration20261130030000_settle_write_cost extends Migration {

  override name = 'Migration20261130030000_settle_write_cost';

  override up(): void | Promise<void> {
    this.addSql(`drop index if exists "sessions_network_status_index";`);
    this.addSql(`create index "sessions_open_network_status_index" on "sessions" ("network", "status") where "status" in ('pending', 'processing');`);
    this.addSql(`drop index if exists "sessions_reported_tx_hash_index";`);
    this.addSql(`create index "sessions_reported_tx_hash_index" on "sessions" ("reported_tx_hash") where "reported_tx_hash" is not null;`);
    this.addSql(`alter table "webhook_deliveries" drop constraint if exists "webhook_deliveries_merchant_id_foreign";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "sessions_open_network_status_index";`);
    this.addSql(`create index "sessions_network_status_index" on "sessions" ("network", "status");`);
    this.addSql(`drop index if exists "sessions_reported_tx_hash_index";`);
    this.addSql(`create index "sessions_reported_tx_hash_index" on "sessions" ("reported_tx_hash");`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
  }

}
