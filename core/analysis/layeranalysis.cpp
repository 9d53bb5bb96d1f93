#include "analysis/layeranalysis.h"

#include "backends/parallel.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace pe::analysis {

namespace {

LayerZeroArray zeros(std::vector<qint64> shape)
{
    LayerZeroArray out;
    qint64 count = 1;
    for (const qint64 n : shape)
        count *= n;
    out.shape = std::move(shape);
    out.values.assign(std::size_t(std::max<qint64>(count, 0)), 0.0f);
    return out;
}

// One head's tokens x tokens probabilities.
struct Head
{
    const float *a;
    qint64 n;
    double at(qint64 i, qint64 j) const { return double(a[i * n + j]); }
};

// Calls body(layer, head, Head) for every head of {layers, heads, tokens, tokens}.
template <typename Body> void forEachHead(const LayerZeroArray &attentions, Body body)
{
    const qint64 layers = attentions.shape.at(0), heads = attentions.shape.at(1);
    const qint64 n = attentions.shape.at(2);
    for (qint64 l = 0; l < layers; ++l)
        for (qint64 h = 0; h < heads; ++h)
            body(l, h, Head{attentions.values.data() + (l * heads + h) * n * n, n});
}

} // namespace

LayerZeroArray distanceProfile(const LayerZeroArray &attentions)
{
    const qint64 n = attentions.shape.at(2);
    LayerZeroArray out = zeros({attentions.shape.at(0), attentions.shape.at(1), n});
    forEachHead(attentions, [&](qint64 l, qint64 h, Head a) {
        float *row = out.values.data() + (l * attentions.shape[1] + h) * n;
        for (qint64 d = 0; d < n; ++d) {
            double sum = 0;
            for (qint64 i = d; i < n; ++i)
                sum += a.at(i, i - d);
            row[d] = float(sum / double(n - d));
        }
    });
    return out;
}

LayerZeroArray headScores(const LayerZeroArray &attentions, qint64 window, double epsilon)
{
    const qint64 n = attentions.shape.at(2);
    LayerZeroArray out = zeros({attentions.shape.at(0), attentions.shape.at(1), HeadScoreCount});
    forEachHead(attentions, [&](qint64 l, qint64 h, Head a) {
        double previous = 0, self = 0, first = 0, local = 0;
        for (qint64 i = 0; i < n; ++i) {
            if (i >= 1)
                previous += a.at(i, i - 1);
            self += a.at(i, i);
            first += a.at(i, 0);
            for (qint64 j = std::max<qint64>(0, i - window + 1); j <= i; ++j)
                local += a.at(i, j);
        }
        float *row = out.values.data() + (l * attentions.shape[1] + h) * HeadScoreCount;
        row[PreviousToken] = n > 1 ? float(previous / double(n - 1)) : 0.0f;
        row[SelfToken] = float(self / double(n));
        row[FirstToken] = float(first / double(n));
        row[LocalWindow] = float(local / double(n));
        row[SinkHead] = first / double(n) > epsilon ? 1.0f : 0.0f;
    });
    return out;
}

LayerZeroArray sinkRate(const LayerZeroArray &scores)
{
    const qint64 layers = scores.shape.at(0), heads = scores.shape.at(1);
    LayerZeroArray out = zeros({layers});
    for (qint64 l = 0; l < layers; ++l) {
        double sinks = 0;
        for (qint64 h = 0; h < heads; ++h)
            sinks += scores.values[std::size_t((l * heads + h) * HeadScoreCount + SinkHead)];
        out.values[std::size_t(l)] = heads > 0 ? float(sinks / double(heads)) : 0.0f;
    }
    return out;
}

std::vector<std::pair<qint64, qint64>> rotaryPairs(qint64 rotaryDims, bool interleaved)
{
    std::vector<std::pair<qint64, qint64>> pairs;
    const qint64 half = rotaryDims / 2;
    for (qint64 p = 0; p < half; ++p)
        pairs.emplace_back(interleaved ? 2 * p : p, interleaved ? 2 * p + 1 : p + half);
    return pairs;
}

std::vector<double> pairContributions(std::span<const float> query, std::span<const float> key,
                                      const std::vector<std::pair<qint64, qint64>> &pairs)
{
    std::vector<double> out;
    out.reserve(pairs.size());
    for (const auto &[a, b] : pairs)
        out.push_back(double(query[std::size_t(a)]) * double(key[std::size_t(a)]) +
                      double(query[std::size_t(b)]) * double(key[std::size_t(b)]));
    return out;
}

