import { Interface } from 'ethers';
import type { ChainClients } from '../../chains/clients.ts';
import { abi } from '../../chains/contracts.ts';
import type { EvmClient } from '../../chains/evm/index.ts';
import type { NetworkConfig, TokenConfig } from '../../chains/networks.ts';
import type { NetworkRegistry } from '../../chains/registry.ts';
import { AppError, unsupported } from '../../errors.ts';

/** The router's ABI: `pay(...)` calldata and the `Payment` event the listener follows. */
export const PAYMENT_ROUTER = new Interface(abi('PaymentRouter'));
export const PAYMENT_TOPIC = PAYMENT_ROUTER.getEvent('Payment')!.topicHash;

/** A network deposit sessions can run on: EVM with a payment router. */
export type SessionNetwork = NetworkConfig & { contracts: { paymentRouter: string } };

/** The chains as the session module sees them: the networks with a payment router, and their clients. */
export class SessionChains {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly clients: ChainClients,
  ) {}

  /** Networks with a payment router, in configuration order. */
  sessionNetworks(): SessionNetwork[] {
    return this.networks.list().filter(isSessionNetwork);
  }

  /** The network, or `unsupported` when it is unknown or cannot run sessions. */
  network(id: string): SessionNetwork {
    const network = this.networks.get(id);
    if (!network) throw unsupported(`network: unknown network ${id}`);
    if (!isSessionNetwork(network))
      throw unsupported(`network: ${id} has no payment router; sessions need one`);
    return network;
  }

  token(network: SessionNetwork, symbol: string): TokenConfig {
    const token = network.tokens.find((t) => t.symbol === symbol);
    if (!token) throw unsupported(`token: ${symbol} is not available on ${network.id}`);
    return token;
  }

  client(network: SessionNetwork): EvmClient {
    return this.clients.evm(network);
  }

  /** Balances of `owner` for every listed token; null where the read failed (not an ERC-20 here). */
  async balances(network: SessionNetwork, tokens: TokenConfig[], owner: string): Promise<(bigint | null)[]> {
    const results = await this.client(network).read(
      tokens.map((t) => ({ kind: 'balanceOf' as const, token: t.address, owner })),
    );
    return results.map((r) => (r.ok ? r.value : null));
  }

  /** Balance and allowance to the router of one token, read together. */
  async balanceAndAllowance(network: SessionNetwork, token: TokenConfig, owner: string) {
    const [balance, allowance] = await this.client(network).read([
      { kind: 'balanceOf', token: token.address, owner },
      { kind: 'allowance', token: token.address, owner, spender: network.contracts.paymentRouter },
    ]);
    if (!balance?.ok)
      throw new AppError('unavailable', `token ${token.symbol}: balance not readable: ${balance?.error}`);
    return { balance: balance.value, allowance: allowance?.ok ? allowance.value : null };
  }
}

function isSessionNetwork(network: NetworkConfig): network is SessionNetwork {
  return network.kind === 'evm' && Boolean(network.contracts.paymentRouter);
}

/** `chain_id` of a wallet action: hex, as EIP-3326 `wallet_switchEthereumChain` wants it. */
export const chainIdHex = (chainId: number) => `0x${chainId.toString(16)}`;
