import { Migration } from '@mikro-orm/migrations';

export class Migration20261125044900_deposit_version extends Migration {

  override name = 'Migration20261125044900_deposit_version';

  override up(): void | Promise<void> {
    this.addSql(`alter table "deposits" add column "version" int not null default 0, add column "updated_at" timestamptz not null default now();`);
    this.addSql(`alter table "deposits" alter column "updated_at" drop default;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "deposits" drop column "version", drop column "updated_at";`);
  }

}