namespace {

// The dims of a head outside every pair (partial rotary), in order.
std::vector<qint64> unpairedDims(qint64 headDim,
                                 const std::vector<std::pair<qint64, qint64>> &pairs)
{
    std::vector<bool> used(std::size_t(headDim), false);
    for (const auto &[a, b] : pairs) {
        used[std::size_t(a)] = true;
        used[std::size_t(b)] = true;
    }
    std::vector<qint64> rest;
    for (qint64 c = 0; c < headDim; ++c)
        if (!used[std::size_t(c)])
            rest.push_back(c);
    return rest;
}

} // namespace

LayerZeroArray frequencyAtlas(const LayerZeroArray &queries, const LayerZeroArray &keys,
                              const std::vector<std::pair<qint64, qint64>> &pairs, bool causal)
{
    const qint64 layers = queries.shape.at(0), heads = queries.shape.at(1);
    const qint64 n = queries.shape.at(2), hd = queries.shape.at(3);
    const qint64 kvHeads = keys.shape.at(1);
    const std::vector<qint64> rest = unpairedDims(hd, pairs);
    const qint64 pairCount = qint64(pairs.size());
    const qint64 columns = pairCount + (rest.empty() ? 0 : 1);
    LayerZeroArray out = zeros({layers, heads, columns});
    if (heads == 0 || kvHeads == 0 || columns == 0)
        return out;
    const qint64 group = std::max<qint64>(1, heads / kvHeads);
    // Every (layer, head) on its own: spread over threads (a head's sums stay in one thread, so
    // the numbers do not depend on the thread count).
    parallelFor(0, layers * heads, hardwareThreads(), 1, [&](qint64 lo, qint64 hi) {
        std::vector<double> sums(static_cast<std::size_t>(columns));
        for (qint64 lh = lo; lh < hi; ++lh) {
            const qint64 l = lh / heads, h = lh % heads;
            const float *q = queries.values.data() + lh * n * hd;
            const float *k = keys.values.data() + (l * kvHeads + h / group) * n * hd;
            std::fill(sums.begin(), sums.end(), 0.0);
            for (qint64 i = 0; i < n; ++i)
                for (qint64 j = 0; j < (causal ? i + 1 : n); ++j) {
                    // pairContributions(), without a vector per query-key pair.
                    const float *qi = q + i * hd, *kj = k + j * hd;
                    for (qint64 p = 0; p < pairCount; ++p) {
                        const auto [a, b] = pairs[std::size_t(p)];
                        sums[std::size_t(p)] +=
                            std::abs(double(qi[a]) * double(kj[a]) + double(qi[b]) * double(kj[b]));
                    }
                    double other = 0;
                    for (const qint64 c0 : rest)
                        other += double(qi[c0]) * double(kj[c0]);
                    if (!rest.empty())
                        sums.back() += std::abs(other);
                }
            // The mean's count is the same for every column: it cancels in the share.
            const double total = std::accumulate(sums.begin(), sums.end(), 0.0);
            float *row = out.values.data() + lh * columns;
            for (qint64 p = 0; p < columns; ++p)
                row[p] = total > 0 ? float(sums[std::size_t(p)] / total) : 0.0f;
        }
    });
    return out;
}

LayerZeroArray hiddenNorms(const LayerZeroArray &hiddenStates)
{
    const qint64 layers = hiddenStates.shape.at(0), n = hiddenStates.shape.at(1);
    const qint64 width = hiddenStates.shape.at(2);
    LayerZeroArray out = zeros({layers, n});
    for (qint64 r = 0; r < layers * n; ++r) {
        double sum = 0;
        for (qint64 c = 0; c < width; ++c) {
            const double v = hiddenStates.values[std::size_t(r * width + c)];
            sum += v * v;
        }
        out.values[std::size_t(r)] = float(std::sqrt(sum));
    }
    return out;
}

