import { Migration } from '@mikro-orm/migrations';

/**
 * Who holds a relay request's claim: the token of the sending process's session (src/relay/sender-session.ts).
 * A claim whose token no live session holds is free at once, so a killed worker's claims are taken over
 * without waiting for their lease to run out; the lease stays for a sender alive but stuck.
 */
export class Migration20261127010000_relay_claim_owner extends Migration {

  override name = 'Migration20261127010000_relay_claim_owner';

  override up(): void | Promise<void> {
    this.addSql(`alter table "relay_requests" add column "claimed_by" int null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "relay_requests" drop column "claimed_by";`);
  }

}
