import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLInputType,
  type GraphQLSchema,
  getVariableValues,
  isInputObjectType,
  isListType,
  isNonNullType,
  type OperationDefinitionNode,
  parse,
  typeFromAST,
  validate,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { AppError } from '../errors.ts';
import type { Context } from '../graphql/context.ts';
import { toAppError } from '../graphql/errors.ts';
import { toCamel, toSnake } from '../lib/validation.ts';
import type { RestRoute } from './route.ts';

interface CompiledRoute {
  route: RestRoute;
  document: DocumentNode;
  takesInput: boolean;
  /** The GraphQL type of `$input`, when the operation takes one. */
  inputType?: GraphQLInputType;
  operation: OperationDefinitionNode;
  /** The operation compiled to a function (graphql-jit); undefined where it could not be compiled. */
  compiled?: CompiledQuery;
}

/**
 * Maps `/v1` routes onto the GraphQL schema in process. Documents are parsed, validated and compiled
 * once at startup, so a broken route fails the boot, not a request. A route's operation runs as a
 * function compiled for it (graphql-jit: no per-request walk of the document, field lookups or
 * argument coercion); its variables are still coerced by graphql-js first, so that a bad body is
 * refused with graphql-js' own messages (which src/graphql/errors.ts reads), as before.
 */
export class RestAdapter {
  private readonly byPath = new Map<string, Map<string, CompiledRoute>>();

  constructor(
    private readonly schema: GraphQLSchema,
    /** The routes served, in the order they are documented. */
    readonly routes: readonly RestRoute[],
  ) {
    for (const route of routes) {
      const document = parse(route.operation);
      const errors = validate(schema, document);
      if (errors.length)
        throw new Error(`route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
      const methods = this.byPath.get(route.path) ?? new Map<string, CompiledRoute>();
      const variable = document.definitions
        .flatMap((d) => ('variableDefinitions' in d ? (d.variableDefinitions ?? []) : []))
        .find((v) => v.variable.name.value === 'input');
      const inputType = variable ? (typeFromAST(schema, variable.type) as GraphQLInputType) : undefined;
      const operation = document.definitions.find((d) => d.kind === 'OperationDefinition');
      if (!operation) throw new Error(`route ${route.method} ${route.path}: no operation`);
      const compiled = compileQuery(schema, document);
      methods.set(route.method, {
        route,
        document,
        takesInput: route.operation.includes('$input'),
        inputType,
        operation,
        compiled: isCompiledQuery(compiled) ? compiled : undefined,
      });
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
    const input = compiled.takesInput ? camelizeBody(body ?? {}, compiled.route.opaque) : undefined;
    const single = compiled.inputType && singleForList(compiled.inputType, input, '');
    if (single) throw new AppError('validation', `${single}: must be an array`);
    const variableValues = compiled.takesInput ? { input } : {};
    const result = await this.execute(compiled, variableValues, context);
    if (result.errors?.length) throw inRestSpelling(toAppError(result.errors[0]));
    const data = result.data as { result?: unknown } | null | undefined;
    if (!data || data.result === undefined)
      throw new AppError('internal', `route ${compiled.route.path} returned no result`);
    return dropNulls(data.result);
  }

  private async execute(
    compiled: CompiledRoute,
    variableValues: Record<string, unknown>,
    context: Context,
  ): Promise<ExecutionResult> {
    const coerced = getVariableValues(
      this.schema,
      compiled.operation.variableDefinitions ?? [],
      variableValues,
      { maxErrors: 50 },
    );
    if (coerced.errors) return { errors: coerced.errors };
    if (!compiled.compiled)
      return execute({
        schema: this.schema,
        document: compiled.document,
        variableValues,
        contextValue: context,
      });
    return compiled.compiled.query(undefined, context, variableValues);
  }
}

/**
 * The first field (REST spelling) where the body has a single value for a list. GraphQL's input
 * coercion would read it as a list of one, so `items: {…}` would pass on to the allowance and balance
 * checks; a JSON body has arrays, and anything else there is the wrong shape. Walks the input type,
 * not the value, so the depth is the type's.
 */
export function singleForList(type: GraphQLInputType, value: unknown, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    if (!Array.isArray(value)) return path || 'body';
    for (const [index, item] of value.entries()) {
      const found = singleForList(inner.ofType, item, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (!isInputObjectType(inner) || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const [name, field] of Object.entries(inner.getFields())) {
    const at = path ? `${path}.${toSnake(name)}` : toSnake(name);
    const found = singleForList(field.type, (value as Record<string, unknown>)[name], at);
    if (found) return found;
  }
  return undefined;
}

/** REST bodies omit absent fields rather than sending `null` (GraphQL's spelling of "absent"). */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = dropNulls(value[i]);
    return out;
  }
  if (value && typeof value === 'object') {
    // Plain loops: this runs over every response body, and entries/filter/map allocate at each level.
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key];
      if (field === null || field === undefined) continue;
      // An opaque JSON value may carry a `__proto__` key: kept as a property, never as the prototype.
      if (key === '__proto__')
        Object.defineProperty(out, key, {
          value: dropNulls(field),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[key] = dropNulls(field);
    }
    return out;
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
