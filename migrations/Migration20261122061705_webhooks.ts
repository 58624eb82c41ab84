import { Migration } from '@mikro-orm/migrations';

export class Migration20261122061705_webhooks extends Migration {

  override name = 'Migration20261122061705_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_events" ("id" varchar(40) not null, "merchant_id" varchar(40) not null, "event" varchar(40) not null, "subject_id" varchar(128) not null, "idempotency_key" varchar(200) not null, "callback_url" varchar(2048) null, "body" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_events_subject_id_index" on "webhook_events" ("subject_id");`);
    this.addSql(`alter table "webhook_events" add constraint "webhook_events_merchant_id_idempotency_key_unique" unique ("merchant_id", "idempotency_key");`);

    this.addSql(`create table "webhook_deliveries" ("id" varchar(40) not null, "event_id" varchar(40) not null, "merchant_id" varchar(40) not null, "target_url" varchar(2048) not null, "status" text not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz null, "lease_until" timestamptz null, "last_status_code" int null, "last_error" text null, "delivered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_event_id_index" on "webhook_deliveries" ("event_id");`);
    this.addSql(`create index "webhook_deliveries_merchant_id_created_at_index" on "webhook_deliveries" ("merchant_id", "created_at");`);
    this.addSql(`create index "webhook_deliveries_status_next_attempt_at_index" on "webhook_deliveries" ("status", "next_attempt_at");`);

    this.addSql(`create table "webhook_attempts" ("id" serial primary key, "delivery_id" varchar(40) not null, "number" int not null, "started_at" timestamptz not null, "status_code" int null, "latency_ms" int null, "response_body" text null, "error" text null);`);
    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_number_unique" unique ("delivery_id", "number");`);

    this.addSql(`alter table "webhook_events" add constraint "webhook_events_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "webhook_events" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_merchant_id_foreign" foreign key ("merchant_id") references "merchants" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('pending', 'delivering', 'delivered', 'failed'));`);

    this.addSql(`alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_id_foreign";`);
    this.addSql(`alter table "webhook_attempts" drop constraint "webhook_attempts_delivery_id_foreign";`);

    this.addSql(`drop table if exists "webhook_events" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_attempts" cascade;`);
  }

}
