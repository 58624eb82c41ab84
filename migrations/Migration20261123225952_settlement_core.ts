import { Migration } from '@mikro-orm/migrations';

export class Migration20261123225952_settlement_core extends Migration {

  override name = 'Migration20261123225952_settlement_core';

  override up(): void | Promise<void> {
    this.addSql(`create table "chain_blocks" ("network" varchar(32) not null, "number" bigint not null, "hash" varchar(66) not null, "parent_hash" varchar(66) not null, "timestamp" bigint not null, primary key ("network", "number"));`);

    this.addSql(`create table "chain_cursors" ("network" varchar(32) not null, "stream" varchar(32) not null, "block_number" bigint not null, "block_hash" varchar(66) not null, "block_timestamp" bigint not null, "updated_at" timestamptz not null, primary key ("network", "stream"));`);

    this.addSql(`create table "chain_followers" ("network" varchar(32) not null, "owner" varchar(128) not null, "since" timestamptz not null, "head_number" bigint null, "head_timestamp" bigint null, "finalized_number" bigint null, "ticked_at" timestamptz null, primary key ("network"));`);

    this.addSql(`create table "payments" ("id" bigserial primary key, "network" varchar(32) not null, "tx_hash" varchar(66) not null, "log_index" int not null, "block_number" bigint not null, "block_hash" varchar(66) not null, "kind" text not null, "token" varchar(42) not null, "payer" varchar(42) not null, "recipient" varchar(42) not null, "amount_raw" numeric(78,0) not null, "order_ref" varchar(66) null, "created_at" timestamptz not null);`);
    this.addSql(`create index "payments_order_ref_index" on "payments" ("order_ref");`);
    this.addSql(`create index "payments_network_block_number_index" on "payments" ("network", "block_number");`);
    this.addSql(`alter table "payments" add constraint "payments_network_tx_hash_log_index_unique" unique ("network", "tx_hash", "log_index");`);

    // Payments found before the ledger existed move into it (kind 'legacy': the token's address was
    // never stored, so `token` keeps the symbol). Where the old defect let one transfer settle two
    // sessions, the ledger row goes to the first to settle; the unique claim is added afterwards.
    this.addSql(`insert into "payments" ("network", "tx_hash", "log_index", "block_number", "block_hash", "kind", "token", "payer", "recipient", "amount_raw", "order_ref", "created_at")
      select distinct on (s."network", s."tx_hash", s."log_index") s."network", s."tx_hash", s."log_index", s."block_number", s."block_hash", 'legacy', coalesce(s."token", ''), coalesce(s."payer", ''), coalesce(lower(w."address"), ''), coalesce(s."paid_raw", '0')::numeric, s."order_ref", s."updated_at"
        from "sessions" s left join "settlement_wallets" w on w."merchant_id" = s."merchant_id" and w."network" = s."network"
       where s."tx_hash" is not null and s."network" is not null and s."log_index" is not null and s."block_number" is not null
       order by s."network", s."tx_hash", s."log_index", s."settled_at" nulls last, s."updated_at";`);
    this.addSql(`alter table "sessions" add "payment_id" bigint null, add "payee" varchar(42) null, add "view" jsonb null, add "version" int not null default 0;`);
    this.addSql(`update "sessions" s set "payment_id" = p."id"
      from "payments" p
     where p."network" = s."network" and p."tx_hash" = s."tx_hash" and p."log_index" = s."log_index"
       and s."id" = (select s2."id" from "sessions" s2 where s2."network" = p."network" and s2."tx_hash" = p."tx_hash" and s2."log_index" = p."log_index"
                     order by s2."settled_at" nulls last, s2."updated_at" limit 1);`);
    // The payee of a session opened before payees were pinned: the wallet configured now, the best
    // that is known.
    this.addSql(`update "sessions" s set "payee" = lower(w."address") from "settlement_wallets" w
      where w."merchant_id" = s."merchant_id" and w."network" = s."network";`);
    this.addSql(`alter table "sessions" drop column "tx_hash", drop column "block_number", drop column "block_hash", drop column "log_index", drop column "payer", drop column "paid_raw";`);
    this.addSql(`alter table "sessions" add constraint "sessions_payment_id_foreign" foreign key ("payment_id") references "payments" ("id") on delete restrict;`);
    this.addSql(`alter table "sessions" add constraint "sessions_payment_id_unique" unique ("payment_id");`);
    this.addSql(`alter table "payments" add constraint "payments_kind_check" check ("kind" in ('router_payment', 'transfer', 'legacy'));`);

    // The listener's checkpoint becomes the `sessions` stream's cursor (its block time is learnt on the
    // next advance).
    this.addSql(`insert into "chain_cursors" ("network", "stream", "block_number", "block_hash", "block_timestamp", "updated_at")
      select "network", 'sessions', "block_number", "block_hash", 0, now() from "listener_checkpoints";`);
    this.addSql(`drop table if exists "listener_checkpoints" cascade;`);
    // The listener jobs are gone (chain followers are not jobs); drop any still queued.
    this.addSql(`do $$ begin
      if to_regclass('graphile_worker._private_jobs') is not null then
        delete from graphile_worker._private_jobs j using graphile_worker._private_tasks t
         where t.id = j.task_id and t.identifier in ('listen_network', 'listen_networks');
      end if;
    end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sessions" drop constraint "sessions_payment_id_foreign";`);

    this.addSql(`create table "listener_checkpoints" ("network" varchar(32) not null, "block_number" int8 not null, "block_hash" varchar(66) not null, "updated_at" timestamptz(6) not null, primary key ("network"));`);

    this.addSql(`drop table if exists "chain_blocks" cascade;`);
    this.addSql(`drop table if exists "chain_cursors" cascade;`);
    this.addSql(`drop table if exists "chain_followers" cascade;`);
    this.addSql(`drop table if exists "payments" cascade;`);

    this.addSql(`alter table "sessions" drop constraint "sessions_payment_id_unique";`);
    this.addSql(`alter table "sessions" drop column "payment_id", drop column "payee", drop column "view", drop column "version";`);
    this.addSql(`alter table "sessions" add "tx_hash" varchar(66) null, add "block_number" int8 null, add "block_hash" varchar(66) null, add "log_index" int4 null, add "payer" varchar(42) null, add "paid_raw" varchar(80) null;`);
  }

}
