/**
 * Compiles every `contracts/src/**\/*.sol` with the npm `solc` into `contracts/artifacts/<Name>.json`.
 *
 * Run with `npm run contracts:compile`. The output is deterministic (pinned compiler and settings,
 * sorted inputs, stable JSON), so `test/contracts/compile-drift.test.ts` can recompile and demand
 * byte-identical artifacts: a source edit without a recompile fails the suite.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import solc from 'solc';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Directory holding our Solidity sources. */
export const SOURCES_DIR = path.join(ROOT, 'contracts', 'src');
/** Directory the artifacts are written to (committed). */
export const ARTIFACTS_DIR = path.join(ROOT, 'contracts', 'artifacts');

/** Compiler version the settings below were chosen for; a different npm solc is refused. */
const SOLC_VERSION = '0.8.30';

/**
 * Pinned compiler settings. `cancun` gives transient storage (cheap reentrancy guard) and is supported
 * by anvil and the EVM chains we target; viaIR plus the optimizer keeps the batch loop tight.
 */
const SETTINGS = {
  evmVersion: 'cancun',
  viaIR: true,
  optimizer: { enabled: true, runs: 10_000 },
  metadata: { bytecodeHash: 'ipfs', appendCBOR: true },
  outputSelection: {
    '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'metadata'] },
  },
} as const;

/** One compiled contract as stored in `contracts/artifacts/<contractName>.json`. */
export interface ContractArtifact {
  contractName: string;
  abi: unknown[];
  bytecode: string;
  deployedBytecode: string;
  /** sha256 over compiler version, settings and every source file (ours and imported) the contract was built from. */
  sourceHash: string;
}

function listSolFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSolFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.sol')) out.push(full);
  }
  return out.sort();
}

/** Source unit name of a file under contracts/src: a POSIX path relative to that directory. */
function unitName(file: string): string {
  return path.relative(SOURCES_DIR, file).split(path.sep).join('/');
}

/** Resolves `@openzeppelin/...` (and any other package import) from node_modules. */
function resolveImport(importPath: string): { contents: string } | { error: string } {
  try {
    const require = createRequire(path.join(ROOT, 'package.json'));
    return { contents: readFileSync(require.resolve(importPath), 'utf8') };
  } catch {
    return { error: `import not found: ${importPath}` };
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string; sourceLocation?: { file: string } }[];
  sources?: Record<string, unknown>;
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        metadata: string;
        evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
      }
    >
  >;
}

/**
 * Compiles all sources in memory and returns the artifacts keyed by contract name.
 * Throws on any compiler error (warnings are returned for the caller to print).
 */
export function compileContracts(): { artifacts: Map<string, ContractArtifact>; warnings: string[] } {
  const version = solc.version();
  if (!version.startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`expected solc ${SOLC_VERSION}, npm solc is ${version}`);
  }
  const files = listSolFiles(SOURCES_DIR);
  const sources: Record<string, { content: string }> = {};
  for (const file of files) sources[unitName(file)] = { content: readFileSync(file, 'utf8') };

  // Every file content solc sees, ours and imported, so sourceHash covers exactly what was compiled.
  const contents = new Map<string, string>(Object.entries(sources).map(([k, v]) => [k, v.content]));
  const input = { language: 'Solidity', sources, settings: SETTINGS };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (p: string) => {
        const res = resolveImport(p);
        if ('contents' in res) contents.set(p, res.contents);
        return res;
      },
    }),
  ) as SolcOutput;

  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  // Warnings about dependencies (e.g. OpenZeppelin's transient-storage notice) are not ours to fix.
  const warnings = (output.errors ?? [])
    .filter((e) => e.severity !== 'error' && !(e.sourceLocation?.file ?? '').startsWith('@'))
    .map((e) => e.formattedMessage);

  const artifacts = new Map<string, ContractArtifact>();
  for (const unit of Object.keys(sources).sort()) {
    const contracts = output.contracts?.[unit] ?? {};
    for (const name of Object.keys(contracts).sort()) {
      const c = contracts[name]!;
      if (artifacts.has(name)) throw new Error(`two contracts named ${name}; artifact names must be unique`);
      const metadata = JSON.parse(c.metadata) as { sources: Record<string, unknown> };
      const used = Object.keys(metadata.sources).sort();
      const hashInput = JSON.stringify({
        compiler: version,
        settings: SETTINGS,
        sources: used.map((u) => [u, sha256(contents.get(u) ?? '')]),
      });
      artifacts.set(name, {
        contractName: name,
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
        sourceHash: `0x${sha256(hashInput)}`,
      });
    }
  }
  return { artifacts, warnings };
}

/** The exact file text an artifact is stored as. */
export function serializeArtifact(artifact: ContractArtifact): string {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}

/** Compiles and writes `contracts/artifacts/*.json`, removing artifacts whose contract no longer exists. */
export function main(): void {
  const { artifacts, warnings } = compileContracts();
  for (const w of warnings) console.warn(w);
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  if (existsSync(ARTIFACTS_DIR)) {
    for (const f of readdirSync(ARTIFACTS_DIR)) {
      if (f.endsWith('.json') && !artifacts.has(f.slice(0, -'.json'.length)))
        rmSync(path.join(ARTIFACTS_DIR, f));
    }
  }
  for (const [name, artifact] of artifacts) {
    writeFileSync(path.join(ARTIFACTS_DIR, `${name}.json`), serializeArtifact(artifact));
  }
  console.log(`compiled ${artifacts.size} contracts into ${path.relative(ROOT, ARTIFACTS_DIR)}/`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
