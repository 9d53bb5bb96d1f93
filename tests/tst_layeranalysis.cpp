// pe::analysis (core/analysis/layeranalysis.h): what positions do per layer and head. Every
// number against an independent float64 loop (layerreference.h) over transformers' own arrays
// (tests/data/models-layers/*/ref), the probe against closed-form ridge solutions, the frequency
// atlas against the identity sum of pair contributions = q.k and against transformers' attention.
#include "analysis/forwardanalysis.h"
#include "analysis/layeranalysis.h"
#include "model/forwardpass.h"

#include "forwardreference.h"
#include "layerreference.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace pe;
using namespace pe::test;

namespace {

LayerZeroArray asArray(const Array &a)
{
    return {a.shape, a.values, {}};
}

void addModels()
{
    QTest::addColumn<QString>("model");
    for (const char *model : {"gpt2-tiny4", "llama-tiny4", "qwen3-tiny4", "neox-tiny4"})
        QTest::newRow(model) << QString::fromLatin1(model);
}

} // namespace

class TestLayerAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void attentionScores_data() { addModels(); }
    void attentionScores();
    void hiddenStateScores_data() { addModels(); }
    void hiddenStateScores();
    void knownHeads();
    void atlasIdentity_data();
    void atlasIdentity();
    void atlasOnePair();
    void ridgeClosedForm();
    void crossValidationClosedForm();
    void probeKnownAnswers();
    void analysesRefused();
    void withoutPositions();
};

// Distance profile and head scores: of transformers' attentions against the loop; and of
// pescope's own pass (computeLayerAnalysis) against the same loop, within the pass's bound.
void TestLayerAnalysis::attentionScores()
{
    QFETCH(QString, model);
    const QString folder = layersFolder(model);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    for (const QJsonValue c : phraseCases(folder)) {
        const QJsonObject phrase = c.toObject();
        const Array attn = reference(folder, phrase, "attn");
        QCOMPARE(attn.shape.size(), std::size_t(4));
        const qint64 layers = attn.shape[0], heads = attn.shape[1], n = attn.shape[2];
        const std::vector<double> distance = referenceDistance(attn.values, layers, heads, n);
        const std::vector<double> scores = referenceHeadScores(attn.values, layers, heads, n, 8);
        const LayerZeroArray d = analysis::distanceProfile(asArray(attn));
        QCOMPARE(d.shape, (std::vector<qint64>{layers, heads, n}));
        QVERIFY(largestDifference(d.values, distance) < 1e-6);
        const LayerZeroArray s = analysis::headScores(asArray(attn));
        QCOMPARE(s.shape, (std::vector<qint64>{layers, heads, 5}));
        QVERIFY(largestDifference(s.values, scores) < 1e-6);
        // Through the pass: the same numbers from pescope's attentions.
        const std::vector<int> ids = idsOf(phrase);
        const std::optional<ForwardResult> result =
            pass->run(ids, forwardOptionsFor(LayerAnalysis::Distance, true), &error);
        QVERIFY2(result, qPrintable(error));
        QVERIFY(result->hiddenStates.values.empty() && result->logits.values.empty());
        for (const LayerAnalysis what : {LayerAnalysis::Distance, LayerAnalysis::HeadScores}) {
            const std::optional<LayerZeroArray> ours =
                computeLayerAnalysis(*pass, *result, what, {}, &error);
            QVERIFY2(ours, qPrintable(error));
            const std::vector<double> &expected =
                what == LayerAnalysis::Distance ? distance : scores;
            // A sink flag could flip where the first-token share is within 2.5e-5 of 0.3.
            QVERIFY(largestDifference(ours->values, expected) < 2.5e-5);
        }
    }
}

