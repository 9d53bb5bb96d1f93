#include "ropetables.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace pe {

namespace {

// One table entry: cos or sin of p * theta, as HF's forward computes emb.cos() / emb.sin().
double entry(const std::vector<double> &theta, RopeTableKind kind, RopePairing pairing,
             double position, qint64 column)
{
    const RopeColumn c = ropeTableColumn(kind, pairing, qint64(theta.size()), column);
    const double angle = position * theta[std::size_t(c.pair)];
    return c.cosine ? std::cos(angle) : std::sin(angle);
}

} // namespace

RopeColumn ropeTableColumn(RopeTableKind kind, RopePairing pairing, qint64 frequencyCount,
                           qint64 column)
{
    RopeColumn out;
    if (pairing == RopePairing::Half) {
        out.pair = column < frequencyCount ? column : column - frequencyCount;
        out.cosine =
            kind == RopeTableKind::CosSin ? column < frequencyCount : kind == RopeTableKind::Cos;
    } else {
        out.pair = column / 2;
        out.cosine = kind == RopeTableKind::CosSin ? column % 2 == 0 : kind == RopeTableKind::Cos;
    }
    return out;
}

qint64 ropeTableColumns(qint64 headDim, const RopeConfig &config)
{
    return 2 * ropeFrequencyCount(headDim, config);
}

namespace {

template <typename Position>
RopeTable buildTable(qint64 headDim, const RopeConfig &config, RopeTableKind kind, qint64 rows,
                     bool scaled, Position position)
{
    const RopeFrequencies frequencies = ropeInverseFrequencies(headDim, config);
    if (frequencies.inverseFrequencies.empty() || rows < 0)
        return {};
    RopeTable table;
    table.rows = rows;
    table.columns = 2 * qint64(frequencies.inverseFrequencies.size());
    table.values.resize(std::size_t(table.rows * table.columns));
    const double scale = scaled ? frequencies.attentionFactor : 1.0;
    for (qint64 r = 0; r < table.rows; ++r) {
        const double p = double(position(r));
        for (qint64 c = 0; c < table.columns; ++c)
            table.values[std::size_t(r * table.columns + c)] =
                entry(frequencies.inverseFrequencies, kind, config.pairing, p, c) * scale;
    }
    return table;
}

} // namespace

RopeTable ropeTable(qint64 headDim, const RopeConfig &config, RopeTableKind kind, qint64 positions,
                    bool scaled)
{
    return buildTable(headDim, config, kind, positions, scaled, [](qint64 r) { return r; });
}

RopeTable ropeTableRows(qint64 headDim, const RopeConfig &config, RopeTableKind kind,
                        std::span<const qint64> positionIds, bool scaled)
{
    return buildTable(headDim, config, kind, qint64(positionIds.size()), scaled,
                      [&](qint64 r) { return positionIds[std::size_t(r)]; });
}

RopeTable ropeTableAt(qint64 headDim, const RopeConfig &config, RopeTableKind kind,
                      std::span<const double> positions, bool scaled)
{
    return buildTable(headDim, config, kind, qint64(positions.size()), scaled,
                      [&](qint64 r) { return positions[std::size_t(r)]; });
}

std::uint64_t ropeTurnsStep(double omega)
{
    // Only the fractional turn matters: the phase is taken modulo one turn anyway.
    double turns = omega / (2.0 * std::numbers::pi);
    turns -= std::floor(turns);
    return std::uint64_t(std::ldexp(turns, 64));
}

std::vector<kernels::ColumnPhase> ropeColumnPhases(qint64 headDim, const RopeConfig &config,
                                                   RopeTableKind kind)
{
    const RopeFrequencies frequencies = ropeInverseFrequencies(headDim, config);
    const std::vector<double> &theta = frequencies.inverseFrequencies;
    if (theta.empty())
        return {};
    const qint64 count = qint64(theta.size());
    const qint64 rotary = 2 * count;
    const qint64 total = std::max(headDim, rotary);
    const bool interleaved = config.pairing == RopePairing::Interleaved;
    std::vector<kernels::ColumnPhase> columns(std::size_t(total), kernels::ColumnPhase{});
    for (qint64 j = 0; j < total; ++j) {
        bool cosine = false;
        if (j < rotary) {
            const RopeColumn c = ropeTableColumn(kind, config.pairing, count, j);
            columns[std::size_t(j)].step = ropeTurnsStep(theta[std::size_t(c.pair)]);
            cosine = c.cosine;
        } else if (kind == RopeTableKind::CosSin) {
            // Identity rotation: theta = 0 pairs, cos(0) = 1 in cos slots, sin(0) = 0.
            const qint64 k = j - rotary;
            cosine = interleaved ? k % 2 == 0 : k < (total - rotary) / 2;
        } else {
            cosine = kind == RopeTableKind::Cos;
        }
        columns[std::size_t(j)].offset = cosine ? kernels::quarterTurn : 0;
    }
    return columns;
}

