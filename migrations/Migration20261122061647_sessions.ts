import { Migration } from '@mikro-orm/migrations';

export class Migration20261122061647_sessions extends Migration {

  override name = 'Migration20261122061647_sessions';

  override up(): void | Promise<void> {
    this.addSql(`create table "listener_checkpoints" ("network" varchar(32) not null, "block_number" bigint not null, "block_hash" varchar(66) not null, "updated_at" timestamptz not null, primary key ("network"));`);

    this.addSql(`create table "sessions" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "external_order_id" varchar(128) null, "player_id" varchar(128) null, "callback_url" varchar(2048) null, "language" varchar(8) not null default 'en', "prefill_network" varchar(32) null, "prefill_token" varchar(16) null, "prefill_amount" varchar(100) null, "network" varchar(32) null, "token" varchar(16) null, "amount" varchar(100) null, "wallet" varchar(42) null, "step" varchar(32) not null, "status" varchar(16) not null default 'pending', "order_ref" varchar(66) not null, "deadline" bigint null, "expires_at" timestamptz not null, "approval_tx_hash" varchar(66) null, "reported_tx_hash" varchar(66) null, "reported_at" timestamptz null, "tx_hash" varchar(66) null, "block_number" bigint null, "block_hash" varchar(66) null, "log_index" int null, "payer" varchar(42) null, "paid_raw" varchar(80) null, "failure_reason" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "settled_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "sessions" add constraint "sessions_order_ref_unique" unique ("order_ref");`);
    this.addSql(`create index "sessions_reported_tx_hash_index" on "sessions" ("reported_tx_hash");`);
    this.addSql(`create index "sessions_network_status_index" on "sessions" ("network", "status");`);
    this.addSql(`create index "sessions_merchant_id_created_at_index" on "sessions" ("merchant_id", "created_at");`);
    this.addSql(`alter table "sessions" add constraint "sessions_merchant_id_external_order_id_unique" unique ("merchant_id", "external_order_id");`);

    this.addSql(`alter table "sessions" add constraint "sessions_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "listener_checkpoints" cascade;`);
    this.addSql(`drop table if exists "sessions" cascade;`);
  }

}
