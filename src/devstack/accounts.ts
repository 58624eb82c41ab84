import { HDNodeWallet, Mnemonic } from 'ethers';

/**
 * Development keys of the embedded stack: anvil's well-known test mnemonic, so every fresh chain
 * funds them with native coin. Never use them anywhere real.
 */
const MNEMONIC = 'test test test test test test test test test test test junk';

function account(index: number): { address: string; privateKey: string } {
  const wallet = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(MNEMONIC), `m/44'/60'/0'/0/${index}`);
  return { address: wallet.address, privateKey: wallet.privateKey };
}

export const DEV_ACCOUNTS = {
  /** Deploys contracts and mints test tokens. */
  deployer: account(0),
  /** The demo merchant's settlement wallet, which is also its EVM payout wallet. */
  merchant: account(1),
  /** The demo merchant's separate Tron payout wallet (D10). */
  tronPayout: account(2),
  /** Receives standing-address sweep fees. */
  feeWallet: account(3),
  /** Relayer hot wallet paying gas for payouts and sweeps (D7). */
  relayer: account(4),
  /** Funded demo players. */
  players: [account(5), account(6), account(7)],
};
