import { concat, keccak256, toUtf8Bytes } from 'ethers';
import { describe, expect, it } from 'vitest';
import { toEvmAddress, toTronAddress } from '../../src/chains/tron/address.ts';
import { cloneInitCode, create2Address } from '../../src/modules/deposit/deposit.address.ts';

/** The UTF-8 bytes of `text` right-padded with zeros to 32 bytes. */
const textSalt = (text: string) => {
  const bytes = toUtf8Bytes(text);
  return concat([bytes, new Uint8Array(32 - bytes.length)]);
};

describe('CREATE2 rule per chain', () => {
  // A public mainnet vector: an EIP-1167 clone of TL2Scqg… deployed by TFgphAx2… with this salt.
  const deployer = toEvmAddress('TFgphAx29XEwrS8feFMpPfqzypjYzNysSH');
  const implementation = toEvmAddress('TL2ScqgY9ckK5h1VQExuMNrweyVSSdAtHa');
  const salt = textSalt('tron-network-salt');
  const codeHash = keccak256(cloneInitCode(implementation, '0x', false));

  it('the TVM rule (0x41) gives the address Tron deployed', () => {
    expect(toTronAddress(create2Address('0x41', deployer, salt, codeHash))).toBe(
      'TQGeReoGywayLjiFDedvJTrxAALh7uZnqH',
    );
  });

  it('the EVM rule (0xff) gives another address for the same inputs', () => {
    expect(toTronAddress(create2Address('0xff', deployer, salt, codeHash))).toBe(
      'TDjH1fDB2ArDfHHm4q2NrKWFWKURBCQFBF',
    );
  });
});
