#include "analysis/attentionheads.h"

#include <algorithm>

namespace pe {

std::vector<float> headAttention(std::span<const float> attention, qint64 heads, qint64 tokens,
                                 int head)
{
    const qint64 cells = tokens * tokens;
    if (heads <= 0 || tokens < 0 || qint64(attention.size()) != heads * cells ||
        head < meanOfAttentionHeads || head >= heads)
        return {};
    std::vector<float> out(std::size_t(cells), 0.0f);
    if (head != meanOfAttentionHeads) {
        const auto begin = attention.begin() + qsizetype(head) * cells;
        std::copy(begin, begin + cells, out.begin());
        return out;
    }
    // In float64, so that the mean of many heads loses no more than its final rounding.
    std::vector<double> sum(std::size_t(cells), 0.0);
    for (qint64 h = 0; h < heads; ++h)
        for (qint64 i = 0; i < cells; ++i)
            sum[std::size_t(i)] += double(attention[std::size_t(h * cells + i)]);
    for (qint64 i = 0; i < cells; ++i)
        out[std::size_t(i)] = float(sum[std::size_t(i)] / double(heads));
    return out;
}

std::vector<float> attentionDifference(std::span<const float> with, std::span<const float> without)
{
    if (with.size() != without.size())
        return {};
    std::vector<float> out(with.size());
    for (std::size_t i = 0; i < with.size(); ++i)
        out[i] = with[i] - without[i];
    return out;
}

} // namespace pe
