import { Transaction, type TransactionRequest, Wallet } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeApprove } from '../../src/chains/evm/abi.ts';
import { createEvmClient, type EvmClient } from '../../src/chains/evm/client.ts';
import type { LegacyTx, UnsignedTx } from '../../src/chains/evm/tx-build.ts';
import { decodeSignedTransaction } from '../../src/chains/evm/tx-decode.ts';
import { AppError } from '../../src/errors.ts';
import {
  deployRuntime,
  deployTokens,
  freshAddress,
  fundedWallet,
  networkOf,
  REVERTER_RUNTIME,
  type TestChain,
  type Tokens,
  testChain,
} from './support/chain.ts';

let chain: TestChain;
let client: EvmClient;
let tokens: Tokens;
let reverter: string;

beforeAll(async () => {
  chain = await testChain();
  client = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl]) });
  const deployer = await fundedWallet(chain.provider);
  tokens = await deployTokens(deployer);
  reverter = await deployRuntime(deployer, REVERTER_RUNTIME);
});

/** What a wallet does with the built object: `gas` is the wallet-API name of ethers' `gasLimit`. */
function signable(tx: UnsignedTx): TransactionRequest {
  const { gas, nonce, ...rest } = tx;
  return { ...rest, gasLimit: gas, nonce: Number(nonce), type: 'type' in tx ? 2 : 0 };
}

/**
 * The state of a just-broadcast transaction once it is mined. Automine mines right after
 * `eth_sendRawTransaction` answers, not before, so a read straight after may still see it pending.
 */