// Norms and the largest activations of transformers' hidden states against the loop; the pass's
// own through computeLayerAnalysis.
void TestLayerAnalysis::hiddenStateScores()
{
    QFETCH(QString, model);
    const QString folder = layersFolder(model);
    for (const QJsonValue c : phraseCases(folder)) {
        const QJsonObject phrase = c.toObject();
        const Array hidden = reference(folder, phrase, "hidden");
        const qint64 layers = hidden.shape[0], n = hidden.shape[1], width = hidden.shape[2];
        const LayerZeroArray norms = analysis::hiddenNorms(asArray(hidden));
        QCOMPARE(norms.shape, (std::vector<qint64>{layers, n}));
        const std::vector<double> expected = referenceNorms(hidden.values, width);
        for (std::size_t i = 0; i < expected.size(); ++i)
            QVERIFY(std::abs(norms.values[i] - expected[i]) <= 1e-6 * expected[i]);
        const qint64 k = 3;
        const LayerZeroArray top = analysis::topActivations(asArray(hidden), k);
        QCOMPARE(top.shape, (std::vector<qint64>{layers, k, 4}));
        for (qint64 l = 0; l < layers; ++l) {
            const float *x = hidden.values.data() + l * n * width;
            // Every index by |value|, largest first (a stable sort: ties by index).
            std::vector<qint64> order(std::size_t(n * width));
            for (qint64 i = 0; i < n * width; ++i)
                order[std::size_t(i)] = i;
            std::stable_sort(order.begin(), order.end(),
                             [&](qint64 a, qint64 b) { return std::abs(x[a]) > std::abs(x[b]); });
            const double median = referenceMedianAbs(x, n * width);
            for (qint64 r = 0; r < k; ++r) {
                const qint64 i = order[std::size_t(r)];
                const float *row = top.values.data() + (l * k + r) * 4;
                QCOMPARE(row[0], x[i]);
                QCOMPARE(qint64(row[1]), i / width);
                QCOMPARE(qint64(row[2]), i % width);
                QVERIFY(std::abs(row[3] - std::abs(x[i]) / median) <= 1e-6 * row[3]);
            }
        }
    }
}

// Heads whose answer is known by construction.
void TestLayerAnalysis::knownHeads()
{
    const qint64 n = 8; // head 2's first-token share, 2/8, stays below 0.3
    LayerZeroArray attn{{1, 3, n, n}, std::vector<float>(std::size_t(3 * n * n), 0.0f), {}};
    for (qint64 i = 0; i < n; ++i) {
        attn.values[std::size_t(i * n + 0)] = 1;         // head 0: the sink
        attn.values[std::size_t(n * n + i * n + i)] = 1; // head 1: itself
        // head 2: the previous token (the first query itself)
        attn.values[std::size_t(2 * n * n + i * n + std::max<qint64>(i - 1, 0))] = 1;
    }
    const LayerZeroArray s = analysis::headScores(attn, 2);
    const auto at = [&](qint64 h, int c) { return s.values[std::size_t(h * 5 + c)]; };
    QCOMPARE(at(0, analysis::FirstToken), 1.0f);
    QCOMPARE(at(0, analysis::SinkHead), 1.0f);
    QCOMPARE(at(1, analysis::SelfToken), 1.0f);
    QCOMPARE(at(1, analysis::SinkHead), 0.0f); // first-token share 1/8 <= 0.3
    QCOMPARE(at(2, analysis::FirstToken), 0.25f);
    QCOMPARE(at(2, analysis::SinkHead), 0.0f);
    QCOMPARE(at(2, analysis::PreviousToken), 1.0f);
    QCOMPARE(at(2, analysis::LocalWindow), 1.0f);
    QCOMPARE(at(0, analysis::LocalWindow), 2.0f / 8.0f); // only queries 0 and 1 see token 0
    const LayerZeroArray rate = analysis::sinkRate(s);
    QCOMPARE(rate.shape, std::vector<qint64>{1});
    QCOMPARE(rate.values[0], 1.0f / 3.0f);
    const LayerZeroArray d = analysis::distanceProfile(attn);
    QCOMPARE(d.values[std::size_t(n + 0)], 1.0f);     // head 1 at offset 0
    QCOMPARE(d.values[std::size_t(2 * n + 1)], 1.0f); // head 2 at offset 1
}

void TestLayerAnalysis::atlasIdentity_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<qint64>("rotary");
    QTest::newRow("llama (GQA)") << QStringLiteral("llama-tiny4") << qint64(16);
    QTest::newRow("qwen3 (q/k norms)") << QStringLiteral("qwen3-tiny4") << qint64(16);
    QTest::newRow("neox (partial rotary)") << QStringLiteral("neox-tiny4") << qint64(4);
}

