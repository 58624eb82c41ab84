import { Migration } from '@mikro-orm/migrations';

export class Migration20261124172257_hosted extends Migration {

  override name = 'Migration20261124172257_hosted';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sessions" add "hosted_token_hash" varchar(64) null, add "return_url" varchar(2048) null, add "hosted_expires_at" timestamptz null;`);
    this.addSql(`alter table "sessions" add constraint "sessions_hosted_token_hash_unique" unique ("hosted_token_hash");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_hosted_token_hash_unique";`);
    this.addSql(`alter table "sessions" drop column "hosted_token_hash", drop column "return_url", drop column "hosted_expires_at";`);
  }

}