async function minedState(hash: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await client.getTxState(hash);
    if (state.status !== 'pending' || Date.now() > deadline) return state;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('transactions', () => {
  it('builds a legacy approve a wallet can sign, which decodes, broadcasts and mines', async () => {
    const owner = await fundedWallet(chain.provider);
    const spender = freshAddress();
    const tx: LegacyTx = await client.buildApprove({
      token: tokens.addresses.usdt,
      owner: owner.address,
      spender,
      amount: 5_000_000n,
    });

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
    for (const value of Object.values(tx)) expect(value).toMatch(/^0x[0-9a-fA-F]*$/);
    expect(tx).toMatchObject({
      from: owner.address,
      to: tokens.addresses.usdt,
      value: '0x0',
      nonce: '0x0',
      chainId: '0x7a69',
    });
    expect(tx.data).toBe(encodeApprove(spender, 5_000_000n));
    const estimate = await chain.provider.estimateGas({ from: owner.address, to: tx.to, data: tx.data });
    expect(BigInt(tx.gas)).toBeGreaterThan(estimate);
    expect(BigInt(tx.gasPrice)).toBeGreaterThanOrEqual((await chain.provider.getFeeData()).gasPrice!);

    const raw = await owner.signTransaction(signable(tx));
    const decoded = decodeSignedTransaction(raw);
    expect(decoded).toMatchObject({
      from: owner.address,
      to: tokens.addresses.usdt,
      chainId: 31337,
      nonce: 0,
      type: 0,
      value: 0n,
      gasLimit: BigInt(tx.gas),
      gasPrice: BigInt(tx.gasPrice),
      approve: { spender, amount: 5_000_000n },
    });

    const hash = await client.broadcast(raw);
    expect(hash).toBe(decoded.hash);
    expect(await minedState(hash)).toMatchObject({ status: 'confirmed', confirmations: 1 });
    const [allowance] = await client.read([
      { kind: 'allowance', token: tokens.addresses.usdt, owner: owner.address, spender },
    ]);
    expect(allowance).toEqual({ ok: true, value: 5_000_000n });

    // The next build takes the next nonce.
    const next = await client.buildApprove({
      token: tokens.addresses.usdt,
      owner: owner.address,
      spender,
      amount: 0n,
    });
    expect(next.nonce).toBe('0x1');
  });

  it('builds EIP-1559 transactions where the chain has a base fee', async () => {
    const sender = await fundedWallet(chain.provider);
    const to = freshAddress();
    const tx = await client.buildTransaction({ from: sender.address, to, value: 12345n });
    expect(tx).toMatchObject({ type: '0x2', value: '0x3039', gas: '0x668a' }); // 21000 + 25%
    if (!('type' in tx)) throw new Error('expected an EIP-1559 build');
    expect(BigInt(tx.maxFeePerGas)).toBeGreaterThanOrEqual(BigInt(tx.maxPriorityFeePerGas));
    const hash = await client.broadcast(await sender.signTransaction(signable(tx)));
    expect((await minedState(hash)).status).toBe('confirmed');
    expect(await chain.provider.getBalance(to)).toBe(12345n);
    expect(decodeSignedTransaction(await sender.signTransaction(signable(tx))).approve).toBeNull();
  });

  it('refuses to build a transaction that would revert', async () => {
    const sender = await fundedWallet(chain.provider);
    const error = await rejection(
      client.buildTransaction({ from: sender.address, to: reverter, data: '0x12345678' }, 'legacy'),
    );
    expect(error.code).toBe('validation');
    expect(error.message).toMatch(/would revert/);
    expect((await rejection(client.buildTransaction({ from: 'nope', to: reverter }))).code).toBe(
      'validation',
    );
  });

  it('decodes only well-formed signed transactions, and approve only when it is exactly one', async () => {
    for (const bad of ['', '0x', 'zz', '0x1234', `0x${'00'.repeat(100)}`]) {
      expect(() => decodeSignedTransaction(bad), bad).toThrow(AppError);
    }
    const unsigned = Transaction.from({
      to: freshAddress(),
      nonce: 0,
      gasLimit: 21000n,
      gasPrice: 1n,
      chainId: 31337n,
    });
    expect(() => decodeSignedTransaction(unsigned.unsignedSerialized)).toThrow(/not signed/);

    const wallet = Wallet.createRandom();
    const spender = freshAddress();
    const base = {
      to: tokens.addresses.dai,
      nonce: 7,
      gasLimit: 60_000n,
      gasPrice: 10n,
      chainId: 31337n,
      type: 0,
    };
    const exact = decodeSignedTransaction(
      await wallet.signTransaction({ ...base, data: encodeApprove(spender, 1n) }),
    );
    expect(exact).toMatchObject({ from: wallet.address, nonce: 7, approve: { spender, amount: 1n } });
    const padded = decodeSignedTransaction(
      await wallet.signTransaction({ ...base, data: `${encodeApprove(spender, 1n)}00` }),
    );
    expect(padded.approve).toBeNull();
    const legacyNoChain = decodeSignedTransaction(await wallet.signTransaction({ ...base, chainId: 0n }));
    expect(legacyNoChain.chainId).toBe(0);
  });

  it('maps node rejections of a broadcast to validation errors', async () => {
    const poor = new Wallet(Wallet.createRandom().privateKey);
    const tx = {
      to: freshAddress(),
      nonce: 0,
      gasLimit: 21_000n,
      gasPrice: 10_000_000_000n,
      chainId: 31337n,
      type: 0,
    };
    const broke = await rejection(client.broadcast(await poor.signTransaction(tx)));
    expect(broke).toMatchObject({ code: 'validation' });
    expect(broke.message).toMatch(/insufficient funds/);

    const sender = await fundedWallet(chain.provider);
    const first = await sender.signTransaction({ ...tx, value: 1n });
    const hash = await client.broadcast(first);
    // Same bytes again after it was mined: the broadcast is idempotent and returns the same hash.
    expect(await client.broadcast(first)).toBe(hash);
    const reused = await rejection(client.broadcast(await sender.signTransaction({ ...tx, value: 2n })));
    expect(reused.code).toBe('validation');
    expect(reused.message).toMatch(/nonce too low/);

    const lowGas = await rejection(
      client.broadcast(await sender.signTransaction({ ...tx, nonce: 1, gasLimit: 20_000n })),
    );
    expect(lowGas.message).toMatch(/gas/i);
    const otherChain = await rejection(
      client.broadcast(await sender.signTransaction({ ...tx, nonce: 1, chainId: 1n })),
    );
    expect(otherChain.message).toMatch(/signed for chain 1, this network is chain 31337/);
    const replayable = await rejection(
      client.broadcast(await sender.signTransaction({ ...tx, nonce: 1, chainId: 0n })),
    );
    expect(replayable.message).toMatch(/without a chain id/);

    expect((await rejection(client.broadcast('0xdeadbeef'))).code).toBe('validation');
  });

  it('returns unavailable when no node can take the broadcast', async () => {
    const down = createEvmClient({
      network: networkOf(chain.node, ['http://127.0.0.1:1']),
      rpc: { retries: 0 },
    });
    const wallet = Wallet.createRandom();
    const raw = await wallet.signTransaction({
      to: freshAddress(),
      nonce: 0,
      gasLimit: 21_000n,
      gasPrice: 1n,
      chainId: 31337n,
    });
    expect((await rejection(down.broadcast(raw))).code).toBe('unavailable');
    expect(
      (
        await rejection(
          down.buildApprove({
            token: tokens.addresses.dai,
            owner: wallet.address,
            spender: wallet.address,
            amount: 1n,
          }),
        )
      ).code,
    ).toBe('unavailable');
  });
});
