import { getAddressRemembered } from '../../chains/evm/util.ts';
import {
  type AnyPayoutTypedData,
  normalizeSignatureV,
  typedDataDigest,
} from '../../chains/payout-typed-data.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, validation } from '../../errors.ts';
import type { PayoutChains } from './payout.chain.ts';
import { signerOf } from './payout.signer-keys.ts';

/**
 * The wallet authorization of section 5.3, for single payouts and batches alike: the signature over
 * the order must recover to the payout wallet the order names, and that wallet must still be the
 * merchant's configured payout wallet of the network — never compared with anything in the request.
 * Returns the signature normalised (`v` 27/28, low `s`): what the router accepts. Malformed → 400;
 * another signer → 403.
 */
export async function checkOrderSignature(
  chains: PayoutChains,
  em: EntityManager,
  order: {
    merchantId: string;
    network: string;
    payer: string;
    typedData: AnyPayoutTypedData;
    /** The merchant's payout wallet columns, when the caller read them with the order (see `PayoutChains.walletOf`). */
    walletRead?: { settlementWallet?: string | null; tronPayoutWallet?: string | null };
  },
  given: string,
): Promise<string> {
  let signer: string;
  let signature: string;
  try {
    signature = normalizeSignatureV(given.startsWith('0x') ? given : `0x${given}`);
    // The payout wallet's key, once known, checks the signature without recovering it (payout.signer-keys.ts).
    signer = signerOf(typedDataDigest(order.typedData), signature, order.payer);
  } catch (error) {
    throw validation(`signature: not a valid 65-byte signature (${(error as Error).message})`);
  }
  if (getAddressRemembered(signer) !== getAddressRemembered(order.payer))
    throw new AppError(
      'forbidden',
      `signature: recovers to ${signer}, not to the payout wallet of this order`,
    );
  const network = chains.network(order.network);
  const { walletHex } = order.walletRead
    ? chains.walletOf(network, order.walletRead)
    : await chains.wallet(em, order.merchantId, network);
  if (getAddressRemembered(walletHex) !== getAddressRemembered(order.payer)) {
    throw new AppError(
      'forbidden',
      'the payout wallet of this network changed since the order was created; create a new one',
    );
  }
  return signature;
}
