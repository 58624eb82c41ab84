import { type DocumentNode, execute, type GraphQLSchema, parse, validate } from 'graphql';
import { AppError } from '../errors.ts';
import type { Context } from '../graphql/context.ts';
import { toAppError } from '../graphql/errors.ts';
import { toCamel } from '../lib/validation.ts';
import type { RestRoute } from './route.ts';

interface CompiledRoute {
  route: RestRoute;
  document: DocumentNode;
  takesInput: boolean;
}

/**
 * Maps `/v1` routes onto the GraphQL schema in process. Documents are parsed and validated once at
 * startup, so a broken route fails the boot, not a request.
 */
export class RestAdapter {
  private readonly byPath = new Map<string, Map<string, CompiledRoute>>();

  constructor(
    private readonly schema: GraphQLSchema,
    routes: RestRoute[],
  ) {
    for (const route of routes) {
      const document = parse(route.operation);
      const errors = validate(schema, document);
      if (errors.length)
        throw new Error(`route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
      const methods = this.byPath.get(route.path) ?? new Map<string, CompiledRoute>();
      methods.set(route.method, { route, document, takesInput: route.operation.includes('$input') });
      this.byPath.set(route.path, methods);
    }
  }

  /** The route for a request, or the methods the path allows (405), or undefined (404). */
  match(method: string, path: string): CompiledRoute | { allow: string[] } | undefined {
    const methods = this.byPath.get(path);
    if (!methods) return undefined;
    return methods.get(method) ?? { allow: [...methods.keys()] };
  }

  /** Runs the route's operation; resolves to the response body or throws an AppError. */
  async run(compiled: CompiledRoute, body: unknown, context: Context): Promise<unknown> {
    const variableValues = compiled.takesInput
      ? { input: camelizeBody(body ?? {}, compiled.route.opaque) }
      : {};
    const result = await execute({
      schema: this.schema,
      document: compiled.document,
      variableValues,
      contextValue: context,
    });
    if (result.errors?.length) throw inRestSpelling(toAppError(result.errors[0]));
    const data = result.data as { result?: unknown } | null | undefined;
    if (!data || data.result === undefined)
      throw new AppError('internal', `route ${compiled.route.path} returned no result`);
    return dropNulls(data.result);
  }
}

/** REST bodies omit absent fields rather than sending `null` (GraphQL's spelling of "absent"). */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, dropNulls(v)]),
    );
  }
  return value;
}

/** The body in GraphQL spelling, with the route's opaque fields passed through as they came. */
function camelizeBody(body: unknown, opaque: string[] | undefined): unknown {
  if (!opaque?.length || !body || typeof body !== 'object' || Array.isArray(body)) return camelizeKeys(body);
  return Object.fromEntries(
    Object.entries(body).map(([k, v]) => [toCamel(k), opaque.includes(k) ? v : camelizeKeys(v)]),
  );
}

/** Request bodies arrive in snake_case; GraphQL inputs are camelCase. Values are left untouched. */
export function camelizeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [toCamel(k), camelizeKeys(v)]));
  }
  return value;
}

/**
 * The body of a REST request is the operation's `input` argument, so field paths are named without
 * it: `amount: …`, not `input.amount: …`.
 */
function inRestSpelling(error: AppError): AppError {
  if (error.code !== 'validation' || !/(^|; )input\./.test(error.message)) return error;
  return new AppError('validation', error.message.replace(/(^|; )input\./g, '$1'), error.details, {
    cause: error.cause,
  });
}
