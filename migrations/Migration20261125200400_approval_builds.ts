import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200400_approval_builds extends Migration {

  override name = 'Migration20261125200400_approval_builds';

  override up(): void | Promise<void> {
    this.addSql(`create table "approval_builds" ("id" bigserial primary key, "merchant_id" varchar(40) not null, "network" varchar(32) not null, "token" varchar(42) not null, "spender" varchar(42) not null, "owner" varchar(42) not null, "amount_raw" numeric(78,0) not null, "chain_id" bigint not null, "nonce" bigint not null, "gas" numeric(78,0) not null, "gas_price" numeric(78,0) not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "approval_builds_merchant_id_network_token_spender__9bef7_index" on "approval_builds" ("merchant_id", "network", "token", "spender", "amount_raw");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "approval_builds" cascade;`);
  }

}