LayerZeroArray topActivations(const LayerZeroArray &hiddenStates, qint64 k)
{
    const qint64 layers = hiddenStates.shape.at(0), n = hiddenStates.shape.at(1);
    const qint64 width = hiddenStates.shape.at(2), count = n * width;
    k = std::clamp<qint64>(k, 0, count);
    LayerZeroArray out = zeros({layers, k, 4});
    std::vector<qint64> order(static_cast<std::size_t>(count));
    std::vector<float> magnitude(static_cast<std::size_t>(count));
    for (qint64 l = 0; l < layers; ++l) {
        const float *x = hiddenStates.values.data() + l * count;
        for (qint64 i = 0; i < count; ++i)
            magnitude[std::size_t(i)] = std::abs(x[i]);
        std::iota(order.begin(), order.end(), qint64(0));
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](qint64 a, qint64 b) {
            const float ma = magnitude[std::size_t(a)], mb = magnitude[std::size_t(b)];
            return ma != mb ? ma > mb : a < b;
        });
        std::vector<float> sorted = magnitude;
        const auto middle = sorted.begin() + count / 2;
        std::nth_element(sorted.begin(), middle, sorted.end());
        double median = *middle;
        if (count % 2 == 0) { // the mean of the two middle values, as numpy.median
            median = (median + double(*std::max_element(sorted.begin(), middle))) / 2;
        }
        for (qint64 r = 0; r < k; ++r) {
            const qint64 i = order[std::size_t(r)];
            float *row = out.values.data() + (l * k + r) * 4;
            const qint64 token = i / width, dim = i % width; // whole numbers, exact in float32
            row[0] = x[i];
            row[1] = float(token);
            row[2] = float(dim);
            row[3] = median > 0 ? float(double(magnitude[std::size_t(i)]) / median)
                                : std::numeric_limits<float>::infinity();
        }
    }
    return out;
}

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct EigenFit
{
    Eigen::VectorXd weights;
    double intercept = 0;
};

EigenFit fitRidge(const Matrix &x, const Eigen::VectorXd &y, double lambda)
{
    const Eigen::RowVectorXd meanX = x.colwise().mean();
    const double meanY = y.mean();
    const Matrix centred = x.rowwise() - meanX;
    Eigen::MatrixXd gram = centred.transpose() * centred;
    gram.diagonal().array() += lambda;
    EigenFit fit;
    fit.weights = gram.ldlt().solve(centred.transpose() * (y.array() - meanY).matrix());
    fit.intercept = meanY - meanX.dot(fit.weights);
    return fit;
}

double crossValidated(const Matrix &x, const Eigen::VectorXd &y, double lambda, int folds)
{
    const Eigen::Index rows = x.rows();
    Eigen::VectorXd predicted = Eigen::VectorXd::Constant(rows, y.mean());
    for (int f = 0; f < folds; ++f) {
        std::vector<Eigen::Index> train, test;
        for (Eigen::Index r = 0; r < rows; ++r)
            (r % folds == f ? test : train).push_back(r);
        if (test.empty() || train.empty())
            continue;
        const EigenFit fit = fitRidge(x(train, Eigen::placeholders::all), y(train), lambda);
        for (const Eigen::Index r : test)
            predicted(r) = x.row(r).dot(fit.weights) + fit.intercept;
    }
    const double total = (y.array() - y.mean()).square().sum();
    const double residual = (y - predicted).squaredNorm();
    return total > 0 ? 1.0 - residual / total : 0.0;
}

Matrix matrixOf(std::span<const double> x, qint64 columns, std::size_t rows)
{
    return Eigen::Map<const Matrix>(x.data(), Eigen::Index(rows), Eigen::Index(columns));
}

} // namespace

RidgeFit ridgeFit(std::span<const double> x, qint64 columns, std::span<const double> y,
                  double lambda)
{
    const Eigen::Map<const Eigen::VectorXd> target(y.data(), Eigen::Index(y.size()));
    const EigenFit fit = fitRidge(matrixOf(x, columns, y.size()), target, lambda);
    return {std::vector<double>(fit.weights.begin(), fit.weights.end()), fit.intercept};
}

double crossValidatedR2(std::span<const double> x, qint64 columns, std::span<const double> y,
                        double lambda, int folds)
{
    const Eigen::Map<const Eigen::VectorXd> target(y.data(), Eigen::Index(y.size()));
    return crossValidated(matrixOf(x, columns, y.size()), target, lambda, folds);
}

LayerZeroArray positionProbe(const LayerZeroArray &hiddenStates, double lambda, int folds)
{
    const qint64 layers = hiddenStates.shape.at(0), n = hiddenStates.shape.at(1);
    const qint64 width = hiddenStates.shape.at(2);
    LayerZeroArray out = zeros({layers});
    if (n < std::max(folds, 2))
        return out;
    const Eigen::VectorXd position = Eigen::VectorXd::LinSpaced(n, 0.0, double(n - 1));
    for (qint64 l = 0; l < layers; ++l) {
        const Eigen::Map<
            const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
            states(hiddenStates.values.data() + l * n * width, n, width);
        out.values[std::size_t(l)] =
            float(crossValidated(states.cast<double>(), position, lambda, folds));
    }
    return out;
}

} // namespace pe::analysis
