import { Migration } from '@mikro-orm/migrations';

export class Migration20261126050000_session_history extends Migration {

  override name = 'Migration20261126050000_session_history';

  override up(): void | Promise<void> {
    this.addSql(`create table "session_history" ("session_id" varchar(40) not null, "version" int not null, "kind" varchar(32) not null, "cause" text not null, "actor" varchar(64) null, "from_step" text null, "to_step" text not null, "from_status" text null, "to_status" text not null, "failure_reason" varchar(64) null, "tx_hash" varchar(66) null, "at" timestamptz not null, primary key ("session_id", "version"));`);

    this.addSql(`alter table "session_history" add constraint "session_history_session_id_foreign" foreign key ("session_id") references "sessions" ("id") on delete cascade;`);
    this.addSql(`alter table "session_history" add constraint "session_history_cause_check" check ("cause" in ('merchant_api', 'player', 'chain', 'expiry', 'operator'));`);
    this.addSql(`alter table "session_history" add constraint "session_history_from_step_check" check ("from_step" in ('network_select', 'connect_wallet', 'token_select', 'enter_amount', 'awaiting_approval', 'awaiting_payment', 'processing', 'completed', 'failed', 'reverted'));`);
    this.addSql(`alter table "session_history" add constraint "session_history_to_step_check" check ("to_step" in ('network_select', 'connect_wallet', 'token_select', 'enter_amount', 'awaiting_approval', 'awaiting_payment', 'processing', 'completed', 'failed', 'reverted'));`);
    this.addSql(`alter table "session_history" add constraint "session_history_from_status_check" check ("from_status" in ('pending', 'processing', 'completed', 'failed'));`);
    this.addSql(`alter table "session_history" add constraint "session_history_to_status_check" check ("to_status" in ('pending', 'processing', 'completed', 'failed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "session_history" cascade;`);
  }

}
