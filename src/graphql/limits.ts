import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/**
 * What one GraphQL operation may ask for. The hosted fields answer anonymous callers (the token is the
 * only credential), so without a bound one request could alias a field hundreds of times and make the
 * service do hundreds of reads. Two bounds, counted per operation with fragments expanded where they
 * are spread: aliases (a dashboard needs a handful; the hosted page none) and field selections (the
 * cost of the response's shape; GraphiQL's introspection query is about 200).
 */
export const GRAPHQL_LIMITS = { aliases: 30, fields: 1_000 } as const;

export type GraphQLLimits = { aliases: number; fields: number };

/** A validation rule refusing an operation over `limits`, naming the bound. */
export function operationLimits(limits: GraphQLLimits = GRAPHQL_LIMITS) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions)
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    return {
      OperationDefinition(operation) {
        const count = { aliases: 0, fields: 0 };
        // Stops counting once over a bound: a fragment spread many times cannot make this slow.
        const over = () => count.aliases > limits.aliases || count.fields > limits.fields;
        const walk = (set: SelectionSetNode, path: ReadonlySet<string>) => {
          for (const s of set.selections) {
            if (over()) return;
            if (s.kind === Kind.FIELD) {
              count.fields++;
              if (s.alias) count.aliases++;
              if (s.selectionSet) walk(s.selectionSet, path);
            } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, path);
            else {
              const name = s.name.value;
              const fragment = fragments.get(name);
              // Unknown or cyclic spreads are other rules' errors.
              if (fragment && !path.has(name)) walk(fragment.selectionSet, new Set([...path, name]));
            }
          }
        };
        walk(operation.selectionSet, new Set());
        const what = operation.name ? `operation ${operation.name.value}` : 'the operation';
        if (count.aliases > limits.aliases)
          context.reportError(
            new GraphQLError(`${what} uses more than ${limits.aliases} aliases`, { nodes: [operation] }),
          );
        else if (count.fields > limits.fields)
          context.reportError(
            new GraphQLError(
              `${what} selects more than ${limits.fields} fields (fragments counted where spread)`,
              {
                nodes: [operation],
              },
            ),
          );
        return false;
      },
    };
  };
}