// The kept queries and keys are the scored ones: softmax(q.k / sqrt(d), causal) is transformers'
// attention; the pair contributions (and the values outside the pairs) sum to q.k; each head's
// atlas row sums to 1.
void TestLayerAnalysis::atlasIdentity()
{
    QFETCH(QString, model);
    QFETCH(qint64, rotary);
    const QString folder = layersFolder(model);
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    QCOMPARE(pass->rotaryDims(), rotary);
    QVERIFY(!pass->interleavedRotary());
    const QJsonObject phrase = phraseCases(folder).at(1).toObject();
    const std::vector<int> ids = idsOf(phrase);
    const std::optional<ForwardResult> r =
        pass->run(ids, forwardOptionsFor(LayerAnalysis::FrequencyAtlas, true), &error);
    QVERIFY2(r, qPrintable(error));
    const Array attn = reference(folder, phrase, "attn");
    const qint64 layers = 4, heads = pass->heads(), kv = pass->kvHeads(), hd = pass->headDim();
    const auto n = qint64(ids.size());
    QCOMPARE(r->queries.shape, (std::vector<qint64>{layers, heads, n, hd}));
    QCOMPARE(r->keys.shape, (std::vector<qint64>{layers, kv, n, hd}));
    const auto pairs = analysis::rotaryPairs(rotary, false);
    double worstSum = 0, worstAttention = 0;
    for (qint64 l = 0; l < layers; ++l)
        for (qint64 h = 0; h < heads; ++h) {
            const float *q = r->queries.values.data() + (l * heads + h) * n * hd;
            const float *k = r->keys.values.data() + (l * kv + h / (heads / kv)) * n * hd;
            for (qint64 i = 0; i < n; ++i) {
                std::vector<double> scores;
                for (qint64 j = 0; j <= i; ++j) {
                    double dot = 0;
                    for (qint64 c = 0; c < hd; ++c)
                        dot += double(q[i * hd + c]) * double(k[j * hd + c]);
                    const std::vector<double> parts = analysis::pairContributions(
                        {q + i * hd, std::size_t(hd)}, {k + j * hd, std::size_t(hd)}, pairs);
                    double sum = 0;
                    for (const double p : parts)
                        sum += p;
                    for (qint64 c = rotary; c < hd; ++c) // partial rotary: the rest pass through
                        sum += double(q[i * hd + c]) * double(k[j * hd + c]);
                    worstSum = std::max(worstSum, std::abs(sum - dot) / (1 + std::abs(dot)));
                    scores.push_back(dot / std::sqrt(double(hd)));
                }
                const double top = *std::max_element(scores.begin(), scores.end());
                double total = 0;
                for (double &s : scores)
                    total += (s = std::exp(s - top));
                for (qint64 j = 0; j < n; ++j) {
                    const double p = j <= i ? scores[std::size_t(j)] / total : 0.0;
                    const double theirs =
                        attn.values[std::size_t(((l * heads + h) * n + i) * n + j)];
                    worstAttention = std::max(worstAttention, std::abs(p - theirs));
                }
            }
        }
    qInfo("%s: pair sums %.3g from q.k, attention from q, k %.3g from transformers'",
          qPrintable(model), worstSum, worstAttention);
    QVERIFY(worstSum < 1e-12);
    QVERIFY(worstAttention < 2.5e-5);
    const std::optional<LayerZeroArray> atlas =
        computeLayerAnalysis(*pass, *r, LayerAnalysis::FrequencyAtlas, {}, &error);
    QVERIFY2(atlas, qPrintable(error));
    const qint64 columns = rotary / 2 + (rotary < hd ? 1 : 0);
    QCOMPARE(atlas->shape, (std::vector<qint64>{layers, heads, columns}));
    for (qint64 lh = 0; lh < layers * heads; ++lh) {
        double sum = 0;
        for (qint64 c = 0; c < columns; ++c)
            sum += atlas->values[std::size_t(lh * columns + c)];
        PE_COMPARE_NEAR(sum, 1.0, 1e-6);
    }
}

