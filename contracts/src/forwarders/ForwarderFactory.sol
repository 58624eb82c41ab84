// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {DepositForwarder} from "./DepositForwarder.sol";

/// @title ForwarderFactory
/// @notice Counterfactual standing deposit addresses (one per settlement wallet and player). `predict` gives
///         the address before anything is deployed; players deposit to it; `sweep` deploys the forwarder on
///         first use and moves the balance, minus a per-token fee, to the settlement wallet. No private key
///         exists for any deposit address, and the settlement wallet is part of both the CREATE2 salt and the
///         clone's code, so an address can only ever pay out to the wallet it was predicted for.
contract ForwarderFactory is Ownable {
    /// @notice The {DepositForwarder} implementation every clone delegates to.
    address public immutable implementation;
    /// @notice Receives the per-token fee of every sweep.
    address public feeWallet;
    /// @notice Fee in token base units taken from each sweep of `token`.
    mapping(address token => uint256) public fee;
    /// @notice Accounts besides the owner allowed to sweep (e.g. the service's relayer hot wallet).
    mapping(address account => bool) public isSweeper;

    event Swept(
        address indexed forwarder, address indexed token, address settlementWallet, uint256 amount, uint256 fee
    );
    /// @notice One sweep of a {sweepMany} failed (e.g. the token refused the forwarder); the others went on.
    event SweepFailed(address indexed forwarder, address indexed token, bytes reason);
    event ForwarderDeployed(address indexed forwarder, address indexed settlementWallet, bytes32 indexed playerKey);
    event FeeSet(address indexed token, uint256 fee);
    event FeeWalletSet(address feeWallet);
    event SweeperSet(address indexed account, bool allowed);

    /// @notice One forwarder's sweep in {sweepMany}: the fee taken is `fee[token]` per deposit.
    struct Sweep {
        address settlementWallet;
        bytes32 playerKey;
        address token;
        uint256 deposits;
    }

    error ZeroAddress();
    error NotAllowedToSweep(address caller);

    constructor(address owner_, address feeWallet_) Ownable(owner_) {
        if (feeWallet_ == address(0)) revert ZeroAddress();
        implementation = address(new DepositForwarder());
        feeWallet = feeWallet_;
        emit FeeWalletSet(feeWallet_);
    }

    /// @notice The deposit address of (`settlementWallet`, `playerKey`), deployed or not.
    function predict(address settlementWallet, bytes32 playerKey) public view returns (address) {
        if (settlementWallet == address(0)) revert ZeroAddress();
        return Clones.predictDeterministicAddressWithImmutableArgs(
            implementation, abi.encodePacked(settlementWallet), _salt(settlementWallet, playerKey)
        );
    }

    /// @notice Deploys the forwarder of (`settlementWallet`, `playerKey`) unless it exists; returns its address.
    ///         Open to anyone: the result is fixed by the arguments, so an early deploy harms nobody.
    function deploy(address settlementWallet, bytes32 playerKey) public returns (address forwarder) {
        forwarder = predict(settlementWallet, playerKey);
        if (forwarder.code.length == 0) {
            Clones.cloneDeterministicWithImmutableArgs(
                implementation, abi.encodePacked(settlementWallet), _salt(settlementWallet, playerKey)
            );
            emit ForwarderDeployed(forwarder, settlementWallet, playerKey);
        }
    }

    /// @notice Sweeps `token` from the deposit address of (`settlementWallet`, `playerKey`): the balance minus
    ///         `fee[token]` to the settlement wallet, the fee to `feeWallet`. Moves nothing (and emits nothing)
    ///         when the balance does not exceed the fee.
    /// @dev Callable by the owner, a sweeper, or the settlement wallet itself, so a merchant can recover
    ///      deposits even if the service disappears.
    /// @return amount Sent to the settlement wallet.
    /// @return feeTaken Sent to the fee wallet.
    function sweep(address settlementWallet, bytes32 playerKey, address token)
        external
        returns (uint256 amount, uint256 feeTaken)
    {
        if (msg.sender != owner() && !isSweeper[msg.sender] && msg.sender != settlementWallet) {
            revert NotAllowedToSweep(msg.sender);
        }
        address forwarder = deploy(settlementWallet, playerKey);
        (amount, feeTaken) = DepositForwarder(forwarder).sweep(token, fee[token], feeWallet);
        if (amount != 0) emit Swept(forwarder, token, settlementWallet, amount, feeTaken);
    }

    /// @notice Sweeps many forwarders in one transaction (owner or sweepers only), deploying each on first use.
    ///         Each takes `fee[token]` per deposit it carries (the service counts the credited deposits, so
    ///         the fee wallet receives exactly the fees the deposits were credited net of) and moves nothing
    ///         when its balance does not exceed that. A sweep that fails emits {SweepFailed} and the rest go
    ///         on: one refused token or address never holds up the others.
    function sweepMany(Sweep[] calldata sweeps) external {
        if (msg.sender != owner() && !isSweeper[msg.sender]) revert NotAllowedToSweep(msg.sender);
        for (uint256 i = 0; i < sweeps.length; ++i) {
            Sweep calldata s = sweeps[i];
            address forwarder = deploy(s.settlementWallet, s.playerKey);
            try DepositForwarder(forwarder).sweep(s.token, fee[s.token] * s.deposits, feeWallet) returns (
                uint256 amount, uint256 feeTaken
            ) {
                if (amount != 0) emit Swept(forwarder, s.token, s.settlementWallet, amount, feeTaken);
            } catch (bytes memory reason) {
                emit SweepFailed(forwarder, s.token, reason);
            }
        }
    }

    /// @notice Sets the fee (token base units) charged on each sweep of `token`.
    function setFee(address token, uint256 fee_) external onlyOwner {
        fee[token] = fee_;
        emit FeeSet(token, fee_);
    }

    function setFeeWallet(address feeWallet_) external onlyOwner {
        if (feeWallet_ == address(0)) revert ZeroAddress();
        feeWallet = feeWallet_;
        emit FeeWalletSet(feeWallet_);
    }

    function setSweeper(address account, bool allowed) external onlyOwner {
        isSweeper[account] = allowed;
        emit SweeperSet(account, allowed);
    }

    function _salt(address settlementWallet, bytes32 playerKey) private pure returns (bytes32) {
        return keccak256(abi.encode(settlementWallet, playerKey));
    }
}
