// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {DepositForwarder} from "./DepositForwarder.sol";

/// @title ForwarderFactory
/// @notice Counterfactual standing deposit addresses (one per settlement wallet and player). `predict` gives
///         the address before anything is deployed; players deposit to it; `sweepMany` (the service) deploys
///         the forwarder on first use and moves exactly the credited deposits, minus a per-deposit fee, to
///         the settlement wallet; `sweep` (also the merchant's own way out) moves the whole balance. No private key
///         exists for any deposit address, and the settlement wallet is part of both the CREATE2 salt and the
///         clone's code, so an address can only ever pay out to the wallet it was predicted for.
contract ForwarderFactory is Ownable {
    /// @notice The {DepositForwarder} implementation every clone delegates to.
    address public immutable implementation;
    /// @notice The chain's CREATE2 address prefix: `0xff` on EVM chains, `0x41` on the TVM (Tron), whose
    ///         CREATE2 hashes `0x41` where the EVM hashes `0xff`. {predict} is right only with the chain's own.
    bytes1 public immutable create2Prefix;
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
    /// @notice An item of {sweepMany} already settled under `id` was skipped (nothing moved).
    event SweepSkipped(address indexed forwarder, address indexed token, bytes32 id);
    event ForwarderDeployed(address indexed forwarder, address indexed settlementWallet, bytes32 indexed playerKey);
    event FeeSet(address indexed token, uint256 fee);
    event FeeWalletSet(address feeWallet);
    event SweeperSet(address indexed account, bool allowed);

    /// @notice Items of {sweepMany} already settled, by `keccak256(abi.encode(id, forwarder, token))`: a
    ///         sweep sent twice (a resend racing its original after a reorganisation) moves tokens once.
    mapping(bytes32 item => bool) public settled;

    /// @notice One forwarder's sweep in {sweepMany}: exactly `amount` (the deposits it settles, as
    ///         credited) leaves the forwarder, `fee[token]` per deposit of it to the fee wallet. `id` names
    ///         the sweep (the service's sweep id), so the same item is never settled twice.
    struct Sweep {
        address settlementWallet;
        bytes32 playerKey;
        address token;
        uint256 deposits;
        uint256 amount;
        bytes32 id;
    }

    error ZeroAddress();
    error NotAllowedToSweep(address caller);
    error UnknownCreate2Prefix(bytes1 prefix);
    /// @notice Nothing is deployed at `forwarder`: it is never called (a call would move nothing and
    ///         hide the fault).
    error NoForwarderCode(address forwarder);

    constructor(address owner_, address feeWallet_, bytes1 create2Prefix_) Ownable(owner_) {
        if (feeWallet_ == address(0)) revert ZeroAddress();
        if (create2Prefix_ != 0xff && create2Prefix_ != 0x41) revert UnknownCreate2Prefix(create2Prefix_);
        create2Prefix = create2Prefix_;
        implementation = address(new DepositForwarder());
        feeWallet = feeWallet_;
        emit FeeWalletSet(feeWallet_);
    }

    /// @notice The deposit address of (`settlementWallet`, `playerKey`), deployed or not: the CREATE2
    ///         address of the clone's init code under this chain's {create2Prefix}.
    function predict(address settlementWallet, bytes32 playerKey) public view returns (address) {
        if (settlementWallet == address(0)) revert ZeroAddress();
        bytes32 initCodeHash = keccak256(_cloneInitCode(settlementWallet));
        bytes32 hash = keccak256(
            abi.encodePacked(create2Prefix, address(this), _salt(settlementWallet, playerKey), initCodeHash)
        );
        return address(uint160(uint256(hash)));
    }

    /// @notice Deploys the forwarder of (`settlementWallet`, `playerKey`) unless it exists; returns the
    ///         address the clone was actually created at (on a chain whose CREATE2 prefix is not
    ///         {create2Prefix} that is not {predict}'s, and the sweep follows the real one).
    ///         Open to anyone: the result is fixed by the arguments, so an early deploy harms nobody.
    function deploy(address settlementWallet, bytes32 playerKey) public returns (address forwarder) {
        forwarder = predict(settlementWallet, playerKey);
        if (forwarder.code.length != 0) return forwarder;
        forwarder = Clones.cloneDeterministicWithImmutableArgs(
            implementation, abi.encodePacked(settlementWallet), _salt(settlementWallet, playerKey)
        );
        emit ForwarderDeployed(forwarder, settlementWallet, playerKey);
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
        address forwarder = _deployed(settlementWallet, playerKey);
        uint256 balance = IERC20(token).balanceOf(forwarder);
        if (balance <= fee[token]) return (0, 0);
        (amount, feeTaken) = DepositForwarder(forwarder).sweep(token, balance, fee[token], feeWallet);
        if (amount != 0) emit Swept(forwarder, token, settlementWallet, amount, feeTaken);
    }

    /// @notice Sweeps many forwarders in one transaction (owner or sweepers only), deploying each on first use.
    ///         Each moves exactly its `amount` and takes `fee[token]` per deposit it carries (the service
    ///         counts the credited deposits and their amounts, so deposits that arrive meanwhile stay for
    ///         the next sweep and the fee wallet receives exactly the fees the deposits were credited net
    ///         of). An item already settled under its `id` is skipped ({SweepSkipped}). A sweep that fails
    ///         emits {SweepFailed} and the rest go on: one refused token or address never holds up the others.
    function sweepMany(Sweep[] calldata sweeps) external {
        if (msg.sender != owner() && !isSweeper[msg.sender]) revert NotAllowedToSweep(msg.sender);
        for (uint256 i = 0; i < sweeps.length; ++i) {
            Sweep calldata s = sweeps[i];
            address forwarder = _deployed(s.settlementWallet, s.playerKey);
            bytes32 item = keccak256(abi.encode(s.id, forwarder, s.token));
            if (settled[item]) {
                emit SweepSkipped(forwarder, s.token, s.id);
                continue;
            }
            try DepositForwarder(forwarder).sweep(s.token, s.amount, fee[s.token] * s.deposits, feeWallet) returns (
                uint256 amount, uint256 feeTaken
            ) {
                settled[item] = true;
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

    /// @dev {deploy}, then a check that code is there before anything calls into it.
    function _deployed(address settlementWallet, bytes32 playerKey) private returns (address forwarder) {
        forwarder = deploy(settlementWallet, playerKey);
        if (forwarder.code.length == 0) revert NoForwarderCode(forwarder);
    }

    /// @dev The init code OpenZeppelin's `Clones.cloneDeterministicWithImmutableArgs` deploys: an EIP-1167
    ///      proxy to {implementation} with the settlement wallet appended (`PUSH2 size`, the copy-and-return
    ///      prelude, the 45-byte proxy, the 20 bytes of arguments). Built here because OpenZeppelin's own
    ///      prediction hashes `0xff`, which names an address the TVM never deploys to.
    function _cloneInitCode(address settlementWallet) private view returns (bytes memory) {
        return abi.encodePacked(
            hex"61",
            uint16(0x2d + 20),
            hex"3d81600a3d39f3363d3d373d3d3d363d73",
            implementation,
            hex"5af43d82803e903d91602b57fd5bf3",
            settlementWallet
        );
    }

    function _salt(address settlementWallet, bytes32 playerKey) private pure returns (bytes32) {
        return keccak256(abi.encode(settlementWallet, playerKey));
    }
}
