import { parseArgs } from 'node:util';
import {
  type Contract,
  getBytes,
  id,
  JsonRpcProvider,
  parseEther,
  type TransactionReceipt,
  Wallet,
} from 'ethers';
import { startAnvil } from '../src/chains/anvil.ts';
import { deployContract } from '../src/chains/contracts.ts';
import { factoryArgs } from '../src/chains/deploy.ts';
import {
  type BatchTypedData,
  buildBatchTypedData,
  buildPayoutTypedData,
  type PayoutTypedData,
  typesForEthers,
} from '../src/chains/payout-typed-data.ts';
import { type Figure, figure, runIfMain } from './report.ts';

const AMOUNT = 1_000_000n; // 1 token at 6 decimals
const BASE_TX_GAS = 21_000n;

/** One measured row of the report. */
export interface GasRow {
  label: string;
  gas: bigint;
  note?: string;
}

/** All measurements of one run. */
export interface GasReport {
  rows: GasRow[];
  /** Batch gas per item (total / items) over plain per-transfer gas, for each plain baseline. */
  ratios: GasRow[];
  /** The summary rows (baseline: Permit2 for single payouts, a plain transferFrom for a batch item). */
  figures: Figure[];
}

async function receiptOf(
  tx: Promise<{ wait(): Promise<TransactionReceipt | null> }>,
): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait();
  if (receipt?.status !== 1) throw new Error('benchmark transaction failed');
  return receipt;
}

/** Intrinsic calldata gas (EIP-2028): 4 per zero byte, 16 per non-zero byte. */
function calldataGas(data: string): bigint {
  let gas = 0n;
  for (const b of getBytes(data)) gas += b === 0 ? 4n : 16n;
  return gas;
}

function freshRecipients(n: number): string[] {
  return Array.from({ length: n }, () => Wallet.createRandom().address);
}

