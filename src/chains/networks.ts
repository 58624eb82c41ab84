import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../config.ts';
import { compareDecimal, isDecimalString, parseUnits } from '../money.ts';

/**
 * The network file: every chain the service talks to, its RPC endpoints, confirmation tiers, tokens
 * and contract addresses. Parsed once at startup; a bad file stops the process with a message that
 * names the offending entry.
 */

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex characters');
const decimal = z.string().refine(isDecimalString, 'must be a decimal string such as "1000" or "0.5"');

export const confirmationTierSchema = z.object({
  /** Deposits strictly below this whole-unit amount use this tier; the last tier has no bound. */
  below: decimal.optional(),
  blocks: z.number().int().min(0).max(10_000),
});

export const tokenSchema = z.object({
  symbol: z.string().regex(/^[A-Za-z0-9.]{1,16}$/),
  /** Token contract; on `tron` the 0x form of the TRC-20 contract address. */
  address: evmAddress,
  decimals: z.number().int().min(0).max(36),
  /** Fixed fee per standing-address deposit, whole units (D8). */
  depositFee: decimal.default('0'),
  /**
   * A standing address is swept once its credited, unswept balance of this token reaches this many
   * whole units (so a sweep is worth its gas). Default 0: every credited deposit is swept.
   */
  sweepMinimum: decimal.default('0'),
});

export const networkSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'lowercase letters, digits, - or _'),
    kind: z.enum(['evm', 'tron']),
    /** EVM chain id; on `tron` the value the TVM returns for `block.chainid`. */
    chainId: z.number().int().positive(),
    /** Tried in order; a failing endpoint is skipped until it recovers. */
    rpcUrls: z.array(z.url()).min(1),
    /** Amount tiers, smallest bound first; the last must have no `below`. */
    confirmations: z
      .array(confirmationTierSchema)
      .min(1)
      .default([{ below: '1000', blocks: 3 }, { below: '10000', blocks: 12 }, { blocks: 30 }]),
    tokens: z.array(tokenSchema).default([]),
    contracts: z
      .object({
        paymentRouter: evmAddress.optional(),
        payoutRouter: evmAddress.optional(),
        batchPayoutRouter: evmAddress.optional(),
        forwarderFactory: evmAddress.optional(),
        /** The factory's DepositForwarder implementation (its `implementation()`); needed with the factory. */
        forwarderImplementation: evmAddress.optional(),
        multicall3: evmAddress.optional(),
      })
      .default({}),
    /**
     * The CREATE2 rule of the chain, the first byte hashed with deployer, salt and code hash: `0xff` on
     * EVM chains, `0x41` on the TVM. Default by kind; the development Tron chain (anvil behind the
     * facade) runs the EVM rule and says so here.
     */
    create2Prefix: z.enum(['0xff', '0x41']).optional(),
    /** Where standing-address sweep fees go (D8). */
    feeWallet: evmAddress.optional(),
    /** Private key of the relayer hot wallet that pays gas for payouts and sweeps (D7). */
    relayerPrivateKey: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .optional(),
    /** How the relayer submits (payouts, batches, sweeps); every field has a default. */
    relay: z
      .object({
        /** A transaction not mined after this long is replaced with higher fees (EVM). Default 60. */
        replaceAfterSeconds: z.number().int().min(1).max(86_400).optional(),
        /** Fee bump per replacement, percent; nodes want at least 10. Default 15. */
        bumpPercent: z.number().int().min(10).max(300).optional(),
        /** Ceiling of the fee per gas (gwei, decimal): bumping stops there and says so. Default none. */
        maxFeePerGasGwei: decimal.optional(),
        /**
         * Tron: the most a relay may burn, sun. A relay's fee limit is its estimated energy priced with a
         * margin, capped here. Default: the chain's `getMaxFeeLimit` (15 000 TRX on mainnet).
         */
        feeLimitSun: z.number().int().positive().optional(),
      })
      .default({}),
    /** How often the chain follower polls for new blocks. */
    pollIntervalMs: z.number().int().min(50).default(2_000),
    /**
     * EVM: the service's own finality. A block is final only once it is at least this many blocks
     * behind the head *and* at or below the node's `finalized` block (where the node serves one): the
     * more conservative of the two, always, so a node that answers `finalized` with its latest block
     * (Hardhat, some providers and chains) is never taken at its word. Default per known chain
     * ({@link FINALITY_DEPTHS}), else {@link DEFAULT_FINALITY_DEPTH}. Unused on `tron` (solidified blocks).
     */
    finalityDepth: z.number().int().min(1).max(100_000).optional(),
  })
  .superRefine((network, ctx) => {
    const tiers = network.confirmations;
    tiers.forEach((tier, i) => {
      const last = i === tiers.length - 1;
      if (last !== (tier.below === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['confirmations', i],
          message: last ? 'the last tier must have no "below"' : 'every tier but the last needs "below"',
        });
      }
      const prev = tiers[i - 1]?.below;
      if (prev !== undefined && tier.below !== undefined && compareDecimal(prev, tier.below) >= 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['confirmations', i],
          message: 'tiers must be in ascending order',
        });
      }
    });
    if (network.contracts.forwarderFactory && !network.contracts.forwarderImplementation) {
      ctx.addIssue({
        code: 'custom',
        path: ['contracts', 'forwarderImplementation'],
        message: 'required with forwarderFactory (the factory’s implementation())',
      });
    }
    const symbols = new Set<string>();
    network.tokens.forEach((token, i) => {
      if (symbols.has(token.symbol)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', i, 'symbol'],
          message: `duplicate token ${token.symbol}`,
        });
      }
      symbols.add(token.symbol);
      for (const field of ['depositFee', 'sweepMinimum'] as const) {
        try {
          parseUnits(token[field], token.decimals);
        } catch {
          ctx.addIssue({ code: 'custom', path: ['tokens', i, field], message: 'too many fractional digits' });
        }
      }
    });
  })
  .transform((network) => ({
    ...network,
    finalityDepth: network.finalityDepth ?? defaultFinalityDepth(network.chainId),
  }));

