// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title QuirkyToken
/// @notice Test-only ERC-20 whose `transferFrom` misbehaves on demand, to exercise the routers against the
///         failure shapes real tokens show: returning `false`, reverting without data, and re-entering the
///         caller mid-transfer. Never deploy outside tests.
contract QuirkyToken is ERC20 {
    enum Mode {
        Normal,
        ReturnFalse,
        RevertEmpty
    }

    /// @notice How a `transferFrom` to this recipient behaves.
    mapping(address => Mode) public modeOf;

    address private _reentryTarget;
    bytes private _reentryData;
    /// @notice Whether the one-shot re-entry ran and whether that inner call succeeded.
    bool public reentryAttempted;
    bool public reentrySucceeded;

    constructor() ERC20("Quirky Token", "QRK") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function setMode(address recipient, Mode mode) external {
        modeOf[recipient] = mode;
    }

    /// @notice Arms a one-shot call to `target` with `data`, made from inside the next normal `transferFrom`.
    function setReentry(address target, bytes calldata data) external {
        _reentryTarget = target;
        _reentryData = data;
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        Mode mode = modeOf[to];
        if (mode == Mode.ReturnFalse) return false;
        if (mode == Mode.RevertEmpty) {
            assembly ("memory-safe") {
                revert(0, 0)
            }
        }
        address target = _reentryTarget;
        if (target != address(0)) {
            _reentryTarget = address(0);
            reentryAttempted = true;
            (bool ok,) = target.call(_reentryData);
            reentrySucceeded = ok;
        }
        return super.transferFrom(from, to, value);
    }
}
