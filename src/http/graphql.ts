import type { IncomingMessage, ServerResponse } from 'node:http';
import { BREAK, type DocumentNode, GraphQLError, visit } from 'graphql';
import { CloseCode, type ServerOptions } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { App } from '../app.ts';
import { AppError } from '../errors.ts';
import type { Actor, Context } from '../graphql/context.ts';
import { isRequestError, toAppError, toGraphQLError, toRequestGraphQLError } from '../graphql/errors.ts';
import { operationLimits } from '../graphql/limits.ts';
import { findNul, graphqlTooDeep, NUL_MESSAGE, nestingMessage, valueTooDeep } from '../lib/validation.ts';
import { bodyTooLarge, MAX_BODY_BYTES } from './body.ts';
import { corsVariesByOrigin, graphqlCors, varyByOrigin } from './cors.ts';
import { GRAPHIQL_CSP, renderGraphiQL } from './graphiql.ts';
import { operatorIntrospection } from './introspection.ts';

/**
 * PostgreSQL text cannot hold NUL, so an operation carrying one — in a variable or in a string literal
 * of the document — is refused as `validation` before it runs: over HTTP by the `refuseNul` plugin,
 * over WebSocket where the operation is validated.
 */
function nulIn(document: DocumentNode, variables: unknown): AppError | undefined {
  // findNul recurses: the depth is bounded first.
  if (valueTooDeep(variables ?? {})) return new AppError('validation', nestingMessage('variables'));
  const inVariables = findNul(variables ?? {});
  if (inVariables) return new AppError('validation', `variables.${inVariables}: ${NUL_MESSAGE}`);
  let inLiteral = false;
  visit(document, {
    StringValue(node) {
      if (!node.value.includes('\u0000')) return undefined;
      inLiteral = true;
      return BREAK;
    },
  });
  return inLiteral ? new AppError('validation', `query: ${NUL_MESSAGE}`) : undefined;
}

/** What a body-less refusal of yoga's means, said in the GraphQL error format. */
const BARE_REFUSALS: Record<number, string> = {
  406: 'cannot answer in an accepted media type; accept application/graphql-response+json or application/json',
  415: 'request body must be sent as Content-Type: application/json',
};

/**
 * HTTP answers of yoga that need more: the GraphiQL page (the only HTML yoga sends) carries a strict
 * Content-Security-Policy, and the bare 406/415 replies get a body with a message and a code.
 */
const httpAnswers: Plugin<Context> = {
  onResponse({ response, setResponse, fetchAPI }) {
    if (response.headers.get('content-type')?.startsWith('text/html')) {
      response.headers.set('content-security-policy', GRAPHIQL_CSP);
      response.headers.set('x-content-type-options', 'nosniff');
      return;
    }
    const message = BARE_REFUSALS[response.status];
    if (!message || response.body !== null) return;
    const headers = new fetchAPI.Headers(response.headers);
    headers.set('content-type', 'application/json; charset=utf-8');
    const body = JSON.stringify({ errors: [{ message, extensions: { code: 'validation' } }] });
    setResponse(new fetchAPI.Response(body, { status: response.status, headers }));
  },
};

/**
 * graphql-js parses recursively, so a document nested thousands of levels deep would overflow the
 * stack (a 500); it is refused as a request error before the parser sees it.
 */
const limitDepth: Plugin<Context> = {
  onParse({ params }) {
    const source: unknown = params.source;
    if (
      graphqlTooDeep(typeof source === 'string' ? source : String((source as { body?: unknown }).body ?? ''))
    )
      throw new GraphQLError(nestingMessage('query'), { extensions: { http: { status: 400, spec: true } } });
  },
};

/** Bounds what one operation may ask for (aliases, fields): src/graphql/limits.ts. */
const limitCost: Plugin<Context> = {
  onValidate({ addValidationRule }) {
    addValidationRule(operationLimits());
  },
};

/**
 * Validation errors bypass error masking; they get the same code as every other request error here
 * (yoga's `useHTTPValidationError` then leaves our code and status alone).
 */
const validationCode: Plugin<Context> = {
  onValidate() {
    return ({ valid, result }) => {
      if (valid) return;
      for (const error of result) {
        const extensions = error.extensions as Record<string, unknown>;
        extensions.code = 'validation';
        extensions.http = { spec: true, status: 400, ...(extensions.http as object | undefined) };
      }
    };
  },
};

const refuseNul: Plugin<Context> = {
  onExecute({ args, setResultAndStopExecution }) {
    const refused = nulIn(args.document, args.variableValues);
    if (refused) setResultAndStopExecution({ errors: [toGraphQLError(refused)] });
  },
  onSubscribe({ args, setResultAndStopExecution }) {
    const refused = nulIn(args.document, args.variableValues);
    if (refused) setResultAndStopExecution({ errors: [toGraphQLError(refused)] });
  },
};

/**
 * A body that is not JSON is not a GraphQL-over-HTTP request at all, so the specification's leave to
 * answer legacy `application/json` clients 200 does not apply: it is a 400 whatever the client
 * accepts. Likewise a body over the size limit is a 413.
 */
function notJsonIsBadRequest(error: GraphQLError): GraphQLError {
  // yoga's refusal of a body over maxRequestBodySize: D2's 413 with the message /v1 gives, whatever
  // the client accepts (a body cut off is no GraphQL request either).
  if (error.extensions?.code === 'REQUEST_ENTITY_TOO_LARGE') {
    const tooLarge = bodyTooLarge();
    return new GraphQLError(tooLarge.message, {
      extensions: { code: tooLarge.publicCode, http: { status: tooLarge.status } },
    });
  }
  const answer = toRequestGraphQLError(error);
  const original = error.extensions?.originalError as { name?: unknown } | undefined;
  if (original?.name === 'SyntaxError' && /invalid JSON/i.test(error.message))
    (answer.extensions.http as Record<string, unknown>).spec = false;
  return answer;
}

