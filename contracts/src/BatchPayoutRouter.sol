// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @title BatchPayoutRouter
/// @notice Non-custodial batch payouts (one token, up to hundreds of recipients). The merchant's payout
///         wallet signs an EIP-712 `PayoutBatch` and approves this router for the total; anyone may relay.
///         Items are paid independently: an item whose transfer fails (blacklisted recipient, a token that
///         reverts or returns false) is reported with `ItemFailed` and left unpaid while the others go through.
///         The same signed batch may be resubmitted until its deadline; it then pays only the items still
///         unpaid. A per-(merchant, nonce) bitmap guarantees no item is ever paid twice.
/// @dev Domain: {name "BatchPayoutRouter", version "1", chainId, verifyingContract = this}.
///      The bitmap is written after the token calls (one SSTORE per 256 items), so reentrancy is blocked with
///      a transient-storage guard; without it a malicious token could re-enter and pay an item twice.
contract BatchPayoutRouter is EIP712, ReentrancyGuardTransient {
    /// @notice One recipient of a batch, field for field the `PayoutItem` EIP-712 type.
    struct PayoutItem {
        address recipient;
        uint256 amount;
    }

    /// @notice The signed batch, field for field the `PayoutBatch` EIP-712 type.
    struct PayoutBatch {
        address token;
        address merchant;
        PayoutItem[] items;
        uint256 nonce;
        uint256 deadline;
    }

    bytes32 public constant PAYOUT_ITEM_TYPEHASH = keccak256("PayoutItem(address recipient,uint256 amount)");
    bytes32 public constant PAYOUT_BATCH_TYPEHASH = keccak256(
        "PayoutBatch(address token,address merchant,PayoutItem[] items,uint256 nonce,uint256 deadline)"
        "PayoutItem(address recipient,uint256 amount)"
    );

    /// @dev batchKey => index >> 8 => bitmap of paid items.
    mapping(bytes32 => mapping(uint256 => uint256)) private _paid;
    /// @dev merchant => nonce >> 8 => bitmap of nonces whose signed batch has executed at least once (even
    ///      when every item was refused), so a used nonce is known without reading any item.
    mapping(address => mapping(uint256 => uint256)) private _usedNonces;

    /// @notice Item `index` of the batch `batchKey` = keccak256(abi.encode(merchant, nonce)) was paid.
    event ItemPaid(bytes32 indexed batchKey, uint256 index, address recipient, uint256 amount);
    /// @notice Item `index` could not be paid in this submission and stays unpaid (it may be retried).
    /// @param reason The token's revert data (first 256 bytes at most), or its `false` return value.
    event ItemFailed(bytes32 indexed batchKey, uint256 index, address recipient, uint256 amount, bytes reason);
    /// @notice One submission of a batch finished; `paid` and `failed` count the items this call attempted
    ///         (items paid by an earlier submission are skipped and counted in neither).
    event BatchExecuted(
        bytes32 indexed batchKey,
        address indexed merchant,
        uint256 indexed nonce,
        address token,
        uint256 paid,
        uint256 failed
    );

    error BatchExpired(uint256 deadline, uint256 timestamp);
    error EmptyBatch();
    error TokenHasNoCode(address token);
    /// @notice The signature is malformed (length, `v` other than 27/28, high `s`) or recovers to someone
    ///         other than `batch.merchant`.
    error InvalidSignature();

    constructor() EIP712("BatchPayoutRouter", "1") {}

    /// @notice Verifies `signature` over `batch` and pays every item not paid yet. Never reverts because of
    ///         a single item; reverts only for an expired, empty or wrongly signed batch.
    /// @param signature 65 bytes r‖s‖v with v 27 or 28 (0/1 are rejected: normalise before relaying).
    /// @return paid Items paid by this call.
    /// @return failed Items attempted by this call whose transfer failed.
    function executeBatch(PayoutBatch calldata batch, bytes calldata signature)
        external
        nonReentrant
        returns (uint256 paid, uint256 failed)
    {
        if (block.timestamp > batch.deadline) revert BatchExpired(batch.deadline, block.timestamp);
        PayoutItem[] calldata items = batch.items;
        uint256 n = items.length;
        if (n == 0) revert EmptyBatch();
        address token = batch.token;
        address merchant = batch.merchant;
        // Checked once, so a per-item "empty return data" success cannot come from a codeless address.
        if (token.code.length == 0) revert TokenHasNoCode(token);

        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hashBatch(batch), signature);
        if (err != ECDSA.RecoverError.NoError || signer != merchant) revert InvalidSignature();

        _markNonceUsed(merchant, batch.nonce);
        bytes32 key = batchKeyOf(merchant, batch.nonce);
        for (uint256 start = 0; start < n; start += 256) {
            uint256 word = start >> 8;
            uint256 bits = _paid[key][word];
            uint256 newBits = bits;
            uint256 end = n - start > 256 ? start + 256 : n;
            for (uint256 i = start; i < end; ++i) {
                uint256 mask = 1 << (i & 0xff);
                if (bits & mask != 0) continue;
                address recipient = items[i].recipient;
                uint256 amount = items[i].amount;
                if (_tryTransferFrom(token, merchant, recipient, amount)) {
                    newBits |= mask;
                    ++paid;
                    emit ItemPaid(key, i, recipient, amount);
                } else {
                    ++failed;
                    emit ItemFailed(key, i, recipient, amount, _returnData());
                }
            }
            if (newBits != bits) _paid[key][word] = newBits;
        }
        emit BatchExecuted(key, merchant, batch.nonce, token, paid, failed);
    }

    /// @notice Whether a batch of `merchant` signed with `nonce` has executed (some items may have been refused;
    ///         the same signed batch may still run again for them). A service allocating nonces skips used ones.
    function nonceUsed(address merchant, uint256 nonce) external view returns (bool) {
        return _usedNonces[merchant][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @notice Whether item `index` of `merchant`'s batch with `nonce` has been paid.
    function isItemPaid(address merchant, uint256 nonce, uint256 index) external view returns (bool) {
        return _paid[batchKeyOf(merchant, nonce)][index >> 8] & (1 << (index & 0xff)) != 0;
    }

    /// @notice The key `ItemPaid`/`ItemFailed` are indexed by: keccak256(abi.encode(merchant, nonce)).
    function batchKeyOf(address merchant, uint256 nonce) public pure returns (bytes32) {
        return keccak256(abi.encode(merchant, nonce));
    }

    /// @notice The EIP-712 digest the merchant signs for `batch`.
    function hashBatch(PayoutBatch calldata batch) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                PAYOUT_BATCH_TYPEHASH, batch.token, batch.merchant, _hashItems(batch.items), batch.nonce, batch.deadline
            )
        );
        return _hashTypedDataV4(structHash);
    }

    /// @notice The EIP-712 domain separator of this deployment.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev EIP-712 `encodeData` of `PayoutItem[]`: keccak256 of the concatenated item struct hashes.
    ///      Done in assembly over one reused scratch area; the high-level version copies every item.
    function _hashItems(PayoutItem[] calldata items) private pure returns (bytes32 result) {
        bytes32 typehash = PAYOUT_ITEM_TYPEHASH;
        assembly ("memory-safe") {
            let n := items.length
            let hashes := mload(0x40)
            let scratch := add(hashes, shl(5, n))
            mstore(scratch, typehash)
            for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                let src := add(items.offset, shl(6, i))
                // Mask the address so the hash is that of the canonical value the transfer will use.
                mstore(add(scratch, 0x20), and(calldataload(src), 0xffffffffffffffffffffffffffffffffffffffff))
                mstore(add(scratch, 0x40), calldataload(add(src, 0x20)))
                mstore(add(hashes, shl(5, i)), keccak256(scratch, 0x60))
            }
            result := keccak256(hashes, shl(5, n))
        }
    }

    /// @dev `token.transferFrom(from, to, amount)` that reports failure instead of reverting. Success means
    ///      the call did not revert and returned either nothing (USDT-style) or an ABI `true`.
    function _markNonceUsed(address merchant, uint256 nonce) private {
        uint256 word = nonce >> 8;
        uint256 bit = 1 << (nonce & 0xff);
        uint256 used = _usedNonces[merchant][word];
        if (used & bit == 0) _usedNonces[merchant][word] = used | bit;
    }

    function _tryTransferFrom(address token, address from, address to, uint256 amount) private returns (bool ok) {
        assembly ("memory-safe") {
            let fmp := mload(0x40)
            mstore(0x00, 0x23b872dd00000000000000000000000000000000000000000000000000000000) // transferFrom
            mstore(0x04, and(from, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(0x24, and(to, 0xffffffffffffffffffffffffffffffffffffffff))
            mstore(0x44, amount)
            ok := call(gas(), token, 0, 0x00, 0x64, 0x00, 0x20)
            let size := returndatasize()
            ok := and(ok, or(iszero(size), and(gt(size, 31), eq(mload(0x00), 1))))
            // Restore the free memory pointer and the zero slot the call arguments overwrote.
            mstore(0x40, fmp)
            mstore(0x60, 0)
        }
    }

    /// @dev The last call's return data, capped at 256 bytes so a hostile token cannot make failures costly.
    function _returnData() private pure returns (bytes memory data) {
        assembly ("memory-safe") {
            let size := returndatasize()
            if gt(size, 256) { size := 256 }
            data := mload(0x40)
            mstore(data, size)
            returndatacopy(add(data, 0x20), 0, size)
            mstore(0x40, add(add(data, 0x20), and(add(size, 31), not(31))))
        }
    }
}
