import SchemaBuilder from '@pothos/core';
import ValidationPlugin from '@pothos/plugin-validation';
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { AppError } from '../errors.ts';
import { formatIssues } from '../lib/validation.ts';
import type { Context } from './context.ts';

/** The one Pothos builder: plugins, scalars and context type. Domain types live in their modules. */
export const builder = new SchemaBuilder<{
  Context: Context;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ValidationPlugin],
  defaultFieldNullability: false,
  validation: {
    // zod issues become the `validation` error of the envelope, naming the field in API spelling.
    validationError: (result) => new AppError('validation', formatIssues(result.issues)),
  },
});

builder.addScalarType(
  'JSON',
  new GraphQLScalarType({
    name: 'JSON',
    description: 'Arbitrary JSON value, passed through untouched (e.g. EIP-712 typed data).',
    serialize: (v) => v,
    parseValue: (v) => v,
    parseLiteral: function parse(ast: ValueNode): unknown {
      switch (ast.kind) {
        case Kind.STRING:
        case Kind.BOOLEAN:
          return ast.value;
        case Kind.INT:
        case Kind.FLOAT:
          return Number(ast.value);
        case Kind.OBJECT:
          return Object.fromEntries(ast.fields.map((f) => [f.name.value, parse(f.value)]));
        case Kind.LIST:
          return ast.values.map(parse);
        case Kind.NULL:
          return null;
        default:
          throw new GraphQLError('Unsupported JSON literal');
      }
    },
  }),
);

builder.scalarType('DateTime', {
  description: 'ISO 8601 date-time in UTC.',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new AppError('validation', 'invalid date-time');
    return date;
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
