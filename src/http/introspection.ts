import { BREAK, type DocumentNode, GraphQLError, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors.ts';
import type { Context } from '../graphql/context.ts';

/**
 * In production the schema is not handed to anyone who asks: an operation that reads `__schema` or
 * `__type` needs an operator bearer token (over HTTP and WebSocket alike). `__typename` stays open;
 * it tells nothing about the schema. The check runs once the caller is known, before anything executes.
 */

/** Whether the operation reads the schema (anywhere, fragments included). */
export function readsSchema(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

const refusal = () => {
  const error = new AppError('unauthorized', 'introspection needs an operator bearer token');
  return new GraphQLError(error.message, {
    extensions: { code: error.publicCode, http: { status: error.status } },
  });
};

/** The yoga plugin; install it only where introspection is to be guarded (production). */
export const operatorIntrospection: Plugin<Context> = {
  onExecute({ args, setResultAndStopExecution }) {
    const context = args.contextValue as Context;
    if (context.actor.kind !== 'operator' && readsSchema(args.document))
      setResultAndStopExecution({ errors: [refusal()] });
  },
};
