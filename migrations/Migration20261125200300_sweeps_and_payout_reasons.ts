import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200300_sweeps_and_payout_reasons extends Migration {

  override name = 'Migration20261125200300_sweeps_and_payout_reasons';

  override up(): void | Promise<void> {
    this.addSql(`create table "sweep_holds" ("id" bigserial primary key, "address_id" bigint not null, "network" varchar(32) not null, "token_address" varchar(42) not null, "failures" int not null, "last_error" text not null, "retry_at" timestamptz null, "parked_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`create index "sweep_holds_network_parked_at_index" on "sweep_holds" ("network", "parked_at");`);
    this.addSql(`alter table "sweep_holds" add constraint "sweep_holds_address_id_token_address_unique" unique ("address_id", "token_address");`);

    this.addSql(`alter table "deposits" add "swept_by" text null;`);
    this.addSql(`alter table "deposits" add constraint "deposits_swept_by_check" check ("swept_by" in ('service', 'outside'));`);

    this.addSql(`alter table "sweep_holds" add constraint "sweep_holds_address_id_foreign" foreign key ("address_id") references "deposit_addresses" ("id") on delete cascade;`);

    this.addSql(`alter table "payouts" add "last_relay_reason" text null, add "conflict_block" bigint null;`);
    this.addSql(`alter table "payouts" add constraint "payouts_last_relay_reason_check" check ("last_relay_reason" in ('expired', 'invalid_signature', 'nonce_used', 'insufficient_allowance', 'insufficient_funds', 'transfer_failed', 'reverted'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sweep_holds" cascade;`);

    this.addSql(`alter table "deposits" drop constraint "deposits_swept_by_check";`);
    this.addSql(`alter table "deposits" drop column "swept_by";`);

    this.addSql(`alter table "payouts" drop constraint "payouts_last_relay_reason_check";`);
    this.addSql(`alter table "payouts" drop column "last_relay_reason", drop column "conflict_block";`);
  }

}
