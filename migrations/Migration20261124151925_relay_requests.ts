import { Migration } from '@mikro-orm/migrations';

export class Migration20261124151925_relay_requests extends Migration {

  override name = 'Migration20261124151925_relay_requests';

  override up(): void | Promise<void> {
    this.addSql(`create table "relay_requests" ("id" bigserial primary key, "network" varchar(32) not null, "kind" text not null, "subject_id" varchar(64) not null, "to" varchar(42) not null, "data" text not null, "deadline" bigint null, "status" text not null default 'queued', "tx_hash" varchar(66) null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "relay_requests_network_status_index" on "relay_requests" ("network", "status");`);
    this.addSql(`alter table "relay_requests" add constraint "relay_requests_kind_subject_id_unique" unique ("kind", "subject_id");`);

    this.addSql(`alter table "relay_requests" add constraint "relay_requests_kind_check" check ("kind" in ('payout', 'batch', 'sweep', 'test'));`);
    this.addSql(`alter table "relay_requests" add constraint "relay_requests_status_check" check ("status" in ('queued', 'submitted', 'mined', 'done', 'abandoned'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "relay_requests" cascade;`);
  }

}
