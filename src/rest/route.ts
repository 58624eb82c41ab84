import type { z } from 'zod';

/**
 * One `/v1` route: which GraphQL operation it runs and the zod schemas that document it. The adapter
 * executes `operation` in process with `{ input: <body in camelCase> }` and answers with the field
 * aliased `result`. Response fields are aliased to snake_case in the document itself.
 */
export interface RestRoute {
  method: 'GET' | 'POST';
  path: string;
  /** `signed`: D1 HMAC headers; `token`: hosted one-time token in the body; `none`. */
  auth: 'signed' | 'token' | 'none';
  summary: string;
  description?: string;
  operation: string;
  /** Request body in camelCase, the same schema the GraphQL input validates with (OpenAPI). */
  request?: z.ZodType;
  /** Response body exactly as sent (OpenAPI and response tests). */
  response: z.ZodType;
  /** Body fields (REST spelling) whose values pass to GraphQL untouched, not camelCased (opaque JSON). */
  opaque?: string[];
  /** HTTP statuses this route can answer with besides 200. */
  errors: number[];
  tags: string[];
}

/** Identity helper that keeps the literal types of a module's route list. */
export const defineRoutes = (routes: RestRoute[]): RestRoute[] => routes;
