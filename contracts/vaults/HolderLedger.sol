// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @dev One holder's shares and the point its performance fee counts from, packed in the slot of its balance so
///      that the per-holder hurdle costs no storage access beyond the balance's. Bits, low to high:
///
///      | bits     | field       | unit                                                                       |
///      |----------|-------------|----------------------------------------------------------------------------|
///      | 0..95    | shares      | share units (below 2**96: assets < 2**64 buy at most ~2**84 shares)        |
///      | 96..143  | hurdleMark  | the vault's hurdle accumulator (hurdleBps x seconds) at the entry point     |
///      | 144..255 | entryPrice  | share price at the entry point, assets per share times 2**PRICE_SHIFT     |
///
///      The holder owes performanceBps of shares * (price - hurdlePrice) when the price is above its hurdle price
///      entryPrice * (1 + (hurdleMark now - hurdleMark) / (10,000 * 365 days)): hurdleRateBps a year of the value it
///      held, for the time it held it, is kept before any performance fee.
type Position is uint256;

/// @dev The vault's share supply with what settling a position reads, in one slot. Bits, low to high:
///
///      | bits     | field          | unit                                                                    |
///      |----------|----------------|-------------------------------------------------------------------------|
///      | 0..127   | totalSupply    | share units                                                             |
///      | 128..143 | performanceBps | basis points of a holder's gain beyond its hurdle                       |
///      | 144..159 | hurdleBps      | annual basis points                                                     |
///      | 160..223 | hurdleMark     | hurdle accumulator (hurdleBps x seconds) at markedAt                    |
///      | 224..255 | markedAt       | timestamp of the last hurdle rate change                                |
type SupplyState is uint256;

using HolderLedger for Position global;
using HolderLedger for SupplyState global;

