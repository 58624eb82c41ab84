import { Migration } from '@mikro-orm/migrations';

/** Retention (src/modules/retention): what it deletes is found by index, not by scanning the tables. */
export class Migration20261126030000_retention extends Migration {

  override name = 'Migration20261126030000_retention';

  override up(): void | Promise<void> {
    this.addSql(`create index "sessions_failed_unpaid_updated_at_index" on "sessions" ("updated_at") where "status" = 'failed' and "payment_id" is null;`);
    this.addSql(`create index "webhook_events_created_at_index" on "webhook_events" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "sessions_failed_unpaid_updated_at_index";`);
    this.addSql(`drop index if exists "webhook_events_created_at_index";`);
  }

}
