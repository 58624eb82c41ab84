import { type Contract, JsonRpcProvider, parseUnits, Wallet } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../../src/devstack/deploy.ts';
import { workerAnvil } from '../support/anvil.ts';
import { freshAddress, fundedWallet, testChain } from './helpers.ts';

let provider: JsonRpcProvider;
let deployed: DevContracts;
let fundedPlayers: string[];
const feeWallet = freshAddress();

beforeAll(async () => {
  ({ provider } = await testChain());
  // Deploy through a provider with ethers' default 250 ms request cache, as the devstack will: back-to-back
  // transactions from one signer must still get fresh nonces.
  const defaultProvider = new JsonRpcProvider((await workerAnvil()).rpcUrl);
  const deployer = new Wallet((await fundedWallet(provider)).privateKey, defaultProvider);
  deployed = await deployDevContracts(deployer, {
    tokens: DEFAULT_DEV_TOKENS.map((t) => (t.symbol === 'USDT' ? { ...t, depositFee: '0.5' } : t)),
    feeWallet,
  });
  fundedPlayers = [freshAddress(), freshAddress()];
  await fundPlayers(deployer, deployed.tokens, fundedPlayers, '1000');
  defaultProvider.destroy();
});

describe('deployDevContracts / fundPlayers', () => {
  it('deploys every contract with code and the D10 token set', async () => {
    for (const address of [
      deployed.multicall3,
      deployed.paymentRouter,
      deployed.payoutRouter,
      deployed.batchPayoutRouter,
      deployed.forwarderFactory,
      deployed.forwarderImplementation,
      ...Object.values(deployed.tokens).map((t) => t.address),
    ]) {
      expect(await provider.getCode(address), address).not.toBe('0x');
    }
    expect(Object.keys(deployed.tokens)).toEqual(['USDT', 'USDC', 'DAI']);
    for (const [symbol, t] of Object.entries(deployed.tokens)) {
      const token = contractAt('TestToken', t.address, provider);
      expect(await token.getFunction('symbol')()).toBe(symbol);
      expect(await token.getFunction('decimals')()).toBe(BigInt(t.decimals));
    }
    expect(deployed.tokens.USDT!.tether).toBe(true);
    expect(
      await contractAt('TetherToken', deployed.tokens.USDT!.address, provider).getFunction('isBlackListed')(
        feeWallet,
      ),
    ).toBe(false);
    const factory = contractAt('ForwarderFactory', deployed.forwarderFactory, provider);
    expect(await factory.getFunction('feeWallet')()).toBe(feeWallet);
    expect(await factory.getFunction('fee')(deployed.tokens.USDT!.address)).toBe(500_000n);
    expect(await factory.getFunction('fee')(deployed.tokens.DAI!.address)).toBe(0n);
  });

  it('funds every player with every token', async () => {
    for (const t of Object.values(deployed.tokens)) {
      const token: Contract = contractAt('TestToken', t.address, provider);
      for (const p of fundedPlayers) {
        expect(await token.getFunction('balanceOf')(p)).toBe(parseUnits('1000', t.decimals));
      }
    }
  });
});