/** Runs every measurement on the chain behind `rpcUrl` and returns the report. */
export async function measureGas(rpcUrl: string, chainId: number, batchSize = 100): Promise<GasReport> {
  // No request cache: back-to-back sends from one wallet must each see the fresh nonce.
  const provider = new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 50;
  const fund = async (w: Wallet) => {
    await provider.send('anvil_setBalance', [w.address, `0x${parseEther('1000').toString(16)}`]);
    return w;
  };
  const deployer = await fund(new Wallet(Wallet.createRandom().privateKey, provider));
  const merchant = await fund(new Wallet(Wallet.createRandom().privateKey, provider));
  const relayer = await fund(new Wallet(Wallet.createRandom().privateKey, provider));
  const spender = await fund(new Wallet(Wallet.createRandom().privateKey, provider));

  const token = await deployContract(deployer, 'TestToken', ['USD Coin', 'USDC', 6]);
  const payout = await deployContract(deployer, 'PayoutRouter');
  const batch = await deployContract(deployer, 'BatchPayoutRouter');
  const multicall = await deployContract(deployer, 'Multicall3');
  const payment = await deployContract(deployer, 'PaymentRouter');
  // The gateway's own constructor arguments (src/chains/deploy.ts), so a new one cannot break this bench.
  const factory = await deployContract(
    deployer,
    'ForwarderFactory',
    factoryArgs(deployer.address, { feeWallet: deployer.address, create2Prefix: '0xff' }),
  );

  const asMerchant = token.contract.connect(merchant) as Contract;
  await receiptOf(token.contract.getFunction('mint')(merchant.address, AMOUNT * 10_000n));
  for (const s of [payout.address, batch.address, spender.address, multicall.address, payment.address]) {
    await receiptOf(asMerchant.getFunction('approve')(s, 2n ** 255n));
  }
  const rows: GasRow[] = [];
  const sign = (td: PayoutTypedData | BatchTypedData) =>
    merchant.signTypedData(td.domain, typesForEthers(td), td.message);
  const now = async () => (await provider.getBlock('latest'))!.timestamp;

  // Single payouts: the first nonce of a 256-nonce bitmap word pays a fresh SSTORE, later ones do not.
  for (const [nonce, label] of [
    [256n, 'PayoutRouter.execute, fresh recipient, first nonce of its bitmap word'],
    [257n, 'PayoutRouter.execute, fresh recipient, nonce word already in use'],
  ] as const) {
    const td = buildPayoutTypedData({
      chainId,
      router: payout.address,
      token: token.address,
      merchant: merchant.address,
      recipient: freshRecipients(1)[0]!,
      amount: AMOUNT,
      nonce,
      deadline: (await now()) + 1800,
    });
    const r = await receiptOf(
      (payout.contract.connect(relayer) as Contract).getFunction('execute')(td.message, await sign(td)),
    );
    rows.push({ label, gas: r.gasUsed, note: 'whole transaction' });
  }

  // The Permit2-style baseline: the same transfer through a port of Uniswap Permit2's
  // SignatureTransfer.permitTransferFrom, under the same conditions (fresh recipient; first nonce of a
  // bitmap word, then a nonce in a word already in use; the relayer sends).
  const permit2 = await deployContract(deployer, 'Permit2SignatureTransfer');
  await receiptOf(asMerchant.getFunction('approve')(permit2.address, 2n ** 255n));
  for (const [nonce, label] of [
    [256n, 'Permit2 permitTransferFrom, fresh recipient, first nonce of its bitmap word'],
    [257n, 'Permit2 permitTransferFrom, fresh recipient, nonce word already in use'],
  ] as const) {
    const deadline = BigInt((await now()) + 1800);
    const permit = { permitted: { token: token.address, amount: AMOUNT }, nonce, deadline };
    const signature = await merchant.signTypedData(
      { name: 'Permit2', chainId, verifyingContract: permit2.address },
      {
        PermitTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
        TokenPermissions: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      { ...permit, spender: relayer.address },
    );
    const r = await receiptOf(
      (permit2.contract.connect(relayer) as Contract).getFunction('permitTransferFrom')(
        permit,
        { to: freshRecipients(1)[0]!, requestedAmount: AMOUNT },
        merchant.address,
        signature,
      ),
    );
    rows.push({ label, gas: r.gasUsed, note: 'whole transaction' });
  }

  // Batch of one, for the marginal per-item cost of the big batch.
  const signBatch = async (recipients: string[], nonce: bigint) => {
    const td = buildBatchTypedData({
      chainId,
      router: batch.address,
      token: token.address,
      merchant: merchant.address,
      items: recipients.map((recipient) => ({ recipient, amount: AMOUNT })),
      nonce,
      deadline: (await now()) + 1800,
    });
    return { td, signature: await sign(td) };
  };
  const executeBatch = (td: BatchTypedData, signature: string) =>
    receiptOf(
      (batch.contract.connect(relayer) as Contract).getFunction('executeBatch')(td.message, signature),
    );
  const one = await signBatch(freshRecipients(1), 1n);
  const batchOf1 = (await executeBatch(one.td, one.signature)).gasUsed;

  const recipients = freshRecipients(batchSize);
  const snapshot = (await provider.send('evm_snapshot', [])) as string;
  const big = await signBatch(recipients, 2n);
  const batchTotal = (await executeBatch(big.td, big.signature)).gasUsed;
  const n = BigInt(batchSize);
  rows.push({
    label: 'BatchPayoutRouter.executeBatch, 1 fresh recipient',
    gas: batchOf1,
    note: 'whole transaction',
  });
  rows.push({ label: `BatchPayoutRouter.executeBatch, ${batchSize} fresh recipients`, gas: batchTotal });
  const batchPerItem = batchTotal / n;
  rows.push({ label: `  per item (total / ${batchSize}, base + signature amortised)`, gas: batchPerItem });
  rows.push({
    label: `  marginal per item ((total(${batchSize}) - total(1)) / ${batchSize - 1})`,
    gas: (batchTotal - batchOf1) / (n - 1n),
  });

  // Same recipients, still fresh: undo the batch first.
  await provider.send('evm_revert', [snapshot]);
  const snapshot2 = (await provider.send('evm_snapshot', [])) as string;
  const asSpender = token.contract.connect(spender) as Contract;
  const transferFrom = asSpender.getFunction('transferFrom');
  let plainTotal = 0n;
  let plainCalldata = 0n;
  let nonce = await spender.getNonce();
  const sent = [];
  for (const recipient of recipients) {
    sent.push(await transferFrom(merchant.address, recipient, AMOUNT, { nonce: nonce++ }));
  }
  for (const tx of sent) {
    const r = await receiptOf(Promise.resolve(tx));
    plainTotal += r.gasUsed;
    plainCalldata += calldataGas(tx.data);
  }
  const plainPerTx = plainTotal / n;
  const plainExcludingBase = plainPerTx - BASE_TX_GAS;
  const plainExecution = plainExcludingBase - plainCalldata / n;
  rows.push({ label: `${batchSize} plain token.transferFrom transactions, total`, gas: plainTotal });
  rows.push({ label: '  per transaction (incl. 21000 base)', gas: plainPerTx });
  rows.push({
    label: '  per call excluding the 21000 base (calldata still included)',
    gas: plainExcludingBase,
  });
  rows.push({ label: '  per call execution only (excluding base and calldata)', gas: plainExecution });

  // The same transfers in one transaction (warm token slots, no router logic): the floor any batching
  // contract competes with. Multicall3 is the spender here.
  await provider.send('evm_revert', [snapshot2]);
  const calls = recipients.map((recipient) => ({
    target: token.address,
    allowFailure: false,
    callData: token.contract.interface.encodeFunctionData('transferFrom', [
      merchant.address,
      recipient,
      AMOUNT,
    ]),
  }));
  const multi = await receiptOf(
    (multicall.contract.connect(relayer) as Contract).getFunction('aggregate3')(calls),
  );
  rows.push({ label: `${batchSize} transferFroms in one tx via Multicall3.aggregate3`, gas: multi.gasUsed });
  rows.push({ label: `  per transfer (total / ${batchSize})`, gas: multi.gasUsed / n });

  // Context rows: deposit-side contracts.
  const payer = await fund(new Wallet(Wallet.createRandom().privateKey, provider));
  await receiptOf(token.contract.getFunction('mint')(payer.address, AMOUNT * 10n));
  await receiptOf(
    (token.contract.connect(payer) as Contract).getFunction('approve')(payment.address, AMOUNT * 10n),
  );
  const pay = await receiptOf(
    (payment.contract.connect(payer) as Contract).getFunction('pay')(
      token.address,
      AMOUNT,
      merchant.address,
      id('cs_bench'),
      (await now()) + 600,
    ),
  );
  rows.push({ label: 'PaymentRouter.pay (merchant balance already non-zero)', gas: pay.gasUsed });
  const wallet = Wallet.createRandom().address;
  const key = id('bench-player');
  const forwarder = (await factory.contract.getFunction('predict')(wallet, key)) as string;
  const sweep = factory.contract.getFunction('sweep');
  await receiptOf(token.contract.getFunction('mint')(forwarder, AMOUNT));
  rows.push({
    label: 'ForwarderFactory.sweep, first (deploys the clone)',
    gas: (await receiptOf(sweep(wallet, key, token.address))).gasUsed,
  });
  await receiptOf(token.contract.getFunction('mint')(forwarder, AMOUNT));
  rows.push({
    label: 'ForwarderFactory.sweep, later (clone exists)',
    gas: (await receiptOf(sweep(wallet, key, token.address))).gasUsed,
  });

  const ratio = (a: bigint, b: bigint) => Number((a * 10_000n) / b) / 10_000;
  const gasOf = (label: string) => rows.find((r) => r.label === label)!.gas;
  const singleCold = gasOf('PayoutRouter.execute, fresh recipient, first nonce of its bitmap word');
  const singleWarm = gasOf('PayoutRouter.execute, fresh recipient, nonce word already in use');
  const permitCold = gasOf('Permit2 permitTransferFrom, fresh recipient, first nonce of its bitmap word');
  const permitWarm = gasOf('Permit2 permitTransferFrom, fresh recipient, nonce word already in use');
  const target = (value: number) =>
    `${value.toFixed(3)} (target ≤ 1.10: ${value <= 1.1 ? 'met' : 'NOT met'})`;
  const ratios: GasRow[] = [
    {
      label: 'single payout / Permit2 permitTransferFrom, first nonce of a word',
      gas: singleCold,
      note: target(ratio(singleCold, permitCold)),
    },
    {
      label: 'single payout / Permit2 permitTransferFrom, word in use',
      gas: singleWarm,
      note: target(ratio(singleWarm, permitWarm)),
    },
    {
      label: 'single payout (word in use) / plain transferFrom per transaction',
      gas: singleWarm,
      note: ratio(singleWarm, plainPerTx).toFixed(3),
    },
    {
      label: 'batch per item / plain transferFrom per transaction',
      gas: batchPerItem,
      note: ratio(batchPerItem, plainPerTx).toFixed(3),
    },
    {
      label: 'batch per item / plain transferFrom per call excl. 21000 base',
      gas: batchPerItem,
      note: ratio(batchPerItem, plainExcludingBase).toFixed(3),
    },
    {
      label: 'batch per item / transferFrom in one Multicall3 tx',
      gas: batchPerItem,
      note: ratio(batchPerItem, multi.gasUsed / n).toFixed(3),
    },
  ];
  provider.destroy();
  const figures = [
    figure('single payout, first nonce of a word', Number(singleCold), 'gas', {
      baseline: Number(permitCold),
      target: { of: 'ratio', op: '≤', bound: 1.1 },
    }),
    figure('single payout, word in use', Number(singleWarm), 'gas', {
      baseline: Number(permitWarm),
      target: { of: 'ratio', op: '≤', bound: 1.1 },
    }),
    figure(`batch per item (${batchSize} items)`, Number(batchPerItem), 'gas', {
      baseline: Number(plainPerTx),
    }),
  ];
  return { rows, ratios, figures };
}

function printReport(report: GasReport): void {
  const width = Math.max(...[...report.rows, ...report.ratios].map((r) => r.label.length)) + 2;
  console.log('Gas used (from mined receipts; token: OpenZeppelin ERC-20, 6 decimals)\n');
  console.log(`${'measurement'.padEnd(width)}${'gas'.padStart(12)}`);
  for (const r of report.rows) {
    console.log(`${r.label.padEnd(width)}${r.gas.toString().padStart(12)}${r.note ? `   (${r.note})` : ''}`);
  }
  console.log(`\n${'ratio'.padEnd(width)}${'value'.padStart(12)}`);
  for (const r of report.ratios) console.log(`${r.label.padEnd(width)}${(r.note ?? '').padStart(12)}`);
  console.log(
    '\nNotes: the plain transactions each pay cold storage access for the merchant balance and allowance;' +
      '\ninside one batch those slots are warm after the first item. The Multicall3 row has the same warm' +
      '\nslots but no signature check, bitmap or per-item event, so it isolates the router overhead.',
  );
}

/** Starts a fresh anvil, measures, prints the table and stops the node. */
export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({ args: argv, options: { batch: { type: 'string' } } });
  const node = await startAnvil({ chainId: 31337 });
  try {
    const report = await measureGas(node.rpcUrl, node.chainId, Number(values.batch ?? 100));
    printReport(report);
    return report.figures;
  } finally {
    await node.stop();
  }
}

runIfMain(import.meta.url, main);
