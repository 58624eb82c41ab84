import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200100_stray_payments extends Migration {

  override name = 'Migration20261125200100_stray_payments';

  override up(): void | Promise<void> {
    this.addSql(`create table "payment_resolutions" ("payment_id" bigint not null, "action" text not null, "session_id" varchar(40) null, "operator_id" varchar(64) not null, "note" varchar(500) null, "created_at" timestamptz not null, primary key ("payment_id"));`);

    this.addSql(`alter table "sessions" add "wallet_block" bigint null;`);
    this.addSql(`create index "sessions_network_payee_index" on "sessions" ("network", "payee");`);

    this.addSql(`alter table "payment_resolutions" add constraint "payment_resolutions_payment_id_foreign" foreign key ("payment_id") references "payments" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "payment_resolutions" add constraint "payment_resolutions_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on delete set null;`);
    this.addSql(`alter table "payment_resolutions" add constraint "payment_resolutions_action_check" check ("action" in ('attached', 'refunded'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_resolutions" cascade;`);

    this.addSql(`drop index "sessions_network_payee_index";`);
    this.addSql(`alter table "sessions" drop column "wallet_block";`);
  }

}
