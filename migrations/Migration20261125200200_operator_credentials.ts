import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200200_operator_credentials extends Migration {

  override name = 'Migration20261125200200_operator_credentials';

  override up(): void | Promise<void> {
    // Tokens issued before scopes existed could do everything: they keep that (admin).
    this.addSql(`alter table "operator_tokens" add column "scopes" text[] not null default '{read,admin}', add column "expires_at" timestamptz null, add column "last_used_at" timestamptz null;`);
    this.addSql(`alter table "operator_tokens" alter column "scopes" drop default;`);

    // A token revoked or expiring (by the service or by hand in SQL) is announced to every API
    // process, which closes the token's open WebSockets.
    this.addSql(`create function "operator_token_changed"() returns trigger language plpgsql as $$
begin
  perform pg_notify('operator_token_changed', json_build_object('tokenId', new.id)::text);
  return null;
end $$;`);
    this.addSql(`create trigger "operator_token_changed" after update of "revoked_at", "expires_at" on "operator_tokens" for each row when (old.revoked_at is distinct from new.revoked_at or old.expires_at is distinct from new.expires_at) execute function "operator_token_changed"();`);

    this.addSql(`create table "operator_audit" ("id" varchar(40) not null, "operator_token_id" varchar(40) null, "operator_name" varchar(200) not null, "operation" varchar(200) not null, "arguments" jsonb not null, "outcome" text not null, "error_code" varchar(40) null, "client_ip" varchar(64) null, "created_at" timestamptz not null, "finished_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "operator_audit_created_at_id_index" on "operator_audit" ("created_at", "id");`);
    this.addSql(`create index "operator_audit_operator_token_id_created_at_index" on "operator_audit" ("operator_token_id", "created_at");`);
    this.addSql(`alter table "operator_audit" add constraint "operator_audit_operator_token_id_foreign" foreign key ("operator_token_id") references "operator_tokens" ("id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "operator_audit" cascade;`);
    this.addSql(`drop trigger if exists "operator_token_changed" on "operator_tokens";`);
    this.addSql(`drop function if exists "operator_token_changed"();`);
    this.addSql(`alter table "operator_tokens" drop column "scopes", drop column "expires_at", drop column "last_used_at";`);
  }

}
