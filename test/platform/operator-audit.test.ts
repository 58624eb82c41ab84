import { execute, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Context } from '../../src/graphql/context.ts';
import { guardOperatorMutations } from '../../src/graphql/operator-mutations.ts';
import { redactArguments } from '../../src/modules/auth/audit.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** Every operator mutation is in the audit log: who, what, when, the arguments without secrets, the outcome. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const AUDIT = `query ($operator: ID, $operation: String) {
  operatorAuditLog(operatorId: $operator, operation: $operation, first: 10) {
    nodes { id operatorId operatorName operation arguments outcome errorCode clientIp createdAt finishedAt }
  }
}`;

it('records each mutation of an operator with its arguments and outcome, queryable by operators', async () => {
  const admin = await t.operatorToken(['admin']);
  const read = await t.operatorToken(['read']);
  const adminId = (await t.graphql(admin, '{ viewer { id } }')).data.viewer.id;
  const readId = (await t.graphql(read, '{ viewer { id } }')).data.viewer.id;

  const created = await t.graphql(admin, 'mutation { createMerchant(name: "Audited") { id } }');
  const merchantId = created.data.createMerchant.id;
  await t.graphql(admin, 'mutation ($m: ID!) { issueApiKey(merchantId: $m, label: "ci") { secret } }', {
    m: merchantId,
  });
  const missing = await t.graphql(
    admin,
    'mutation { updateMerchant(id: "mer_none", input: { name: "x" }) { id } }',
  );
  expect(missing.errors?.[0]?.extensions?.code).toBe('not_found');
  await t.graphql(read, 'mutation { createMerchant(name: "Refused") { id } }');
  // Queries are not mutations: not in the log.
  await t.graphql(admin, '{ merchants { id } }');

  // The log is readable with a read token.
  const mine = (await t.graphql(read, AUDIT, { operator: adminId })).data.operatorAuditLog.nodes;
  expect(mine.map((e: { operation: string }) => e.operation)).toEqual([
    'updateMerchant',
    'issueApiKey',
    'createMerchant',
  ]);
  const [failed, issued, merchant] = mine;
  expect(merchant).toMatchObject({
    operatorId: adminId,
    operatorName: 'test',
    arguments: { name: 'Audited' },
    outcome: 'ok',
    errorCode: null,
    clientIp: '127.0.0.1',
  });
  expect(Date.parse(merchant.finishedAt)).toBeGreaterThanOrEqual(Date.parse(merchant.createdAt));
  expect(issued).toMatchObject({ arguments: { merchantId, label: 'ci' }, outcome: 'ok' });
  // The issued secret is a result, never an argument: it is nowhere in the log.
  expect(JSON.stringify(mine)).not.toMatch(/sk_/);
  expect(failed).toMatchObject({
    arguments: { id: 'mer_none', input: { name: 'x' } },
    outcome: 'failed',
    errorCode: 'not_found',
  });

  const refused = (await t.graphql(admin, AUDIT, { operator: readId })).data.operatorAuditLog.nodes;
  expect(refused).toEqual([
    expect.objectContaining({ operation: 'createMerchant', outcome: 'refused', errorCode: 'forbidden' }),
  ]);
  const byOperation = (await t.graphql(admin, AUDIT, { operation: 'issueApiKey' })).data.operatorAuditLog
    .nodes;
  expect(byOperation.map((e: { id: string }) => e.id)).toEqual([issued.id]);
  expect((await t.graphql('opk_not_a_token', AUDIT, {})).errors?.[0]?.extensions?.code).toBe('unauthorized');
});

it('covers a mutation added later without a line of its own, and redacts its secrets', async () => {
  const admin = await t.operatorToken(['admin']);
  const operatorId = (await t.graphql(admin, '{ viewer { id } }')).data.viewer.id;
  let ran = 0;
  const Mutation = new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      importSigner: {
        type: GraphQLString,
        args: {
          network: { type: new GraphQLNonNull(GraphQLString) },
          privateKey: { type: new GraphQLNonNull(GraphQLString) },
          token: { type: GraphQLString },
        },
        resolve: () => `done ${++ran}`,
      },
    },
  });
  const Query = new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } });
  const schema = guardOperatorMutations(new GraphQLSchema({ query: Query, mutation: Mutation }));
  const document = parse(
    'mutation { importSigner(network: "tron", privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", token: "USDT") }',
  );
  const run = (scopes: ('read' | 'admin')[]) => {
    const context: Context = {
      em: t.app.fork(),
      services: t.app.services,
      actor: { kind: 'operator', operatorId, name: 'test', scopes },
      clientIp: '10.0.0.7',
    };
    return execute({ schema, document, contextValue: context });
  };
  expect((await run(['read'])).errors?.[0]?.message).toMatch(/lacks the admin scope/);
  expect(ran).toBe(0);
  expect((await run(['read', 'admin'])).data).toEqual({ importSigner: 'done 1' });

  const nodes = (await t.graphql(admin, AUDIT, { operation: 'importSigner' })).data.operatorAuditLog.nodes;
  expect(nodes).toEqual([
    expect.objectContaining({ outcome: 'ok', clientIp: '10.0.0.7' }),
    expect.objectContaining({ outcome: 'refused', errorCode: 'forbidden' }),
  ]);
  for (const node of nodes)
    expect(node.arguments).toEqual({ network: 'tron', privateKey: '[redacted]', token: 'USDT' });
});

it('redacts secret-looking arguments by name and the service’s own secrets by value', () => {
  expect(
    redactArguments({
      keyId: 'key_1',
      merchantId: 'mer_1',
      token: 'USDT',
      apiSecret: 's',
      password: 'p',
      privateKey: '0xabc',
      operatorToken: 't',
      signingKeys: ['a'],
      input: { webhookSecret: 'w', label: 'x', nested: [{ mnemonic: 'm', amount: '1.5' }] },
      note: `opk_${'A'.repeat(43)}`,
      at: new Date('2026-01-02T03:04:05Z'),
    }),
  ).toEqual({
    keyId: 'key_1',
    merchantId: 'mer_1',
    token: 'USDT',
    apiSecret: '[redacted]',
    password: '[redacted]',
    privateKey: '[redacted]',
    operatorToken: '[redacted]',
    signingKeys: '[redacted]',
    input: { webhookSecret: '[redacted]', label: 'x', nested: [{ mnemonic: '[redacted]', amount: '1.5' }] },
    note: '[redacted]',
    at: '2026-01-02T03:04:05.000Z',
  });
});
