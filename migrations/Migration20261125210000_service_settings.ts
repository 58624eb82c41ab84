import { Migration } from '@mikro-orm/migrations';

export class Migration20261125210000_service_settings extends Migration {

  override name = 'Migration20261125210000_service_settings';

  override up(): void | Promise<void> {
    this.addSql(`create table "service_settings" ("key" varchar(64) primary key, "value" jsonb not null, "updated_at" timestamptz not null default now());`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "service_settings" cascade;`);
  }

}