// A head whose queries and keys live in one pair only: share 1 there, 0 elsewhere, in either
// layout; with partial rotary the values outside the pairs are the last column.
void TestLayerAnalysis::atlasOnePair()
{
    const qint64 n = 5, hd = 8;
    std::mt19937 random(7);
    std::normal_distribution<float> normal;
    for (const bool interleaved : {false, true}) {
        const auto pairs = analysis::rotaryPairs(hd, interleaved);
        QCOMPARE(pairs.size(), std::size_t(4));
        QCOMPARE(pairs[1],
                 (interleaved ? std::pair<qint64, qint64>{2, 3} : std::pair<qint64, qint64>{1, 5}));
        LayerZeroArray q{{1, 2, n, hd}, std::vector<float>(std::size_t(2 * n * hd), 0.0f), {}};
        LayerZeroArray k{{1, 1, n, hd}, std::vector<float>(std::size_t(n * hd), 0.0f), {}};
        for (qint64 t = 0; t < n; ++t)
            for (const qint64 c : {pairs[2].first, pairs[2].second}) {
                q.values[std::size_t(t * hd + c)] = normal(random);          // head 0
                q.values[std::size_t(n * hd + t * hd + c)] = normal(random); // head 1 (GQA)
                k.values[std::size_t(t * hd + c)] = normal(random);
            }
        const LayerZeroArray atlas = analysis::frequencyAtlas(q, k, pairs, true);
        QCOMPARE(atlas.shape, (std::vector<qint64>{1, 2, 4}));
        for (qint64 h = 0; h < 2; ++h)
            for (qint64 p = 0; p < 4; ++p)
                QCOMPARE(atlas.values[std::size_t(h * 4 + p)], p == 2 ? 1.0f : 0.0f);
    }
    // Partial rotary (4 of 8 dims): q, k only outside the pairs.
    LayerZeroArray q{{1, 1, n, hd}, std::vector<float>(std::size_t(n * hd), 0.0f), {}};
    LayerZeroArray k = q;
    for (qint64 t = 0; t < n; ++t) {
        q.values[std::size_t(t * hd + 6)] = normal(random);
        k.values[std::size_t(t * hd + 6)] = normal(random);
    }
    const LayerZeroArray atlas =
        analysis::frequencyAtlas(q, k, analysis::rotaryPairs(4, false), true);
    QCOMPARE(atlas.shape, (std::vector<qint64>{1, 1, 3}));
    QCOMPARE(atlas.values, (std::vector<float>{0, 0, 1}));
}

// ridgeFit against the dual form w = Xc^T (Xc Xc^T + lambda I)^-1 yc (the same minimiser,
// computed another way) and, with lambda = 0, the exact weights of y = X w + b.
void TestLayerAnalysis::ridgeClosedForm()
{
    std::mt19937 random(3);
    std::normal_distribution<double> normal;
    Eigen::MatrixXd x(12, 3);
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        for (Eigen::Index c = 0; c < x.cols(); ++c)
            x(r, c) = normal(random);
    const Eigen::Vector3d w(2.0, -1.0, 0.5);
    const Eigen::VectorXd y = (x * w).array() + 4.0;
    using Flat = std::vector<double>;
    const auto flat = [](const Eigen::MatrixXd &m) {
        Flat out;
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index c = 0; c < m.cols(); ++c)
                out.push_back(m(r, c));
        return out;
    };
    const auto vector = [](const Flat &v) {
        return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(v.data(), Eigen::Index(v.size())));
    };
    const Flat xs = flat(x);
    const analysis::RidgeFit exact = analysis::ridgeFit(xs, 3, flat(y), 0.0);
    QVERIFY((vector(exact.weights) - w).norm() < 1e-10);
    PE_COMPARE_NEAR(exact.intercept, 4.0, 1e-10);
    Eigen::VectorXd noisy = y;
    for (Eigen::Index r = 0; r < y.size(); ++r)
        noisy(r) += normal(random);
    const double lambda = 2.5;
    const analysis::RidgeFit fit = analysis::ridgeFit(xs, 3, flat(noisy), lambda);
    const Eigen::MatrixXd xc = x.rowwise() - x.colwise().mean();
    const Eigen::VectorXd yc = noisy.array() - noisy.mean();
    const Eigen::MatrixXd kernel =
        xc * xc.transpose() + lambda * Eigen::MatrixXd::Identity(x.rows(), x.rows());
    const Eigen::VectorXd dual = xc.transpose() * kernel.colPivHouseholderQr().solve(yc);
    QVERIFY((vector(fit.weights) - dual).norm() < 1e-10);
    PE_COMPARE_NEAR(fit.intercept, noisy.mean() - x.colwise().mean().dot(dual), 1e-10);
}