/// @title HolderLedger
/// @notice Share balances with each holder's entry point, and the performance fee each one owes above its own
///         hurdle. A position's gain is its shares times the rise of the share price since its entry point (the
///         profit that unlocked to them, net of the management fee they paid); its hurdle is simple interest at
///         hurdleRateBps on the value at the entry point. No index is global: the share price is the gain per share.
library HolderLedger {
    /// @notice Fixed-point shift of stored prices: (2**64 assets << 67) / 1e6 virtual shares < 2**112.
    uint256 internal constant PRICE_SHIFT = 67;
    /// @notice Largest share balance a position holds.
    uint256 internal constant MAX_SHARES = type(uint96).max;
    /// @notice Basis points times seconds in a year: the denominator of the hurdle accumulator.
    uint256 internal constant HURDLE_DENOMINATOR = 10_000 * 365 days;

    uint256 private constant _BPS = 10_000;
    uint256 private constant _M96 = type(uint96).max;
    uint256 private constant _M48 = type(uint48).max;
    uint256 private constant _M128 = type(uint128).max;
    uint256 private constant _M64 = type(uint64).max;
    uint256 private constant _M16 = type(uint16).max;
    uint256 private constant _MARK = 96;
    uint256 private constant _PRICE = 144;
    uint256 private constant _PERFORMANCE = 128;
    uint256 private constant _HURDLE = 144;
    uint256 private constant _SUPPLY_MARK = 160;
    uint256 private constant _MARKED_AT = 224;

    /// @notice Thrown when a position would hold more than MAX_SHARES.
    error PositionTooLarge(uint256 shares, uint256 maxShares);

    // ------------------------------------------------------------ supply

    /// @notice Share units in existence.
    function totalSupply(SupplyState s) internal pure returns (uint256) {
        return SupplyState.unwrap(s) & _M128;
    }

    /// @notice Performance fee in basis points of a holder's gain beyond its hurdle.
    function performanceBps(SupplyState s) internal pure returns (uint256) {
        return (SupplyState.unwrap(s) >> _PERFORMANCE) & _M16;
    }

    /// @notice Annual hurdle rate in basis points.
    function hurdleBps(SupplyState s) internal pure returns (uint256) {
        return (SupplyState.unwrap(s) >> _HURDLE) & _M16;
    }

    /// @notice The hurdle accumulator now: hurdleBps x seconds summed since the vault's creation (< 2**48 for
    ///         centuries at the highest rate, 2,000 bps).
    function hurdleMark(SupplyState s) internal view returns (uint256 mark) {
        uint256 raw = SupplyState.unwrap(s);
        // markedAt <= now (set to a block timestamp); 16-bit rate times 32-bit seconds plus 64 bits: no overflow.
        unchecked {
            mark = ((raw >> _SUPPLY_MARK) & _M64) + ((raw >> _HURDLE) & _M16) * (block.timestamp - (raw >> _MARKED_AT));
        }
    }

    /// @notice `s` with `count` more shares (the callers bound each position by MAX_SHARES, so the sum stays in 128
    /// bits).
    function withMinted(SupplyState s, uint256 count) internal pure returns (SupplyState) {
        unchecked {
            return SupplyState.wrap(SupplyState.unwrap(s) + count);
        }
    }

    /// @notice `s` with `count` fewer shares (at most totalSupply: they come out of a balance).
    function withBurnt(SupplyState s, uint256 count) internal pure returns (SupplyState) {
        unchecked {
            return SupplyState.wrap(SupplyState.unwrap(s) - count);
        }
    }

    /// @notice `s` with new fee rates from now on: the accumulator is brought to date at the old hurdle rate first,
    ///         so that the hurdle already earned is kept.
    function withRates(SupplyState s, uint256 performance, uint256 hurdle) internal view returns (SupplyState) {
        uint256 mark = hurdleMark(s);
        return
            SupplyState.wrap(
                (SupplyState.unwrap(s) & _M128) |
                    (performance << _PERFORMANCE) |
                    (hurdle << _HURDLE) |
                    (mark << _SUPPLY_MARK) |
                    (block.timestamp << _MARKED_AT)
            );
    }

    /// @notice Share price `(assets + 1) / (supply + virtualShares)` times 2**PRICE_SHIFT, rounded down: the
    ///         price ERC-4626's conversions use.
    function priceOf(uint256 assets, uint256 supplyWithVirtual) internal pure returns (uint256) {
        // assets < 2**64; the virtual shares make the divisor at least 1e6.
        unchecked {
            return ((assets + 1) << PRICE_SHIFT) / supplyWithVirtual;
        }
    }

    // ------------------------------------------------------------ positions

    /// @notice Shares of the position.
    function shares(Position p) internal pure returns (uint256) {
        return Position.unwrap(p) & _M96;
    }

    /// @notice Hurdle accumulator at the position's entry point.
    function entryMark(Position p) internal pure returns (uint256) {
        return (Position.unwrap(p) >> _MARK) & _M48;
    }

    /// @notice Share price at the position's entry point (times 2**PRICE_SHIFT).
    function entryPrice(Position p) internal pure returns (uint256) {
        return Position.unwrap(p) >> _PRICE;
    }

    /// @notice A position of `count` shares entered at `price` and hurdle accumulator `mark`.
    function position(uint256 count, uint256 mark, uint256 price) internal pure returns (Position) {
        if (count > _M96) revert PositionTooLarge(count, _M96);
        return Position.wrap(count | (mark << _MARK) | (price << _PRICE));
    }

    /// @notice `p` with `count` more shares and the same entry point (the vault's own position, whose entry points
    ///         are kept per request).
    function plus(Position p, uint256 count) internal pure returns (Position) {
        uint256 total = (Position.unwrap(p) & _M96) + count;
        if (total > _M96) revert PositionTooLarge(total, _M96);
        return Position.wrap(Position.unwrap(p) + count);
    }

    /// @notice `p` less `count` shares (at most its shares); each share keeps its entry point. An empty position
    ///         is cleared whole, so that the slot is freed.
    function without(Position p, uint256 count) internal pure returns (Position) {
        // The callers check count <= shares, so only the low field changes.
        unchecked {
            uint256 raw = Position.unwrap(p) - count;
            return Position.wrap(raw & _M96 == 0 ? 0 : raw);
        }
    }

    /// @notice `p` joined by `count` shares entered at (`price`, `mark`), with the hurdle accumulator at `markNow`.
    ///         The joined position keeps both parts' gain and hurdle exactly (both are linear in the shares): its
    ///         entry price is the share-weighted average, and its entry mark is set so that the hurdle earned so far
    ///         and the rate at which it grows are the sum of the parts'. Both round in the holder's favour (entry
    ///         price up, hurdle earned up), by less than one unit of the price's precision.
    function joined(
        Position p,
        uint256 count,
        uint256 price,
        uint256 mark,
        uint256 markNow
    ) internal pure returns (Position) {
        uint256 raw = Position.unwrap(p);
        uint256 held = raw & _M96;
        if (held == 0) return position(count, mark, price);
        uint256 total = held + count;
        if (total > _M96) revert PositionTooLarge(total, _M96);
        // Shares joining at the position's own entry point (a request's shares coming back unchanged) keep it.
        if (price == raw >> _PRICE && mark == (raw >> _MARK) & _M48) return Position.wrap(raw + count);
        unchecked {
            // Shares < 2**96 times prices < 2**112: values < 2**209, their sum < 2**210. A value at an entry price
            // is the position's assets at that price: below 2**64 * 2**PRICE_SHIFT = 2**131 unless the price fell
            // more than 2**40-fold since (the management fee alone, at most 5% a year, cannot), so times
            // accumulator differences (< 2**48) the hurdle earned stays far below 2**256.
            uint256 heldValue = held * (raw >> _PRICE);
            uint256 joinedValue = heldValue + count * price;
            // The blended entry price, rounded up, is what the position records (docs/slither-triage.md).
            // slither-disable-next-line divide-before-multiply
            uint256 joinedPrice = (joinedValue + total - 1) / total;
            uint256 earned = heldValue * (markNow - ((raw >> _MARK) & _M48));
            if (mark != markNow) earned += count * price * (markNow - mark);
            // total * joinedPrice >= joinedValue: positive unless both prices are 0, which priceOf never returns.
            uint256 weight = total * joinedPrice;
            uint256 elapsed = weight == 0 ? 0 : (earned + weight - 1) / weight;
            // elapsed is a weighted average of the two parts' elapsed accumulators, each at most markNow.
            return Position.wrap(total | ((markNow - elapsed) << _MARK) | (joinedPrice << _PRICE));
        }
    }

    // ------------------------------------------------------------ hot path (flat: each call costs gas)

    /// @notice `p` joined by `count` shares bought at the price of `total` assets for `supplyWithVirtual` shares
    ///         (virtual shares included) now: joined(count, price, markNow, markNow), in one flat function for
    ///         deposits and mints.
    function joinedNow(
        Position p,
        uint256 count,
        SupplyState s,
        uint256 total,
        uint256 supplyWithVirtual
    ) internal view returns (Position) {
        uint256 price;
        uint256 mark;
        unchecked {
            // Bounds as in priceOf and hurdleMark.
            price = ((total + 1) << PRICE_SHIFT) / supplyWithVirtual;
            uint256 sraw = SupplyState.unwrap(s);
            mark =
                ((sraw >> _SUPPLY_MARK) & _M64) + ((sraw >> _HURDLE) & _M16) * (block.timestamp - (sraw >> _MARKED_AT));
        }
        uint256 raw = Position.unwrap(p);
        uint256 held = raw & _M96;
        if (held == 0) return position(count, mark, price);
        count += held;
        if (count > _M96) revert PositionTooLarge(count, _M96);
        unchecked {
            // joined(count, price, mark, mark), flat; `count` is now the joined shares, `held` the value held at
            // its entry price, `price` the joined entry price (bounds as in joined).
            uint256 elapsed = mark - ((raw >> _MARK) & _M48);
            held *= raw >> _PRICE;
            // The blended entry price, rounded up, is what the position records (docs/slither-triage.md).
            // slither-disable-next-line divide-before-multiply
            price = (held + (count - (raw & _M96)) * price + count - 1) / count;
            raw = count * price;
            elapsed = raw == 0 ? 0 : (held * elapsed + raw - 1) / raw;
            return Position.wrap(count | ((mark - elapsed) << _MARK) | (price << _PRICE));
        }
    }

    /// @notice The settlement of `p` at the price of `total` assets for `supplyWithVirtual` shares (virtual shares
    ///         included): the `fee` shares it owes (feeShares), the assets they are worth rounded down, and the
    ///         position after it (entering anew at that price) or `p` itself when it owes nothing. One flat
    ///         function for redeems and withdraws.
    function settledNow(
        Position p,
        SupplyState s,
        uint256 total,
        uint256 supplyWithVirtual
    ) internal view returns (Position next, uint256 fee, uint256 feeAssets) {
        uint256 raw = Position.unwrap(p);
        uint256 sraw = SupplyState.unwrap(s);
        // Without a performance fee there is nothing to settle, and no arithmetic on the entry point to run.
        if ((sraw >> _PERFORMANCE) & _M16 == 0) return (p, 0, 0);
        unchecked {
            // Bounds as in priceOf and hurdleMark; the products are bounded below. No gain (the price, rounded
            // down, at most the entry price) is told apart without a division: (total + 1) << PRICE_SHIFT below
            // (entry + 1) * supplyWithVirtual (< 2**113 * 2**97).
            uint256 entry = raw >> _PRICE;
            if (((total + 1) << PRICE_SHIFT) < (entry + 1) * supplyWithVirtual) return (p, 0, 0);
            // The share price in fixed point, the unit every position records (docs/slither-triage.md).
            // slither-disable-next-line divide-before-multiply
            uint256 price = ((total + 1) << PRICE_SHIFT) / supplyWithVirtual;
            uint256 mark =
                ((sraw >> _SUPPLY_MARK) & _M64) + ((sraw >> _HURDLE) & _M16) * (block.timestamp - (sraw >> _MARKED_AT));
            uint256 held = raw & _M96;
            // The gain beyond the hurdle price entry * (1 + elapsed / HURDLE_DENOMINATOR), times the denominator,
            // without rounding the hurdle price. held * price <= (total + 1) << PRICE_SHIFT < 2**132 (held is part
            // of the supply), entry < price here and the accumulator < 2**48: every product stays below 2**200.
            uint256 gained = held * price * HURDLE_DENOMINATOR;
            uint256 hurdle = held * entry * (HURDLE_DENOMINATOR + mark - ((raw >> _MARK) & _M48));
            if (gained <= hurdle) return (p, 0, 0);
            // The fee in shares: a division by the price it was computed at, not a loss of precision to avoid
            // (docs/slither-triage.md).
            // slither-disable-next-line divide-before-multiply
            fee = ((gained - hurdle) * ((sraw >> _PERFORMANCE) & _M16)) / (price * HURDLE_DENOMINATOR * _BPS);
            // A position whose fee rounds to nothing is left as it is, so that the hurdle it earned carries on.
            if (fee > 0) {
                // fee <= held <= supply: the assets are at most total.
                feeAssets = (fee * (total + 1)) / supplyWithVirtual;
                next = Position.wrap((held - fee) | (mark << _MARK) | (price << _PRICE));
            } else {
                next = p;
            }
        }
    }
}
