// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TetherToken
/// @notice USDT-like token for development and tests. It reproduces the two USDT behaviours a gateway must
///         survive: `transfer`, `transferFrom` and `approve` return nothing (callers that expect a bool
///         revert when decoding), and an owner-managed blacklist makes any transfer to or from a listed
///         address revert. Minting is reserved to the owner, like USDT's `issue`.
/// @dev Deliberately does not inherit OpenZeppelin's ERC20: its functions return `bool`, which is exactly
///      what this token must not do. The USDT "approve only from or to zero" rule is not reproduced.
///      With `transferReturnsFalse` set (the development Tron chain sets it), `transfer` returns a `false`
///      word although it moved the tokens, as USDT on Tron does: a caller must judge a transfer by the
///      balance it changed, not by the value returned.
contract TetherToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    address public owner;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public isBlackListed;
    /// @notice Tron USDT's quirk: `transfer` returns `false` even when it succeeded.
    bool public transferReturnsFalse;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AddedBlackList(address indexed user);
    event RemovedBlackList(address indexed user);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error NotOwner();
    error Blacklisted(address account);
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ZeroAddress();

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
    }

    /// @notice Moves `value` from the caller to `to`. Returns no value, like USDT (or `false`, like USDT on
    ///         Tron, when `transferReturnsFalse` is set).
    function transfer(address to, uint256 value) external {
        _transfer(msg.sender, to, value);
        if (transferReturnsFalse) {
            assembly ("memory-safe") {
                mstore(0x00, 0)
                return(0x00, 0x20)
            }
        }
    }

    /// @notice Reproduces (or stops reproducing) Tron USDT's `transfer` returning `false` (owner only).
    function setTransferReturnsFalse(bool on) external onlyOwner {
        transferReturnsFalse = on;
    }

    /// @notice Moves `value` from `from` to `to` using the caller's allowance. Returns no value, like USDT.
    function transferFrom(address from, address to, uint256 value) external {
        uint256 current = allowance[from][msg.sender];
        if (current != type(uint256).max) {
            if (current < value) revert InsufficientAllowance(msg.sender, current, value);
            unchecked {
                allowance[from][msg.sender] = current - value;
            }
        }
        _transfer(from, to, value);
    }

    /// @notice Sets the caller's allowance for `spender`. Returns no value, like USDT.
    function approve(address spender, uint256 value) external {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
    }

    /// @notice Mints `amount` base units to `to` (owner only).
    function mint(address to, uint256 amount) external onlyOwner {
        if (to == address(0)) revert ZeroAddress();
        totalSupply += amount;
        unchecked {
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    /// @notice Blocks every transfer to or from `user` until removed.
    function addBlackList(address user) external onlyOwner {
        isBlackListed[user] = true;
        emit AddedBlackList(user);
    }

    /// @notice Lifts the block on `user`.
    function removeBlackList(address user) external onlyOwner {
        isBlackListed[user] = false;
        emit RemovedBlackList(user);
    }

    /// @notice USDT's name for the blacklist getter.
    function getBlackListStatus(address user) external view returns (bool) {
        return isBlackListed[user];
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function _transfer(address from, address to, uint256 value) private {
        if (to == address(0)) revert ZeroAddress();
        if (isBlackListed[from]) revert Blacklisted(from);
        if (isBlackListed[to]) revert Blacklisted(to);
        uint256 balance = balanceOf[from];
        if (balance < value) revert InsufficientBalance(from, balance, value);
        unchecked {
            balanceOf[from] = balance - value;
            balanceOf[to] += value;
        }
        emit Transfer(from, to, value);
    }
}
