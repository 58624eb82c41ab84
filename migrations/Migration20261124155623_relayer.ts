import { Migration } from '@mikro-orm/migrations';

export class Migration20261124155623_relayer extends Migration {

  override name = 'Migration20261124155623_relayer';

  override up(): void | Promise<void> {
    this.addSql(`create table "relayer_wallets" ("network" varchar(32) not null, "address" varchar(42) not null, "next_nonce" bigint not null default '0', "out_of_gas_since" timestamptz null, "last_error" text null, "updated_at" timestamptz not null, primary key ("network", "address"));`);

    this.addSql(`create table "relay_transactions" ("id" bigserial primary key, "request_id" bigint not null, "network" varchar(32) not null, "wallet" varchar(42) not null, "nonce" bigint null, "kind" text not null default 'call', "hash" varchar(66) not null, "raw" text not null, "gas_limit" numeric(78,0) null, "max_fee" numeric(78,0) null, "priority_fee" numeric(78,0) null, "expiration" bigint null, "status" text not null default 'signed', "mined_block" bigint null, "created_at" timestamptz not null, "sent_at" timestamptz null);`);
    this.addSql(`alter table "relay_transactions" add constraint "relay_transactions_hash_unique" unique ("hash");`);
    this.addSql(`create index "relay_transactions_request_id_index" on "relay_transactions" ("request_id");`);
    this.addSql(`create index "relay_transactions_network_wallet_nonce_index" on "relay_transactions" ("network", "wallet", "nonce");`);

    this.addSql(`alter table "relay_requests" add "nonce" bigint null, add "attempts" int not null default 0;`);
    this.addSql(`create unique index "relay_requests_network_nonce_unique" on "relay_requests" ("network", "nonce") where "nonce" is not null;`);

    this.addSql(`alter table "relay_transactions" add constraint "relay_transactions_request_id_foreign" foreign key ("request_id") references "relay_requests" ("id") on delete cascade;`);
    this.addSql(`alter table "relay_transactions" add constraint "relay_transactions_kind_check" check ("kind" in ('call', 'filler'));`);
    this.addSql(`alter table "relay_transactions" add constraint "relay_transactions_status_check" check ("status" in ('signed', 'sent', 'mined', 'replaced', 'dropped'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "relayer_wallets" cascade;`);
    this.addSql(`drop table if exists "relay_transactions" cascade;`);

    this.addSql(`drop index if exists "relay_requests_network_nonce_unique";`);
    this.addSql(`alter table "relay_requests" drop column "nonce", drop column "attempts";`);
  }

}
