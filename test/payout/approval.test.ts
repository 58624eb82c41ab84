import { getAddress, Transaction, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeApprove } from '../../src/chains/evm/abi.ts';
import { APPROVAL_BUILD_TTL_DAYS } from '../../src/modules/approval/approval.built.ts';
import { type Body, type PayoutFixture, payoutFixture } from './support.ts';

/** Sections 4.14-4.16 on EVM: build, sign with the payout wallet, broadcast, status; every refusal unsent. */

let f: PayoutFixture;
beforeAll(async () => {
  f = await payoutFixture();
});
afterAll(() => f?.close());

const build = (body: Record<string, unknown> = {}) =>
  f.call('/v1/payouts/approval', { network: 'eth', token: 'USDT', amount: '250', ...body });

/** Signs the built legacy transaction as a wallet would, optionally altered first. */
async function sign(
  tx: Body,
  wallet: Pick<Wallet, 'signTransaction'> = f.payer,
  change: Record<string, unknown> = {},
): Promise<string> {
  return wallet.signTransaction({
    type: 0,
    to: tx.to,
    data: tx.data,
    value: BigInt(tx.value),
    nonce: Number(BigInt(tx.nonce)),
    gasLimit: BigInt(tx.gas),
    gasPrice: BigInt(tx.gasPrice),
    chainId: BigInt(tx.chainId),
    ...change,
  });
}

const nonceOf = async (address: string) =>
  Number(BigInt(await f.provider.send('eth_getTransactionCount', [address, 'pending'])));

