// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title DepositForwarder
/// @notice Implementation behind every standing deposit address. Each address is an EIP-1167 clone created
///         by {ForwarderFactory} with the merchant's settlement wallet appended to its code (immutable clone
///         argument), so the clone can only ever sweep to that wallet and nobody holds a key for it.
/// @dev Runs only through delegatecall from a clone; `FACTORY` is an immutable of this implementation and
///      therefore the same for every clone.
contract DepositForwarder {
    /// @notice The factory that created the implementation; the only caller allowed to sweep.
    address public immutable FACTORY;

    error OnlyFactory();
    /// @notice The sweep was decided for more than this address holds.
    error InsufficientBalance(address token, uint256 balance, uint256 amount);
    /// @notice The token call succeeded but did not move exactly `value` out of this address.
    error TransferFailed(address token, address to, uint256 value);

    constructor() {
        FACTORY = msg.sender;
    }

    /// @notice Where this clone sweeps to: the 20 bytes appended to the clone's code at creation.
    function settlementWallet() public view returns (address wallet) {
        assembly ("memory-safe") {
            // Clone layout: 45 bytes of EIP-1167 proxy code, then the immutable args.
            extcodecopy(address(), 0x00, 0x2d, 0x14)
            wallet := shr(96, mload(0x00))
        }
    }

    /// @notice Moves exactly `amount` of `token` out of this address: `amount - fee` to the settlement
    ///         wallet and `fee` to `feeWallet`. Tokens beyond `amount` stay (deposits that arrived after the
    ///         sweep was decided are the next sweep's); a balance below `amount` reverts. Moves nothing
    ///         when `amount` does not exceed `fee`.
    /// @return sent Sent to the settlement wallet.
    /// @return feeTaken Sent to `feeWallet`.
    function sweep(address token, uint256 amount, uint256 fee, address feeWallet)
        external
        returns (uint256 sent, uint256 feeTaken)
    {
        if (msg.sender != FACTORY) revert OnlyFactory();
        uint256 balance = IERC20(token).balanceOf(address(this));
        if (balance < amount) revert InsufficientBalance(token, balance, amount);
        if (amount <= fee) return (0, 0);
        sent = amount - fee;
        _send(token, settlementWallet(), sent);
        if (fee != 0) _send(token, feeWallet, fee);
        feeTaken = fee;
    }

    /// @dev A transfer judged by the balance it moved, never by its return value: USDT returns nothing on
    ///      EVM chains and `false` on Tron even when it moved the tokens. A revert is passed on as is.
    function _send(address token, address to, uint256 value) private {
        uint256 before = IERC20(token).balanceOf(address(this));
        (bool ok, bytes memory reason) = token.call(abi.encodeCall(IERC20.transfer, (to, value)));
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(reason, 0x20), mload(reason))
            }
        }
        uint256 remaining = IERC20(token).balanceOf(address(this));
        if (remaining > before || before - remaining != value) revert TransferFailed(token, to, value);
    }
}
