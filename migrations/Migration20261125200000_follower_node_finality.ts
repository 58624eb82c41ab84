import { Migration } from '@mikro-orm/migrations';

export class Migration20261125200000_follower_node_finality extends Migration {

  override name = 'Migration20261125200000_follower_node_finality';

  override up(): void | Promise<void> {
    this.addSql(`alter table "chain_followers" add column "node_finalized_number" bigint null, add column "node_problem" text null, add column "node_problem_since" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "chain_followers" drop column "node_finalized_number", drop column "node_problem", drop column "node_problem_since";`);
  }

}
