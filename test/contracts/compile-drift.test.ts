import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS_DIR,
  type ContractArtifact,
  compileContracts,
  serializeArtifact,
} from '../../scripts/compile-contracts.ts';

// One in-memory compile (a few seconds of solc-wasm) shared by both checks.
let artifacts: Map<string, ContractArtifact>;
beforeAll(() => {
  artifacts = compileContracts().artifacts;
});

describe('committed contract artifacts', () => {
  it('match a fresh compile of contracts/src byte for byte', () => {
    const onDisk = readdirSync(ARTIFACTS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(onDisk).toEqual([...artifacts.keys()].map((n) => `${n}.json`).sort());
    for (const [name, artifact] of artifacts) {
      const committed = readFileSync(path.join(ARTIFACTS_DIR, `${name}.json`), 'utf8');
      // Whole-file comparison covers abi, bytecode, deployedBytecode and sourceHash; on failure run
      // `npm run contracts:compile` and commit the result.
      expect(committed, `${name}.json is stale`).toBe(serializeArtifact(artifact));
    }
  });

  it('ship every contract the gateway deploys, with code', () => {
    for (const name of [
      'TestToken',
      'TetherToken',
      'Multicall3',
      'PaymentRouter',
      'PayoutRouter',
      'BatchPayoutRouter',
      'ForwarderFactory',
      'DepositForwarder',
    ]) {
      const a = artifacts.get(name);
      expect(a, name).toBeDefined();
      expect(a!.bytecode.length, name).toBeGreaterThan(100);
      expect(a!.deployedBytecode.length, name).toBeGreaterThan(100);
    }
  });
});