/**
 * `finalityDepth` by chain id where the network file gives none: a depth behind which that chain's
 * blocks are not known to be replaced in practice, whatever its nodes say about finality.
 */
export const FINALITY_DEPTHS: Readonly<Record<number, number>> = {
  // Ethereum and its testnets (Sepolia, Holesky, Hoodi): two epochs, what `finalized` trails by.
  1: 64,
  11155111: 64,
  17000: 64,
  560048: 64,
  // BNB Smart Chain and its testnet: fast finality trails by 2-3 blocks; 15 is the usual margin.
  56: 15,
  97: 15,
  // Polygon PoS and Amoy: history of deep reorganisations before milestones.
  137: 256,
  80002: 256,
  // Rollups (OP Mainnet, Base, Arbitrum One and their testnets): their `finalized` follows L1
  // finality and is far deeper; the depth only guards against a node that answers its latest block.
  10: 64,
  8453: 64,
  42161: 64,
  11155420: 64,
  84532: 64,
  421614: 64,
  // Avalanche C-Chain and Fuji: final at acceptance, which nodes answer as `finalized` = latest.
  43114: 12,
  43113: 12,
};
/** `finalityDepth` of a chain that is not in {@link FINALITY_DEPTHS} (anvil's own lag of two epochs). */
export const DEFAULT_FINALITY_DEPTH = 64;

/** The finality depth a network runs when its entry gives none. */
export const defaultFinalityDepth = (chainId: number): number =>
  FINALITY_DEPTHS[chainId] ?? DEFAULT_FINALITY_DEPTH;

/** Blocks the deepest confirmation tier waits for: the reorg window of the network's follower covers them. */
export const deepestTier = (network: Pick<NetworkConfig, 'confirmations'>): number =>
  Math.max(...network.confirmations.map((t) => t.blocks));

export const networkFileSchema = z
  .object({ networks: z.array(networkSchema).min(1) })
  .superRefine((file, ctx) => {
    const ids = new Set<string>();
    file.networks.forEach((n, i) => {
      if (ids.has(n.id))
        ctx.addIssue({ code: 'custom', path: ['networks', i, 'id'], message: `duplicate ${n.id}` });
      ids.add(n.id);
    });
  });

export type ConfirmationTier = z.infer<typeof confirmationTierSchema>;
export type TokenConfig = z.infer<typeof tokenSchema>;
export type NetworkConfig = z.infer<typeof networkSchema>;
export type NetworkFile = z.infer<typeof networkFileSchema>;

/** The CREATE2 prefix a network runs: its setting, else its kind's (`0xff` EVM, `0x41` TVM). */
export const create2PrefixOf = (network: Pick<NetworkConfig, 'kind' | 'create2Prefix'>): '0xff' | '0x41' =>
  network.create2Prefix ?? (network.kind === 'tron' ? '0x41' : '0xff');

/** Parses and validates a network file's JSON; errors name the path of every bad entry. */
export function parseNetworkFile(json: unknown, source = 'network file'): NetworkFile {
  const result = networkFileSchema.safeParse(json);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`Invalid ${source}:\n${lines.join('\n')}`);
  }
  return result.data;
}

export function loadNetworkFile(file: string): NetworkFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read network file ${file}: ${(error as Error).message}`);
  }
  return parseNetworkFile(json, `network file ${file}`);
}

/** Blocks a deposit of `amount` (whole units) must wait for on this network. */
export function confirmationsFor(network: Pick<NetworkConfig, 'confirmations'>, amount: string): number {
  for (const tier of network.confirmations) {
    if (tier.below === undefined || compareDecimal(amount, tier.below) < 0) return tier.blocks;
  }
  return network.confirmations.at(-1)!.blocks;
}

/** Looks a token up by symbol (case-sensitive, as configured). */
export function findToken(network: NetworkConfig, symbol: string): TokenConfig | undefined {
  return network.tokens.find((t) => t.symbol === symbol);
}
