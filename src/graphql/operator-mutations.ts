import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { Context } from './context.ts';
import { lacksScope } from './guards.ts';

/**
 * Every mutation an operator token makes passes here, whichever module defines it and whether it
 * arrives over HTTP or a WebSocket: it needs the `admin` scope (a `read` token is refused as
 * `forbidden` before the resolver runs), and it is written to the audit log before it runs, its
 * outcome after (src/modules/auth/audit.ts). Applied once to the built schema, so a mutation added
 * later is covered without a line of its own. Merchants (REST) and the hosted page pass untouched.
 */
export function guardOperatorMutations(schema: GraphQLSchema): GraphQLSchema {
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args: Record<string, unknown>, ctx: Context, info) => {
      const { actor } = ctx;
      if (actor.kind !== 'operator') return resolve(source, args, ctx, info);
      return ctx.services.operators.audit.run(
        ctx.em,
        { operator: actor, operation: field.name, arguments: args, clientIp: ctx.clientIp },
        actor.scopes.includes('admin') ? undefined : lacksScope('admin'),
        async () => resolve(source, args, ctx, info),
      );
    };
  }
  return schema;
}
