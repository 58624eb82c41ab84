import { Migration } from '@mikro-orm/migrations';

export class Migration20261122060446_platform extends Migration {

  override name = 'Migration20261122060446_platform';

  override up(): void | Promise<void> {
    this.addSql(`create table "merchants" ("id" varchar(40) not null, "name" varchar(200) not null, "webhook_url" varchar(2048) null, "webhooks_enabled" boolean not null default true, "tron_payout_wallet" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "api_keys" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "label" varchar(200) null, "secret_sealed" text not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "api_keys_merchant_id_index" on "api_keys" ("merchant_id");`);

    this.addSql(`create table "merchant_allowed_ips" ("id" serial primary key, "merchant_id" varchar(40) not null, "cidr" varchar(64) not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "merchant_allowed_ips" add constraint "merchant_allowed_ips_merchant_id_cidr_unique" unique ("merchant_id", "cidr");`);

    this.addSql(`create table "operator_tokens" ("id" varchar(40) not null, "name" varchar(200) not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "operator_tokens" add constraint "operator_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "request_nonces" ("key_id" varchar(40) not null, "nonce" varchar(128) not null, "created_at" timestamptz not null, primary key ("key_id", "nonce"));`);
    this.addSql(`create index "request_nonces_created_at_index" on "request_nonces" ("created_at");`);

    this.addSql(`create table "settlement_wallets" ("id" serial primary key, "merchant_id" varchar(40) not null, "network" varchar(32) not null, "address" varchar(64) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "settlement_wallets" add constraint "settlement_wallets_merchant_id_network_unique" unique ("merchant_id", "network");`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);

    this.addSql(`alter table "merchant_allowed_ips" add constraint "merchant_allowed_ips_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);

    this.addSql(`alter table "settlement_wallets" add constraint "settlement_wallets_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_keys" drop constraint "api_keys_merchant_id_foreign";`);
    this.addSql(`alter table "merchant_allowed_ips" drop constraint "merchant_allowed_ips_merchant_id_foreign";`);
    this.addSql(`alter table "settlement_wallets" drop constraint "settlement_wallets_merchant_id_foreign";`);

    this.addSql(`drop table if exists "merchants" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
    this.addSql(`drop table if exists "merchant_allowed_ips" cascade;`);
    this.addSql(`drop table if exists "operator_tokens" cascade;`);
    this.addSql(`drop table if exists "request_nonces" cascade;`);
    this.addSql(`drop table if exists "settlement_wallets" cascade;`);
  }

}