QString ropeMropeProblem(qint64 headDim, const RopeConfig &config)
{
    const QList<qint64> &section = config.mropeSection;
    if (section.empty())
        return {};
    const auto text = [&]() -> QString {
        QStringList parts;
        for (qint64 s : section)
            parts << QString::number(s);
        return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
    };
    if (section.size() != 3)
        return QStringLiteral("mrope_section must have 3 entries (temporal, height, width pairs); "
                              "got %1")
            .arg(text());
    // Each entry's bounds are the field table's (ropefields.h), checked before.
    const qint64 sum = std::accumulate(section.begin(), section.end(), qint64(0));
    // apply_multimodal_rotary_pos_emb splits cos by mrope_section * 2: the sections must cover
    // the frequencies exactly. Qwen3-VL's interleaved slices clip and need no such match.
    const qint64 count = ropeFrequencyCount(headDim, config);
    if (!config.mropeInterleaved && sum != count)
        return QStringLiteral("mrope_section %1 covers %2 pairs, but the head rotates %3")
            .arg(text())
            .arg(sum)
            .arg(count);
    return {};
}

std::vector<MropeAxis> ropeMropeAxes(qint64 headDim, const RopeConfig &config)
{
    const qint64 count = std::max<qint64>(ropeFrequencyCount(headDim, config), 0);
    std::vector<MropeAxis> axes(std::size_t(count), MropeAxis::Temporal);
    const QList<qint64> &section = config.mropeSection;
    if (section.size() != 3)
        return axes;
    for (qint64 i = 0; i < count; ++i) {
        MropeAxis &axis = axes[std::size_t(i)];
        if (config.mropeInterleaved) {
            // freqs_t[..., offset:3 * mrope_section[dim]:3] = freqs[dim, ...] for H (1), W (2)
            if (i % 3 == 1 && i < 3 * section[1])
                axis = MropeAxis::Height;
            else if (i % 3 == 2 && i < 3 * section[2])
                axis = MropeAxis::Width;
        } else if (i >= section[0] + section[1]) {
            axis = MropeAxis::Width;
        } else if (i >= section[0]) {
            axis = MropeAxis::Height;
        }
    }
    return axes;
}

RopeTable ropeMropeTable(qint64 headDim, const RopeConfig &config, RopeTableKind kind,
                         std::span<const MropePositionIds> ids, bool scaled)
{
    const RopeFrequencies frequencies = ropeInverseFrequencies(headDim, config);
    const std::vector<double> &theta = frequencies.inverseFrequencies;
    if (theta.empty())
        return {};
    const std::vector<MropeAxis> axes = ropeMropeAxes(headDim, config);
    RopeTable table;
    table.rows = qint64(ids.size());
    table.columns = 2 * qint64(theta.size());
    table.values.resize(std::size_t(table.rows * table.columns));
    const double scale = scaled ? frequencies.attentionFactor : 1.0;
    for (qint64 r = 0; r < table.rows; ++r) {
        const MropePositionIds &id = ids[std::size_t(r)];
        for (qint64 c = 0; c < table.columns; ++c) {
            const RopeColumn column =
                ropeTableColumn(kind, config.pairing, qint64(theta.size()), c);
            const MropeAxis axis = axes[std::size_t(column.pair)];
            const qint64 position = axis == MropeAxis::Temporal ? id.temporal
                                    : axis == MropeAxis::Height ? id.height
                                                                : id.width;
            const double angle = double(position) * theta[std::size_t(column.pair)];
            table.values[std::size_t(r * table.columns + c)] =
                (column.cosine ? std::cos(angle) : std::sin(angle)) * scale;
        }
    }
    return table;
}

} // namespace pe
