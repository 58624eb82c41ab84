import { Migration } from '@mikro-orm/migrations';

export class Migration20261124153454_payouts extends Migration {

  override name = 'Migration20261124153454_payouts';

  override up(): void | Promise<void> {
    this.addSql(`create table "payouts" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "external_id" varchar(128) null, "batch_id" varchar(40) null, "batch_index" int null, "order_index" int not null default 0, "network" varchar(32) not null, "token" varchar(16) not null, "token_address" varchar(42) not null, "amount" varchar(100) not null, "amount_raw" numeric(78,0) not null, "recipient" varchar(64) not null, "recipient_hex" varchar(42) not null, "callback_url" varchar(2048) null, "payer" varchar(42) not null, "router" varchar(42) not null, "chain_id" bigint not null, "nonce" numeric(78,0) not null, "deadline" bigint not null, "status" text not null default 'pending', "failure_reason" text null, "signature" varchar(132) null, "tx_hash" varchar(66) null, "executed_block" bigint null, "executed_block_hash" varchar(66) null, "relay_note" text null, "version" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, "authorized_at" timestamptz null, "settled_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "payouts_batch_id_index" on "payouts" ("batch_id");`);
    this.addSql(`create index "payouts_network_status_index" on "payouts" ("network", "status");`);
    this.addSql(`create index "payouts_merchant_id_created_at_index" on "payouts" ("merchant_id", "created_at");`);
    this.addSql(`alter table "payouts" add constraint "payouts_merchant_id_external_id_unique" unique ("merchant_id", "external_id");`);
    this.addSql(`alter table "payouts" add constraint "payouts_network_router_payer_nonce_order_index_unique" unique ("network", "router", "payer", "nonce", "order_index");`);

    this.addSql(`create table "payout_batches" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "external_id" varchar(128) null, "network" varchar(32) not null, "token" varchar(16) not null, "token_address" varchar(42) not null, "total" varchar(100) not null, "total_raw" numeric(78,0) not null, "item_count" int not null, "callback_url" varchar(2048) null, "payer" varchar(42) not null, "router" varchar(42) not null, "chain_id" bigint not null, "nonce" numeric(78,0) not null, "batch_key" varchar(66) not null, "deadline" bigint not null, "signature" varchar(132) null, "submissions" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, "authorized_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "payout_batches_merchant_id_created_at_index" on "payout_batches" ("merchant_id", "created_at");`);
    this.addSql(`create index "payout_batches_network_batch_key_index" on "payout_batches" ("network", "batch_key");`);
    this.addSql(`alter table "payout_batches" add constraint "payout_batches_merchant_id_external_id_unique" unique ("merchant_id", "external_id");`);
    this.addSql(`alter table "payout_batches" add constraint "payout_batches_network_router_payer_nonce_unique" unique ("network", "router", "payer", "nonce");`);

    this.addSql(`create table "router_nonces" ("network" varchar(32) not null, "router" varchar(42) not null, "signer" varchar(42) not null, "next" numeric(78,0) not null, "updated_at" timestamptz not null, primary key ("network", "router", "signer"));`);

    this.addSql(`alter table "payouts" add constraint "payouts_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
    this.addSql(`alter table "payouts" add constraint "payouts_status_check" check ("status" in ('pending', 'authorized', 'submitted', 'completed', 'failed'));`);
    this.addSql(`alter table "payouts" add constraint "payouts_failure_reason_check" check ("failure_reason" in ('expired', 'invalid_signature', 'nonce_used', 'insufficient_allowance', 'insufficient_funds', 'transfer_failed', 'reverted'));`);

    this.addSql(`alter table "payout_batches" add constraint "payout_batches_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payouts" cascade;`);
    this.addSql(`drop table if exists "payout_batches" cascade;`);
    this.addSql(`drop table if exists "router_nonces" cascade;`);
  }

}