// One feature: ridge's slope is sum(xc yc) / (sum(xc^2) + lambda); the cross-validated R^2
// computed from that formula fold by fold (row r in fold r % 3) in the test.
void TestLayerAnalysis::crossValidationClosedForm()
{
    const std::vector<double> xs = {0.3, 1.1, 2.0, 2.9, 4.2, 5.1, 5.8, 7.3, 8.1, 9.4};
    const std::vector<double> ys = {1.0, 2.5, 4.1, 6.2, 8.0, 10.9, 11.7, 15.2, 16.1, 19.3};
    const double lambda = 3.0;
    const int folds = 3;
    std::vector<double> predicted(xs.size());
    for (int f = 0; f < folds; ++f) {
        double mx = 0, my = 0, count = 0;
        for (std::size_t r = 0; r < xs.size(); ++r)
            if (int(r) % folds != f) {
                mx += xs[r];
                my += ys[r];
                ++count;
            }
        mx /= count;
        my /= count;
        double sxy = 0, sxx = 0;
        for (std::size_t r = 0; r < xs.size(); ++r)
            if (int(r) % folds != f) {
                sxy += (xs[r] - mx) * (ys[r] - my);
                sxx += (xs[r] - mx) * (xs[r] - mx);
            }
        const double slope = sxy / (sxx + lambda);
        for (std::size_t r = 0; r < xs.size(); ++r)
            if (int(r) % folds == f)
                predicted[r] = my + slope * (xs[r] - mx);
    }
    double mean = 0;
    for (const double v : ys)
        mean += v / double(ys.size());
    double residual = 0, total = 0;
    for (std::size_t r = 0; r < ys.size(); ++r) {
        residual += (ys[r] - predicted[r]) * (ys[r] - predicted[r]);
        total += (ys[r] - mean) * (ys[r] - mean);
    }
    PE_COMPARE_NEAR(analysis::crossValidatedR2(xs, 1, ys, lambda, folds), 1 - residual / total,
                    1e-12);
}

// Hidden states where one dimension is the position: R^2 near 1; pure noise: far below.
void TestLayerAnalysis::probeKnownAnswers()
{
    const qint64 n = 40, width = 6;
    std::mt19937 random(11);
    std::normal_distribution<float> normal;
    LayerZeroArray hidden{{2, n, width}, std::vector<float>(std::size_t(2 * n * width)), {}};
    for (float &v : hidden.values)
        v = normal(random);
    for (qint64 t = 0; t < n; ++t)
        hidden.values[std::size_t(t * width + 2)] = float(3 * t) + 0.01f * normal(random);
    const LayerZeroArray r2 = analysis::positionProbe(hidden, 1e-3, 5);
    QCOMPARE(r2.shape, std::vector<qint64>{2});
    QVERIFY2(r2.values[0] > 0.999, qPrintable(QString::number(r2.values[0])));
    QVERIFY2(r2.values[1] < 0.3, qPrintable(QString::number(r2.values[1])));
}

