// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @title PayoutRouter
/// @notice Non-custodial single payouts. The merchant's payout wallet signs an EIP-712 `PayoutOrder` and
///         approves this router; anyone (the service's relayer) may submit the order, and the router pulls
///         `amount` of `token` from the payout wallet straight to the recipient. The router never holds funds.
/// @dev Domain: {name "PayoutRouter", version "1", chainId, verifyingContract = this}. Each (merchant, nonce)
///      executes at most once; the nonce is recorded before the token call, so a reentrant token cannot
///      replay it.
contract PayoutRouter is EIP712 {
    using SafeERC20 for IERC20;

    /// @notice The signed order, field for field the `PayoutOrder` EIP-712 type.
    struct PayoutOrder {
        address token;
        address merchant;
        address recipient;
        uint256 amount;
        uint256 nonce;
        uint256 deadline;
    }

    bytes32 public constant PAYOUT_ORDER_TYPEHASH = keccak256(
        "PayoutOrder(address token,address merchant,address recipient,uint256 amount,uint256 nonce,uint256 deadline)"
    );

    /// @dev merchant => nonce >> 8 => bitmap of used nonces; sequential nonces share one storage word.
    mapping(address => mapping(uint256 => uint256)) private _usedNonces;

    /// @notice `amount` of `token` moved from `merchant` to `recipient` under `nonce`.
    event PayoutExecuted(
        address indexed merchant, uint256 indexed nonce, address indexed recipient, address token, uint256 amount
    );

    error PayoutExpired(uint256 deadline, uint256 timestamp);
    error NonceAlreadyUsed(address merchant, uint256 nonce);
    /// @notice The signature is malformed (length, `v` other than 27/28, high `s`) or recovers to someone
    ///         other than `order.merchant`.
    error InvalidSignature();
    error ZeroAmount();
    error ZeroRecipient();

    constructor() EIP712("PayoutRouter", "1") {}

    /// @notice Verifies `signature` over `order` and pays it. Callable by anyone; the caller only pays gas.
    /// @param signature 65 bytes r‖s‖v with v 27 or 28 (0/1 are rejected: normalise before relaying).
    function execute(PayoutOrder calldata order, bytes calldata signature) external {
        if (block.timestamp > order.deadline) revert PayoutExpired(order.deadline, block.timestamp);
        if (order.amount == 0) revert ZeroAmount();
        if (order.recipient == address(0)) revert ZeroRecipient();

        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hashOrder(order), signature);
        if (err != ECDSA.RecoverError.NoError || signer != order.merchant) revert InvalidSignature();

        uint256 word = order.nonce >> 8;
        uint256 bit = 1 << (order.nonce & 0xff);
        uint256 used = _usedNonces[order.merchant][word];
        if (used & bit != 0) revert NonceAlreadyUsed(order.merchant, order.nonce);
        _usedNonces[order.merchant][word] = used | bit;

        IERC20(order.token).safeTransferFrom(order.merchant, order.recipient, order.amount);
        emit PayoutExecuted(order.merchant, order.nonce, order.recipient, order.token, order.amount);
    }

    /// @notice Whether `merchant`'s order with `nonce` has already executed.
    function nonceUsed(address merchant, uint256 nonce) external view returns (bool) {
        return _usedNonces[merchant][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @notice The EIP-712 digest the merchant signs for `order`.
    function hashOrder(PayoutOrder calldata order) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(PAYOUT_ORDER_TYPEHASH, order)));
    }

    /// @notice The EIP-712 domain separator of this deployment.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }
}
