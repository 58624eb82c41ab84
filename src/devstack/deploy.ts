/**
 * Deploys the gateway's contracts and test tokens to a development chain and funds players.
 * Chain-agnostic: it only needs an ethers Signer on an EVM JSON-RPC chain (anvil for `eth`/`bsc`, and the
 * anvil chain underneath the Tron facade).
 */
import { parseUnits, type Signer } from 'ethers';
import { contractAt, deployContract, pendingNonce } from '../chains/contracts.ts';
import { deployGateway, evmDeployTarget } from '../chains/deploy.ts';

/** A test token to deploy. */
export interface DevTokenSpec {
  symbol: string;
  decimals: number;
  /** Deploy the USDT-like TetherToken (no bool returns, blacklist, owner-only mint) instead of TestToken. */
  tether?: boolean;
  /** ERC-20 name; defaults to a well-known name for USDT/USDC/DAI, else `Test <symbol>`. */
  name?: string;
  /** Deposit-forwarder fee per sweep in whole token units (D8), set on the ForwarderFactory. */
  depositFee?: string;
}

/** A deployed test token. */
export interface DevToken {
  symbol: string;
  address: string;
  decimals: number;
  tether: boolean;
}

/** Addresses of everything {@link deployDevContracts} deployed (checksummed). */
export interface DevContracts {
  tokens: Record<string, DevToken>;
  multicall3: string;
  paymentRouter: string;
  payoutRouter: string;
  batchPayoutRouter: string;
  forwarderFactory: string;
  /** The DepositForwarder implementation the factory clones. */
  forwarderImplementation: string;
}

/** Options of {@link deployDevContracts}. */
export interface DeployDevOptions {
  tokens: DevTokenSpec[];
  /** Receives deposit-forwarder fees. */
  feeWallet: string;
  /** Owner of the ForwarderFactory; defaults to the deploying signer. */
  factoryOwner?: string;
  /** Accounts allowed to sweep through the ForwarderFactory (the service's relayer wallet). */
  sweepers?: string[];
  /** The USDT-like tokens' `transfer` returns `false`, as USDT on Tron does (the dev Tron chain). */
  tronQuirks?: boolean;
  /** The chain's CREATE2 prefix, given to the ForwarderFactory (`0xff`; `0x41` on a real TVM). */
  create2Prefix?: '0xff' | '0x41';
}

/** Comfortably above a first mint to a fresh account on either test token (about 70k). */
const MINT_GAS_LIMIT = 200_000n;

/** D10's token set: USDT (USDT-like, 6 decimals), USDC (6), DAI (18). */
export const DEFAULT_DEV_TOKENS: readonly DevTokenSpec[] = [
  { symbol: 'USDT', decimals: 6, tether: true },
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'DAI', decimals: 18 },
];

const WELL_KNOWN_NAMES: Record<string, string> = {
  USDT: 'Tether USD',
  USDC: 'USD Coin',
  DAI: 'Dai Stablecoin',
};

/**
 * Deploys the tokens, Multicall3, PaymentRouter, PayoutRouter, BatchPayoutRouter and ForwarderFactory
 * from `signer`, one transaction after another (each waits to be mined), and returns the addresses.
 */
export async function deployDevContracts(signer: Signer, opts: DeployDevOptions): Promise<DevContracts> {
  const seen = new Set<string>();
  for (const t of opts.tokens) {
    if (seen.has(t.symbol)) throw new Error(`token ${t.symbol} listed twice`);
    seen.add(t.symbol);
  }
  const tokens: Record<string, DevToken> = {};
  for (const t of opts.tokens) {
    const name = t.name ?? WELL_KNOWN_NAMES[t.symbol] ?? `Test ${t.symbol}`;
    const { address } = await deployContract(signer, t.tether ? 'TetherToken' : 'TestToken', [
      name,
      t.symbol,
      t.decimals,
    ]);
    tokens[t.symbol] = { symbol: t.symbol, address, decimals: t.decimals, tether: t.tether ?? false };
  }
  const multicall3 = (await deployContract(signer, 'Multicall3')).address;
  if (opts.tronQuirks) {
    for (const t of opts.tokens.filter((t) => t.tether)) {
      const token = contractAt('TetherToken', tokens[t.symbol]!.address, signer);
      const nonce = await pendingNonce(signer);
      await (await token.getFunction('setTransferReturnsFalse')(true, { nonce })).wait();
    }
  }
  // The gateway's own contracts, as a real network gets them (src/chains/deploy.ts).
  const gateway = await deployGateway(await evmDeployTarget(signer), {
    feeWallet: opts.feeWallet,
    create2Prefix: opts.create2Prefix ?? '0xff',
    fees: opts.tokens
      .filter((t) => t.depositFee !== undefined)
      .map((t) => ({ token: tokens[t.symbol]!.address, raw: parseUnits(t.depositFee!, t.decimals) })),
    sweepers: opts.sweepers ?? [],
    ...(opts.factoryOwner ? { owner: opts.factoryOwner } : {}),
  });
  return { tokens, multicall3, ...gateway };
}

/**
 * Mints `amountWhole` (whole units, decimal string) of every token to every player. `signer` must be
 * allowed to mint: anyone for TestToken, the deployer (owner) for TetherToken.
 */
export async function fundPlayers(
  signer: Signer,
  tokens: Record<string, Pick<DevToken, 'address' | 'decimals'>> | Pick<DevToken, 'address' | 'decimals'>[],
  players: readonly string[],
  amountWhole: string,
): Promise<void> {
  const list = Array.isArray(tokens) ? tokens : Object.values(tokens);
  // Transactions are broadcast back to back with explicit nonces and awaited together, which is much
  // faster than a round trip per mint on a chain with a block time.
  let nonce = await pendingNonce(signer);
  const pending = [];
  for (const token of list) {
    const mint = contractAt('TestToken', token.address, signer).getFunction('mint');
    const amount = parseUnits(amountWhole, token.decimals);
    for (const player of players) {
      // A fixed gas limit: estimating a transaction whose nonce is still ahead of the chain is unreliable.
      pending.push(await mint(player, amount, { nonce: nonce++, gasLimit: MINT_GAS_LIMIT }));
    }
  }
  for (const tx of pending) {
    const receipt = await tx.wait();
    if (receipt?.status !== 1) throw new Error(`mint transaction ${tx.hash} failed`);
  }
}