// The atlas of a model without RoPE, the probe of fewer tokens than folds, an analysis of
// results the pass did not keep: refused by name.
void TestLayerAnalysis::analysesRefused()
{
    QString error;
    const std::unique_ptr<ForwardPass> gpt2 =
        ForwardPass::open(layersFolder(QStringLiteral("gpt2-tiny4")), &error);
    QVERIFY2(gpt2, qPrintable(error));
    QCOMPARE(gpt2->rotaryDims(), 0);
    const std::vector<int> ids = {1, 2, 3};
    const std::optional<ForwardResult> r =
        gpt2->run(ids, forwardOptionsFor(LayerAnalysis::FrequencyAtlas, true), &error);
    QVERIFY2(r, qPrintable(error));
    QVERIFY(!computeLayerAnalysis(*gpt2, *r, LayerAnalysis::FrequencyAtlas, {}, &error));
    QVERIFY2(error.contains(QLatin1String("no rotary positions")), qPrintable(error));
    QVERIFY(!computeLayerAnalysis(*gpt2, *r, LayerAnalysis::Distance, {}, &error));
    QVERIFY2(error.contains(QLatin1String("without the attentions")), qPrintable(error));
    const std::optional<ForwardResult> h =
        gpt2->run(ids, forwardOptionsFor(LayerAnalysis::Probe, true), &error);
    QVERIFY2(h, qPrintable(error));
    QVERIFY(!computeLayerAnalysis(*gpt2, *h, LayerAnalysis::Probe, {}, &error));
    QVERIFY2(error.contains(QLatin1String("at least 5 tokens")), qPrintable(error));
}

// Without positions the kept queries and keys are unrotated: they still give the pass's own
// attention (softmax of q.k / sqrt(d)), and the atlas differs from the rotated one. Without
// queriesKeys (the default) none are kept.
void TestLayerAnalysis::withoutPositions()
{
    const QString folder = layersFolder(QStringLiteral("llama-tiny4"));
    QString error;
    const std::unique_ptr<ForwardPass> pass = ForwardPass::open(folder, &error);
    QVERIFY2(pass, qPrintable(error));
    const std::vector<int> ids = idsOf(phraseCases(folder).at(2).toObject());
    const auto n = qint64(ids.size());
    ForwardOptions options;
    QVERIFY(!options.queriesKeys);
    const std::optional<ForwardResult> plain = pass->run(ids, options, &error);
    QVERIFY2(plain, qPrintable(error));
    QVERIFY(plain->queries.values.empty() && plain->keys.values.empty());
    options.queriesKeys = true;
    options.withPositions = false;
    const std::optional<ForwardResult> without = pass->run(ids, options, &error);
    QVERIFY2(without, qPrintable(error));
    const qint64 heads = pass->heads(), kv = pass->kvHeads(), hd = pass->headDim();
    double worst = 0;
    for (qint64 l = 0; l < 4; ++l)
        for (qint64 h = 0; h < heads; ++h) {
            const float *q = without->queries.values.data() + (l * heads + h) * n * hd;
            const float *k = without->keys.values.data() + (l * kv + h / (heads / kv)) * n * hd;
            const qint64 i = n - 1; // the last query sees every key
            std::vector<double> scores;
            for (qint64 j = 0; j < n; ++j) {
                double dot = 0;
                for (qint64 c = 0; c < hd; ++c)
                    dot += double(q[i * hd + c]) * double(k[j * hd + c]);
                scores.push_back(dot / std::sqrt(double(hd)));
            }
            const double top = *std::max_element(scores.begin(), scores.end());
            double total = 0;
            for (double &s : scores)
                total += (s = std::exp(s - top));
            for (qint64 j = 0; j < n; ++j) {
                const double theirs =
                    without->attentions.values[std::size_t(((l * heads + h) * n + i) * n + j)];
                worst = std::max(worst, std::abs(scores[std::size_t(j)] / total - theirs));
            }
        }
    QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    options.withPositions = true;
    const std::optional<ForwardResult> with = pass->run(ids, options, &error);
    QVERIFY2(with, qPrintable(error));
    const std::optional<LayerZeroArray> a =
        computeLayerAnalysis(*pass, *with, LayerAnalysis::FrequencyAtlas, {}, &error);
    const std::optional<LayerZeroArray> b =
        computeLayerAnalysis(*pass, *without, LayerAnalysis::FrequencyAtlas, {}, &error);
    QVERIFY2(a && b, qPrintable(error));
    QCOMPARE(a->shape, b->shape);
    double change = 0;
    for (std::size_t i = 0; i < a->values.size(); ++i)
        change = std::max(change, double(std::abs(a->values[i] - b->values[i])));
    QVERIFY2(change > 1e-3, qPrintable(QString::number(change)));
}

QTEST_GUILESS_MAIN(TestLayerAnalysis)
#include "tst_layeranalysis.moc"