/** The bearer a WebSocket client sends in its `connection_init` payload. */
const authorizationOf = (params: Record<string, unknown> | undefined): unknown =>
  params?.authorization ?? params?.Authorization;

interface ServerContext {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * `/graphql` for operators (bearer token) and the hosted page: graphql-yoga over HTTP with GraphiQL,
 * and the same schema over WebSocket (graphql-ws) for subscriptions. Errors carry the same codes as
 * the REST envelope; unknown failures are masked as `internal`.
 */
export function createGraphqlHandler(app: App) {
  const bearer = (authorization: unknown) =>
    typeof authorization === 'string' ? /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] : undefined;

  async function actorFor(authorization: unknown, em: Context['em']): Promise<Actor> {
    const token = bearer(authorization);
    if (!token) return { kind: 'anonymous' };
    const operator = await app.services.authenticator.operator(em, token);
    if (!operator) return { kind: 'anonymous' };
    return {
      kind: 'operator',
      operatorId: operator.operatorId,
      name: operator.name,
      scopes: operator.scopes,
    };
  }

  const production = app.config.env === 'production';
  const origins = app.config.graphqlCorsOrigins;
  const yoga: YogaServerInstance<ServerContext, Context> = createYoga<ServerContext, Context>({
    schema: app.schema,
    graphqlEndpoint: '/graphql',
    // Off in production: the console is for development; operators there use their own client.
    graphiql: production
      ? false
      : { subscriptionsProtocol: 'WS', title: 'Crypto payment gateway — operator console' },
    cors: graphqlCors(origins),
    // Served from this origin (src/http/graphiql.ts), not yoga's CDN: works offline and under a CSP.
    renderGraphiQL,
    landingPage: false,
    // D2's 1 MiB, as on /v1 (yoga's own default is 25 MB): checked against Content-Length before the
    // body is read, and counted while a body without one streams in.
    maxRequestBodySize: MAX_BODY_BYTES,
    logging: false,
    plugins: [
      limitDepth,
      limitCost,
      validationCode,
      refuseNul,
      httpAnswers,
      ...(production ? [operatorIntrospection] : []),
      ...(corsVariesByOrigin(origins) ? [varyByOrigin] : []),
    ],
    maskedErrors: {
      maskError(error) {
        // The caller's mistake, found before execution: its own message and a 4xx, never logged.
        if (isRequestError(error)) return notJsonIsBadRequest(error as GraphQLError);
        const appError = toAppError(error);
        // A genuine fault is logged once, here, with its whole cause chain and stack.
        if (appError.code === 'internal') app.logger.error('graphql operation failed', { error });
        return toGraphQLError(appError, error as never);
      },
    },
    // The server context (`req`) is merged into the initial context; the Fetch request has no socket.
    context: async ({ request, req }): Promise<Context> => {
      const em = app.fork();
      return {
        em,
        services: app.services,
        actor: await actorFor(request.headers.get('authorization') ?? undefined, em),
        clientIp: req?.socket.remoteAddress,
      };
    },
  });

  const wsOptions: ServerOptions<Record<string, unknown> | undefined, Extra> = {
    execute: (args) => (args.rootValue as { execute: (a: unknown) => unknown }).execute(args) as never,
    subscribe: (args) => (args.rootValue as { subscribe: (a: unknown) => unknown }).subscribe(args) as never,
    // An operator socket lives as long as its token: one that does not verify is refused (4403), and
    // one revoked or expiring later is closed with 4403 then (src/modules/auth/operator-sessions.ts).
    onConnect: async (ctx) => {
      const token = bearer(authorizationOf(ctx.connectionParams));
      if (!token) return true;
      const operator = await app.services.authenticator.operator(app.fork(), token);
      if (!operator) return false;
      const { socket } = ctx.extra;
      const unwatch = app.services.authenticator.sessions.watch(
        operator.operatorId,
        operator.validUntil,
        () => socket.close(CloseCode.Forbidden, 'operator token revoked or expired'),
      );
      socket.once('close', unwatch);
      // Closed while the token was being read: its 'close' has been and gone.
      if (socket.readyState !== socket.OPEN) unwatch();
      return true;
    },
    onSubscribe: async (ctx, _id, params) => {
      const enveloped = yoga.getEnveloped({ req: ctx.extra.request, socket: ctx.extra.socket, params });
      const em = app.fork();
      const contextValue: Context = {
        em,
        services: app.services,
        actor: await actorFor(authorizationOf(ctx.connectionParams), em),
        clientIp: ctx.extra.request.socket.remoteAddress,
      };
      let document: DocumentNode;
      try {
        document = enveloped.parse(params.query);
      } catch (error) {
        // A syntax error or an over-deep document: the protocol's `error` message, like validation.
        if (isRequestError(error)) return [toRequestGraphQLError(error as GraphQLError)];
        throw error;
      }
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length) return errors;
      // Refused here as the protocol's `error` message, like any invalid operation (refuseNul would
      // answer the same as an execution result).
      const refused = nulIn(document, params.variables);
      if (refused) return [toGraphQLError(refused)];
      return {
        schema: enveloped.schema,
        operationName: params.operationName,
        document,
        variableValues: params.variables,
        contextValue,
        rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
      };
    },
  };

  return {
    handle: (req: IncomingMessage, res: ServerResponse) => yoga(req, res, { req, res }),
    wsOptions,
  };
}
