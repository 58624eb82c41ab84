import { Migration } from '@mikro-orm/migrations';

export class Migration20261124181255_deposits extends Migration {

  override name = 'Migration20261124181255_deposits';

  override up(): void | Promise<void> {
    this.addSql(`create table "deposit_addresses" ("id" bigserial primary key, "merchant_id" varchar(40) not null, "network" varchar(32) not null, "player_id" varchar(128) not null, "wallet" varchar(42) not null, "player_key" varchar(66) not null, "address" varchar(42) not null, "deployed" boolean not null default false, "created_at" timestamptz not null);`);
    this.addSql(`alter table "deposit_addresses" add constraint "deposit_addresses_merchant_id_network_player_id_wallet_unique" unique ("merchant_id", "network", "player_id", "wallet");`);
    this.addSql(`alter table "deposit_addresses" add constraint "deposit_addresses_network_address_unique" unique ("network", "address");`);

    this.addSql(`create table "deposits" ("id" varchar(40) not null, "payment_id" bigint not null, "address_id" bigint not null, "merchant_id" varchar(40) not null, "network" varchar(32) not null, "player_id" varchar(128) not null, "token" varchar(16) not null, "token_address" varchar(42) not null, "decimals" int not null, "amount_raw" numeric(78,0) not null, "fee_raw" numeric(78,0) not null, "credited_raw" numeric(78,0) not null, "tx_hash" varchar(66) not null, "log_index" int not null, "block_number" bigint not null, "status" text not null default 'pending', "credited_at" timestamptz null, "sweep_id" varchar(40) null, "swept_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "deposits" add constraint "deposits_payment_id_unique" unique ("payment_id");`);
    this.addSql(`create index "deposits_network_status_block_number_index" on "deposits" ("network", "status", "block_number");`);
    this.addSql(`create index "deposits_merchant_id_created_at_index" on "deposits" ("merchant_id", "created_at");`);
    this.addSql(`create index "deposits_address_id_index" on "deposits" ("address_id");`);
    this.addSql(`create index "deposits_sweep_id_index" on "deposits" ("sweep_id");`);

    this.addSql(`create table "sweeps" ("id" varchar(40) not null, "network" varchar(32) not null, "status" text not null default 'queued', "items" int not null, "tx_hash" varchar(66) null, "mined_block" bigint null, "outcomes" jsonb null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "sweeps_network_status_index" on "sweeps" ("network", "status");`);

    this.addSql(`alter table "deposit_addresses" add constraint "deposit_addresses_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);

    this.addSql(`alter table "deposits" add constraint "deposits_payment_id_foreign" foreign key ("payment_id") references "payments" ("id") on delete restrict;`);
    this.addSql(`alter table "deposits" add constraint "deposits_address_id_foreign" foreign key ("address_id") references "deposit_addresses" ("id") on delete restrict;`);
    this.addSql(`alter table "deposits" add constraint "deposits_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
    this.addSql(`alter table "deposits" add constraint "deposits_status_check" check ("status" in ('pending', 'credited', 'below_fee'));`);

    this.addSql(`alter table "sweeps" add constraint "sweeps_status_check" check ("status" in ('queued', 'mined', 'done', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "deposits" drop constraint "deposits_address_id_foreign";`);

    this.addSql(`drop table if exists "deposit_addresses" cascade;`);
    this.addSql(`drop table if exists "deposits" cascade;`);
    this.addSql(`drop table if exists "sweeps" cascade;`);
  }

}
