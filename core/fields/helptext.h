// Help text that quotes a constant, built at compile time: a field's help (field.h takes a
// `const char *`) can name a default such as YaRN's β ("0: 32") from the constant the rules
// compute with, so the sentence and the rule cannot disagree.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>

namespace pe {

// `before`, the decimal digits of the whole number `value`, then `after`, as one NUL-terminated
// string (what follows the text is NUL too): data() is the help. A `value` that is not a whole
// number from 0 to 10^15 fails to compile when the result is constexpr.
template <std::size_t Before, std::size_t After>
constexpr std::array<char, Before + After + 16>
helpQuoting(const char (&before)[Before], double value, const char (&after)[After])
{
    constexpr long long limit = 1'000'000'000'000'000; // 10^15: 16 digits at most
    if (!(value >= 0.0 && value < double(limit)) || value != double(static_cast<long long>(value)))
        throw std::invalid_argument("helpQuoting: not a whole number from 0 to 10^15");
    std::array<char, Before + After + 16> text{};
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < Before; ++i)
        text[at++] = before[i];
    const auto whole = static_cast<long long>(value);
    long long scale = 1;
    while (scale <= whole / 10)
        scale *= 10;
    for (; scale > 0; scale /= 10)
        text[at++] = char('0' + (whole / scale) % 10);
    for (std::size_t i = 0; i + 1 < After; ++i)
        text[at++] = after[i];
    return text;
}

} // namespace pe
