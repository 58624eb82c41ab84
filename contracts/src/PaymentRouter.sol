// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title PaymentRouter
/// @notice Deposit-session payments. The payer approves this router, then `pay` moves the tokens straight
///         from the payer to the merchant's settlement wallet; the router never holds funds. The event
///         carries the session's `orderRef` (keccak256 of the session id) so the chain listener can match it.
contract PaymentRouter {
    using SafeERC20 for IERC20;

    /// @notice One payment of `amount` of `token` from `payer` to `merchant` for session `orderRef`.
    event Payment(
        bytes32 indexed orderRef, address indexed token, address indexed payer, address merchant, uint256 amount
    );

    /// @notice The session's deadline has passed; the payment is refused and no token moves.
    error PaymentExpired(uint256 deadline, uint256 timestamp);
    error ZeroAmount();
    error ZeroMerchant();

    /// @notice Pays `amount` base units of `token` from the caller to `merchant`, tagged with `orderRef`.
    /// @param deadline Unix seconds; the call reverts once `block.timestamp > deadline`, so a payment sent
    ///        for an expired session can never move tokens.
    function pay(address token, uint256 amount, address merchant, bytes32 orderRef, uint256 deadline) external {
        if (block.timestamp > deadline) revert PaymentExpired(deadline, block.timestamp);
        if (amount == 0) revert ZeroAmount();
        if (merchant == address(0)) revert ZeroMerchant();
        IERC20(token).safeTransferFrom(msg.sender, merchant, amount);
        emit Payment(orderRef, token, msg.sender, merchant, amount);
    }
}
