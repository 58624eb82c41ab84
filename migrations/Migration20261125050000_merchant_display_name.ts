import { Migration } from '@mikro-orm/migrations';

export class Migration20261125050000_merchant_display_name extends Migration {

  override name = 'Migration20261125050000_merchant_display_name';

  override up(): void | Promise<void> {
    this.addSql(`alter table "merchants" add column "display_name" varchar(200) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "merchants" drop column "display_name";`);
  }

}
