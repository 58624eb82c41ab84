import { Migration } from '@mikro-orm/migrations';

/**
 * A relay request's claim: the sender that took it into its pipelined send holds it until then, so
 * concurrent senders split the queue instead of each simulating all of it. A claim is a hint for
 * sharing the work, never what decides a nonce (that is the wallet's row lock and the request's own
 * `nonce is null` under it); one left by a crashed sender expires and the watcher queues it again.
 */
export class Migration20261126010000_relay_claims extends Migration {

  override name = 'Migration20261126010000_relay_claims';

  override up(): void | Promise<void> {
    this.addSql(`alter table "relay_requests" add column "claimed_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "relay_requests" drop column "claimed_until";`);
  }

}