describe('approvals on EVM', () => {
  it('builds the section 2.7 transaction and wallet action, broadcasts the signed one, and reports it confirmed', async () => {
    const { status, body } = await build();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      network: 'eth',
      token: 'USDT',
      amount: '250',
      spender: getAddress(f.contracts.payoutRouter),
      source: getAddress(f.payer.address),
    });
    const tx = body.transaction;
    expect(Object.keys(tx).sort()).toEqual([
      'chainId',
      'data',
      'from',
      'gas',
      'gasPrice',
      'nonce',
      'to',
      'value',
    ]);
    for (const v of Object.values(tx)) expect(v).toMatch(/^0x[0-9a-fA-F]*$/);
    expect(tx.data).toBe(encodeApprove(f.contracts.payoutRouter, 250_000_000n));
    expect(body.wallet_action).toEqual({
      method: 'eth_sendTransaction',
      params: [{ from: tx.from, to: tx.to, data: tx.data, value: tx.value }],
      chain_id: tx.chainId,
    });
    const signed = await sign(tx);
    const sent = await f.call('/v1/payouts/approval/broadcast', {
      network: 'eth',
      token: 'USDT',
      amount: '250',
      signed_transaction: signed,
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ network: 'eth', token: 'USDT', tx_hash: Transaction.from(signed).hash });
    await f.provider.waitForTransaction(sent.body.tx_hash);
    const state = await f.call('/v1/payouts/approval/status', {
      network: 'eth',
      token: 'USDT',
      tx_hash: sent.body.tx_hash,
    });
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({
      status: 'confirmed',
      allowance: '250',
      spender: getAddress(f.contracts.payoutRouter),
    });
    expect(typeof state.body.block).toBe('number');
    // The payout that was refused for allowance goes through now.
    const payout = await f.call('/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount: '10',
      recipient: Wallet.createRandom().address,
    });
    expect(payout.status).toBe(200);
  });

  it('approves the batch router with batch: true', async () => {
    const { body } = await build({ batch: true, amount: '7' });
    expect(body.spender).toBe(getAddress(f.contracts.batchPayoutRouter));
    const sent = await f.call('/v1/payouts/approval/broadcast', {
      network: 'eth',
      token: 'USDT',
      amount: '7',
      batch: true,
      signed_transaction: await sign(body.transaction),
    });
    await f.provider.waitForTransaction(sent.body.tx_hash);
    const state = await f.call('/v1/payouts/approval/status', {
      network: 'eth',
      token: 'USDT',
      batch: true,
      tx_hash: sent.body.tx_hash,
    });
    expect(state.body).toMatchObject({ status: 'confirmed', allowance: '7' });
    // The same hash is not an approval of the single router.
    const other = await f.call('/v1/payouts/approval/status', {
      network: 'eth',
      token: 'USDT',
      tx_hash: sent.body.tx_hash,
    });
    expect(other.status).toBe(400);
  });

  it('refuses anything but the built approval, and never broadcasts it', async () => {
    const { body } = await build({ amount: '1' });
    const tx = body.transaction;
    const stranger = Wallet.createRandom().connect(f.provider);
    const cases: [string, string, number][] = [
      [
        'another amount',
        await sign(tx, f.payer, { data: encodeApprove(f.contracts.payoutRouter, 2_000_000n) }),
        400,
      ],
      [
        'another spender',
        await sign(tx, f.payer, { data: encodeApprove(stranger.address, 1_000_000n) }),
        400,
      ],
      ['another token', await sign(tx, f.payer, { to: f.contracts.tokens.USDC!.address }), 400],
      ['another chain', await sign(tx, f.payer, { chainId: 1n }), 400],
      ['value sent along', await sign(tx, f.payer, { value: 1n }), 400],
      ['not an approve', await sign(tx, f.payer, { data: '0x' }), 400],
      ['another key', await sign(tx, stranger), 403],
    ];
    const before = await nonceOf(f.payer.address);
    for (const [what, signed, code] of cases) {
      const res = await f.call('/v1/payouts/approval/broadcast', {
        network: 'eth',
        token: 'USDT',
        amount: '1',
        signed_transaction: signed,
      });
      expect(res.status, what).toBe(code);
      expect(res.body.error.code, what).toBe(code === 403 ? 'forbidden' : 'validation');
      expect(await f.provider.getTransaction(Transaction.from(signed).hash!), what).toBeNull();
    }
    expect(await nonceOf(f.payer.address)).toBe(before);
    const unsigned = Transaction.from({
      type: 0,
      to: tx.to,
      data: tx.data,
      gasPrice: tx.gasPrice,
      chainId: tx.chainId,
      gasLimit: tx.gas,
      nonce: Number(BigInt(tx.nonce)),
    }).unsignedSerialized;
    const res = await f.call('/v1/payouts/approval/broadcast', {
      network: 'eth',
      token: 'USDT',
      amount: '1',
      signed_transaction: unsigned,
    });
    expect(res.status).toBe(400);
  });

  it('refuses the built call in any other shape: EIP-7702 authorization list, access list, EIP-1559, another nonce or gas field', async () => {
    const { body } = await build({ amount: '3' });
    const tx = body.transaction;
    const other = Wallet.createRandom();
    // The other account authorizes delegating its code to a contract; the payout wallet signs the
    // built approve around it. Broadcast, the other account would get that contract's code.
    const authorization = other.authorizeSync({
      address: f.contracts.payoutRouter,
      nonce: 0,
      chainId: BigInt(tx.chainId),
    });
    const typed = (type: number, extra: Record<string, unknown> = {}) =>
      sign(tx, f.payer, {
        type,
        gasPrice: undefined,
        maxFeePerGas: BigInt(tx.gasPrice),
        maxPriorityFeePerGas: BigInt(tx.gasPrice),
        ...extra,
      });
    const accessList = [{ address: f.contracts.payoutRouter, storageKeys: [`0x${'00'.repeat(32)}`] }];
    const cases: [string, string, RegExp][] = [
      [
        'EIP-7702 with an authorization list',
        await typed(4, { authorizationList: [authorization] }),
        /type 4/,
      ],
      ['EIP-2930 with an access list', await sign(tx, f.payer, { type: 1, accessList }), /type 1/],
      ['EIP-1559 with an access list', await typed(2, { accessList }), /type 2/],
      ['EIP-1559 as is', await typed(2), /type 2/],
      ['another nonce', await sign(tx, f.payer, { nonce: Number(BigInt(tx.nonce)) + 1 }), /nonce/],
      ['another gas limit', await sign(tx, f.payer, { gasLimit: BigInt(tx.gas) + 1n }), /gas limit/],
      ['another gas price', await sign(tx, f.payer, { gasPrice: BigInt(tx.gasPrice) * 10n }), /gas price/],
    ];
    const before = await nonceOf(f.payer.address);
    for (const [what, signed, reason] of cases) {
      const res = await f.call('/v1/payouts/approval/broadcast', {
        network: 'eth',
        token: 'USDT',
        amount: '3',
        signed_transaction: signed,
      });
      expect(res.status, what).toBe(400);
      expect(res.body.error.code, what).toBe('validation');
      expect(res.body.error.message, what).toMatch(/^not the approval that was built: /);
      expect(res.body.error.message, what).toMatch(reason);
      expect(await f.provider.getTransaction(Transaction.from(signed).hash!), what).toBeNull();
    }
    expect(await nonceOf(f.payer.address)).toBe(before);
    expect(await f.provider.getCode(other.address)).toBe('0x');
    // The built one itself still goes through.
    const sent = await f.call('/v1/payouts/approval/broadcast', {
      network: 'eth',
      token: 'USDT',
      amount: '3',
      signed_transaction: await sign(tx),
    });
    expect(sent.status).toBe(200);
    await f.provider.waitForTransaction(sent.body.tx_hash);
  });

  it('refuses a signed approval that no build of this merchant produced', async () => {
    const { body } = await build({ amount: '4' });
    const tx = body.transaction;
    // The same approve for an amount never built: its calldata is consistent, nothing was built for it.
    const res = await f.call('/v1/payouts/approval/broadcast', {
      network: 'eth',
      token: 'USDT',
      amount: '5',
      signed_transaction: await sign(tx, f.payer, {
        data: encodeApprove(f.contracts.payoutRouter, 5_000_000n),
      }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation',
      message: 'no approval was built for these parameters; build it first and sign it as it is',
    });
  });

  it('refuses a build older than its broadcast window as expired, and never broadcasts it', async () => {
    const { body } = await build({ amount: '6' });
    const signed = await sign(body.transaction);
    const before = await nonceOf(f.payer.address);
    await f.t.app
      .fork()
      .execute(
        `update approval_builds set created_at = created_at - interval '${APPROVAL_BUILD_TTL_DAYS} days 1 minute' where amount_raw = ?`,
        ['6000000'],
      );
    const res = await f.call('/v1/payouts/approval/broadcast', {
      network: 'eth',
      token: 'USDT',
      amount: '6',
      signed_transaction: signed,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation',
      message: `the approval build expired: it can be broadcast for ${APPROVAL_BUILD_TTL_DAYS} days; build it again and sign the new one`,
    });
    expect(await nonceOf(f.payer.address)).toBe(before);
  });

  it('reports not_found for an unknown hash and refuses a transaction that is not this approval', async () => {
    const unknown = await f.call('/v1/payouts/approval/status', {
      network: 'eth',
      token: 'USDT',
      tx_hash: `0x${'12'.repeat(32)}`,
    });
    expect(unknown.body).toMatchObject({ status: 'not_found' });
    const plain = await f.deployer.sendTransaction({ to: f.deployer.address, value: 0n });
    await plain.wait();
    const refused = await f.call('/v1/payouts/approval/status', {
      network: 'eth',
      token: 'USDT',
      tx_hash: plain.hash,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('validation');
  });

  it.each([
    ['/v1/payouts/approval', { amount: '0' }, 'validation'],
    ['/v1/payouts/approval', { amount: '1.0000001' }, 'validation'],
    ['/v1/payouts/approval', { network: 'nope' }, 'unsupported'],
    ['/v1/payouts/approval', { token: 'XYZ' }, 'unsupported'],
    ['/v1/payouts/approval', { network: 'bare' }, 'unsupported'],
    ['/v1/payouts/approval/broadcast', {}, 'validation'],
    ['/v1/payouts/approval/broadcast', { signed_transaction: '0xzz' }, 'validation'],
    ['/v1/payouts/approval/status', {}, 'validation'],
    ['/v1/payouts/approval/status', { tx_hash: '0x12' }, 'validation'],
  ])('%s %j → %s', async (path, patch, code) => {
    const res = await f.call(path, { network: 'eth', token: 'USDT', amount: '1', ...patch });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
  });
});
