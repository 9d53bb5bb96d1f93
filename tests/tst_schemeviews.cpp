// The Schemes page (issue 6): each view builds a non-blank figure whose numbers match
// independent float64 formulas (RoPE wavelengths and Llama 3 scaling, the RoFormer decay, the
// rotation, sinusoidal cosine similarity, ALiBi bias, T5 buckets); `pescope export --view NAME`
// writes each; RoPE sessions keep their scaling; bad input in the new controls is refused.
#include "testutil.h"
#include "textrecorder.h"

#include "backends/backendfactory.h"
#include "backends/cpubackend.h"

#include "compute/figuredata.h"
#include "dialogs/exportdialog.h"
#include "dialogs/viewhelp.h"
#include "figures/figurecaption.h"
#include "figures/figureexporter.h"
#include "figures/figurepainter.h"
#include "figures/fittedaxis.h"
#include "figures/schemefigures.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "views/exportactions.h"
#include "views/mainwindow.h"
#include "views/schemepage.h"
#include "widgets/fieldform.h"
#include "widgets/parameterpanel.h"

#include "figures/qcpinclude.h"

#include <QApplication>
#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSet>
#include <QTabWidget>
#include <QTemporaryDir>

#include <cmath>
#include <numbers>
#include <set>
#include <tuple>

using namespace pe;
using namespace pe::test;

namespace {

constexpr double pi = std::numbers::pi;

double plainTheta(double base, qint64 i, qint64 dims)
{
    return std::pow(base, -2.0 * double(i) / double(dims));
}

// transformers' _compute_llama3_parameters, per frequency.
double llama3Theta(double base, qint64 i, qint64 dims, double factor, double low, double high,
                   double original)
{
    const double freq = plainTheta(base, i, dims);
    const double wavelen = 2.0 * pi / freq;
    const double lowWavelen = original / low;
    const double highWavelen = original / high;
    if (wavelen < highWavelen)
        return freq;
    if (wavelen > lowWavelen)
        return freq / factor;
    const double smooth = (original / wavelen - low) / (high - low);
    return (1.0 - smooth) * freq / factor + smooth * freq;
}

// transformers' T5Attention._relative_position_bucket for one relative position.
int t5Bucket(qint64 relative, bool bidirectional, int buckets, double maxDistance)
{
    int ret = 0;
    int n = buckets;
    if (bidirectional) {
        n /= 2;
        if (relative > 0)
            ret += n;
        relative = std::llabs(relative);
    } else {
        relative = -std::min<qint64>(relative, 0);
    }
    const int maxExact = n / 2;
    if (relative < maxExact)
        return ret + int(relative);
    const int large = maxExact + int(std::log(double(relative) / maxExact) /
                                     std::log(maxDistance / maxExact) * (n - maxExact));
    return ret + std::min(large, n - 1);
}

// Distinct colours in the plot's rendering: a blank or one-colour plot has very few.
int colourCount(QCustomPlot *plot)
{
    const QImage image = plot->toPixmap(640, 480).toImage();
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

QCPGraph *graphNamed(QCustomPlot *plot, const QString &name)
{
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *g = qobject_cast<QCPGraph *>(plot->plottable(i)); g && g->name() == name)
            return g;
    return nullptr;
}

QList<QCPColorMap *> colorMaps(QCustomPlot *plot)
{
    QList<QCPColorMap *> maps;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *m = qobject_cast<QCPColorMap *>(plot->plottable(i)))
            maps.append(m);
    return maps;
}

// The map's cell at (key column j, query row i): cells are centred on integer coordinates.
double cellAt(QCPColorMap *map, qint64 row, qint64 col)
{
    return map->data()->data(double(col), double(row));
}

} // namespace

// ALiBi with 4 heads and T5 with 16 buckets, for the bias views' captions and formulas.
bool setBiasSettings(ExplorerState &state)
{
    SchemeSettings s = state.schemeSettings();
    s.alibi.heads = 4;
    s.t5.buckets = 16;
    return state.setSchemeSettings(s);
}

class TestSchemeViews : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // The scheduler's job function, run here on the CPU.
    std::shared_ptr<const SchemeResult> compute(const ExplorerState &state, FigureView view)
    {
        QString error;
        CpuBackend backend;
        auto result = std::make_shared<SchemeResult>();
        if (computeSchemeData({state.spec(), state.schemeSettings()}, {view}, backend, {},
                              result.get(), &error) != JobStatus::Done) {
            qWarning() << error;
            return nullptr;
        }
        return result;
    }

    void applyOrFail(ExplorerState &state, const char *json)
    {
        QString error;
        QVERIFY2(state.applyJson(QJsonDocument::fromJson(json).object(), &error),
                 qPrintable(error));
    }

private slots:
    void spectrumWavelengths()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("rope-llama31-vs-yarn"), &error),
                 qPrintable(error));
        const auto result = compute(state, FigureView::Spectrum);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildSpectrum(&plot, *result);
        QVERIFY(colourCount(&plot) > 20);
        QCPGraph *plain = graphNamed(&plot, QStringLiteral("unscaled, base 500,000"));
        QCPGraph *scaled =
            graphNamed(&plot, QStringLiteral("A: base 500,000, llama3 s = 8 from 8,192"));
        QVERIFY(plain);
        QVERIFY(scaled);
        // YaRN's attention factor 0.1 ln s + 1 is named in B's legend entry.
        QVERIFY(graphNamed(&plot, QStringLiteral("B: base 500,000, yarn s = 8 from 8,192 (cos, "
                                                 "sin × %1)")
                                      .arg(0.1 * std::log(8.0) + 1.0, 0, 'f', 4)));
        QCOMPARE(plain->data()->size(), 64);
        for (qint64 i : {0, 1, 20, 40, 45, 50, 63}) {
            const double expectedPlain = 2.0 * pi / plainTheta(500000.0, i, 128);
            PE_COMPARE_NEAR(plain->data()->at(int(i))->value, expectedPlain, 1e-9 * expectedPlain);
            const double expectedScaled =
                2.0 * pi / llama3Theta(500000.0, i, 128, 8.0, 1.0, 4.0, 8192.0);
            PE_COMPARE_NEAR(scaled->data()->at(int(i))->value, expectedScaled,
                            1e-9 * expectedScaled);
        }
        // The original context is marked by a horizontal line at 8192 tokens.
        bool marked = false;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto *line = qobject_cast<QCPItemStraightLine *>(plot.item(i)))
                marked |=
                    line->point1->coords().y() == 8192.0 && line->point2->coords().y() == 8192.0;
        QVERIFY(marked);
    }

    // Longrope: both factor sets drawn, wavelength 2π f_i base^(2i/d) for each list; the set the
    // positions select (long_factor beyond original_max_position_embeddings) is solid.
    void spectrumLongropeFactorSets_data()
    {
        QTest::addColumn<int>("positions");
        QTest::addColumn<bool>("longApplies");
        QTest::addRow("short context") << 4096 << false;
        QTest::addRow("long context") << 4097 << true;
    }
    void spectrumLongropeFactorSets()
    {
        QFETCH(int, positions);
        QFETCH(bool, longApplies);
        ExplorerState state;
        applyOrFail(state, QStringLiteral(R"({"spec": {"scheme": "rope", "positions": %1,
            "dims": 8, "rope_theta": 10000, "rope_type": "longrope",
            "short_factor": [1, 2, 3, 4], "long_factor": [5, 6, 7, 8],
            "original_max_position_embeddings": 4096, "max_position_embeddings": 131072}})")
                               .arg(positions)
                               .toUtf8()
                               .constData());
        const auto result = compute(state, FigureView::Spectrum);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildSpectrum(&plot, *result);
        QCPGraph *shortSet = nullptr, *longSet = nullptr;
        for (int g = 0; g < plot.graphCount(); ++g) {
            const QString name = plot.graph(g)->name();
            if (name.startsWith(u"A: short_factor"_qs))
                shortSet = plot.graph(g);
            if (name.startsWith(u"A: long_factor"_qs))
                longSet = plot.graph(g);
        }
        QVERIFY(shortSet);
        QVERIFY(longSet);
        const double shortFactor[] = {1, 2, 3, 4}, longFactor[] = {5, 6, 7, 8};
        for (int i = 0; i < 4; ++i) {
            const double plain = 2.0 * pi * std::pow(10000.0, 2.0 * i / 8.0);
            PE_COMPARE_NEAR(shortSet->data()->at(i)->value, plain * shortFactor[i], 1e-9 * plain);
            PE_COMPARE_NEAR(longSet->data()->at(i)->value, plain * longFactor[i], 1e-9 * plain);
        }
        QCOMPARE(longSet->pen().style() == Qt::SolidLine, longApplies);
        QCOMPARE(shortSet->pen().style() == Qt::SolidLine, !longApplies);
        QVERIFY((longApplies ? longSet : shortSet)->name().contains(u"used at"_qs));
    }

    // mrope: the pairs each position id turns with, by HF's rule: mrope_section [t, h, w] takes
    // consecutive pairs (apply_multimodal_rotary_pos_emb); interleaved (Qwen3-VL) takes pair i for
    // h when i % 3 == 1 and i < 3h, for w when i % 3 == 2 and i < 3w, else t.
    void spectrumMropeSections_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<bool>("interleaved");
        QTest::addColumn<QList<double>>("t");
        QTest::addColumn<QList<double>>("h");
        QTest::addColumn<QList<double>>("w");
        QTest::addRow("qwen2.5-vl") << u"[2, 3, 3]"_qs << false << QList<double>{0, 1}
                                    << QList<double>{2, 3, 4} << QList<double>{5, 6, 7};
        QTest::addRow("qwen3-vl") << u"[4, 2, 2]"_qs << true << QList<double>{0, 3, 6, 7}
                                  << QList<double>{1, 4} << QList<double>{2, 5};
    }
    void spectrumMropeSections()
    {
        QFETCH(QString, section);
        QFETCH(bool, interleaved);
        QFETCH(QList<double>, t);
        QFETCH(QList<double>, h);
        QFETCH(QList<double>, w);
        ExplorerState state;
        applyOrFail(state, QStringLiteral(R"({"spec": {"scheme": "rope", "positions": 64,
            "dims": 16, "rope_theta": 10000, "mrope_section": %1, "mrope_interleaved": %2}})")
                               .arg(section, interleaved ? u"true"_qs : u"false"_qs)
                               .toUtf8()
                               .constData());
        const auto result = compute(state, FigureView::Spectrum);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildSpectrum(&plot, *result);
        const auto keysOf = [&plot](const QString &prefix) {
            QList<double> keys;
            for (int g = 0; g < plot.graphCount(); ++g)
                if (plot.graph(g)->name().startsWith(prefix))
                    for (const QCPGraphData &d : *plot.graph(g)->data())
                        keys.append(d.key);
            return keys;
        };
        QCOMPARE(keysOf(u"mrope t:"_qs), t);
        QCOMPARE(keysOf(u"mrope h:"_qs), h);
        QCOMPARE(keysOf(u"mrope w:"_qs), w);
    }

    void decayMatchesRoformer()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("rope-decay"), &error), qPrintable(error));
        const auto result = compute(state, FigureView::Decay);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildDecay(&plot, *result);
        QVERIFY(colourCount(&plot) > 20);
        QCPGraph *a = graphNamed(&plot, QStringLiteral("A: base 10,000"));
        QVERIFY(a);
        QVERIFY(graphNamed(&plot, QStringLiteral("base 1,000,000")));
        QCOMPARE(a->data()->size(), 4097);
        for (int distance : {0, 1, 10, 100, 1000, 4096}) {
            double sum = 0;
            for (int i = 0; i < 64; ++i)
                sum += std::cos(distance * plainTheta(10000.0, i, 128));
            const double expected = sum / 64.0; // (2 sum cos) / d, all dims rotated
            PE_COMPARE_NEAR(a->data()->at(distance)->value, expected, 1e-12);
        }
        PE_COMPARE_NEAR(a->data()->at(0)->value, 1.0, 1e-12);
    }

    // Issue 12 item 5: one clear curve per configuration (the reference bases only when
    // asked), each as its envelope, over a log distance axis.
    void decayEnvelopeOnLogDistance()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("rope-decay"), &error), qPrintable(error));
        SchemeSettings s = state.schemeSettings();
        s.decayReferences = false;
        s.decayEnvelope = true;
        s.decayLog = true;
        QVERIFY2(state.setSchemeSettings(s, &error), qPrintable(error));
        const auto result = compute(state, FigureView::Decay);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildDecay(&plot, *result);
        QCOMPARE(plot.graphCount(), 2); // A and B, no reference bases
        QCPGraph *a = graphNamed(&plot, QStringLiteral("A: base 10,000 (envelope)"));
        QVERIFY(a);
        QVERIFY(!graphNamed(&plot, QStringLiteral("base 1,000,000 (envelope)")));
        QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
        QCOMPARE(a->data()->size(), 2048); // distances 1..2048: half the range of 4096
        QCOMPARE(a->data()->at(0)->key, 1.0);
        // max over d' >= d of |(1/64) sum cos(d' theta_i)|, in double.
        std::vector<double> score(4097);
        for (int d = 0; d <= 4096; ++d) {
            double sum = 0;
            for (int i = 0; i < 64; ++i)
                sum += std::cos(d * plainTheta(10000.0, i, 128));
            score[std::size_t(d)] = std::abs(sum / 64.0);
        }
        double beyond = 0;
        for (int d = 4096; d >= 1; --d) {
            beyond = std::max(beyond, score[std::size_t(d)]);
            if (d <= 2048)
                PE_COMPARE_NEAR(a->data()->at(d - 1)->value, beyond, 1e-12);
        }
        // Falling: never rises with distance.
        for (int i = 1; i < a->data()->size(); ++i)
            QVERIFY(a->data()->at(i)->value <= a->data()->at(i - 1)->value);
    }

    void rotationVector()
    {
        ExplorerState state;
        applyOrFail(state, R"({"spec": {"scheme": "rope", "positions": 64, "dims": 64,
            "rope_theta": 10000}, "schemes": {"view": "rotation", "rotationPair": 3,
            "rotationPosition": 17}})");
        const auto result = compute(state, FigureView::Rotation);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildRotation(&plot, *result);
        QVERIFY(colourCount(&plot) > 20);
        const QList<qint64> pairs = rotationPairs(3, 32);
        QCOMPARE(pairs.size(), 4);
        QVERIFY(pairs.contains(3));
        int arrows = 0;
        bool found = false;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto *arrow = qobject_cast<QCPItemLine *>(plot.item(i))) {
                ++arrows;
                const double angle = 17.0 * plainTheta(10000.0, 3, 64);
                if (std::abs(arrow->end->coords().x() - std::cos(angle)) < 1e-12 &&
                    std::abs(arrow->end->coords().y() - std::sin(angle)) < 1e-12)
                    found = true;
            }
        QCOMPARE(arrows, 4);
        QVERIFY(found);
    }

    void similarityOfSinusoid()
    {
        ExplorerState state;
        applyOrFail(state, R"({"spec": {"scheme": "sinusoidal", "positions": 200, "dims": 64,
            "base": 10000}, "schemes": {"view": "similarity", "squarePositions": 96}})");
        const auto result = compute(state, FigureView::Similarity);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildSimilarity(&plot, *result);
        QVERIFY(colourCount(&plot) > 20);
        const QList<QCPColorMap *> maps = colorMaps(&plot);
        QCOMPARE(maps.size(), 1);
        // Interleaved sin/cos pairs: PE(p)·PE(q) = sum_i cos((p - q) w_i), |PE|^2 = d / 2.
        for (auto [p, q] : {std::pair{0, 0}, std::pair{5, 40}, std::pair{90, 3}}) {
            double dot = 0;
            for (int i = 0; i < 32; ++i)
                dot += std::cos(double(p - q) * plainTheta(10000.0, i, 64));
            PE_COMPARE_NEAR(cellAt(maps[0], p, q), dot / 32.0, 1e-5);
        }
    }

    void alibiBiasCells()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("alibi-bias"), &error), qPrintable(error));
        SchemeSettings s = state.schemeSettings();
        s.alibi.head = 2; // 8 heads: m_h = 2^-(h+1), so m = 2^-3
        QVERIFY(state.setSchemeSettings(s, &error));
        const auto result = compute(state, FigureView::Alibi);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildAlibi(&plot, *result);
        QVERIFY(colourCount(&plot) > 20);
        QCPColorMap *map = colorMaps(&plot).value(0);
        QVERIFY(map);
        PE_COMPARE_NEAR(cellAt(map, 40, 9), -std::pow(2.0, -3.0) * 31.0, 1e-6);
        PE_COMPARE_NEAR(cellAt(map, 5, 5), 0.0, 1e-12);
        QVERIFY(std::isnan(cellAt(map, 9, 40))); // causal: keys after the query are masked
        s.alibi.causal = false;
        QVERIFY(state.setSchemeSettings(s, &error));
        const auto open = compute(state, FigureView::Alibi);
        SchemeFigures(state, plotTheme(Theme::Light)).buildAlibi(&plot, *open);
        PE_COMPARE_NEAR(cellAt(colorMaps(&plot).value(0), 9, 40), -std::pow(2.0, -3.0) * 31.0,
                        1e-6);
    }

    void t5BucketCells()
    {
        for (bool bidirectional : {true, false}) {
            ExplorerState state;
            QString error;
            QVERIFY2(applyPreset(state, QStringLiteral("t5-buckets"), &error), qPrintable(error));
            SchemeSettings s = state.schemeSettings();
            s.t5.causal = !bidirectional;
            QVERIFY(state.setSchemeSettings(s, &error));
            const auto result = compute(state, FigureView::T5);
            QVERIFY(result);
            QCustomPlot plot;
            SchemeFigures(state, plotTheme(Theme::Light)).buildT5(&plot, *result);
            QVERIFY(colourCount(&plot) > 10);
            QCPColorMap *map = colorMaps(&plot).value(0);
            QVERIFY(map);
            for (auto [i, j] :
                 {std::pair{0, 0}, std::pair{10, 13}, std::pair{13, 10}, std::pair{0, 20},
                  std::pair{200, 3}, std::pair{3, 250}, std::pair{100, 160}, std::pair{255, 0}}) {
                const int expected = t5Bucket(j - i, bidirectional, 32, 128.0);
                QCOMPARE(int(cellAt(map, i, j)), expected);
            }
        }
    }

    void compareSharesScale()
    {
        ExplorerState state;
        applyOrFail(state, R"({"spec": {"scheme": "rope", "positions": 256, "dims": 64,
            "rope_theta": 10000}, "schemes": {"view": "compare", "squarePositions": 64,
            "compare": {"rope_theta": 500000}}})");
        const auto result = compute(state, FigureView::Compare);
        QVERIFY(result);
        QCustomPlot plot;
        SchemeFigures(state, plotTheme(Theme::Light)).buildCompare(&plot, *result);
        QVERIFY(colourCount(&plot) > 20);
        const QList<QCPColorMap *> maps = colorMaps(&plot);
        QCOMPARE(maps.size(), 3); // A, B and A − B
        QVERIFY(maps[0]->dataRange() == maps[1]->dataRange());
        QCOMPARE(maps[0]->colorScale(), maps[1]->colorScale());
        // RoPE cos/sin rows: cosine of p and q is the mean of cos((p - q) theta_i).
        double cosine[2] = {};
        for (auto [k, base] : {std::pair{0, 10000.0}, std::pair{1, 500000.0}}) {
            double sum = 0;
            for (int i = 0; i < 32; ++i)
                sum += std::cos(37.0 * plainTheta(base, i, 64));
            cosine[k] = sum / 32.0;
            PE_COMPARE_NEAR(cellAt(maps[k], 40, 3), cosine[k], 1e-5);
        }
        // The difference panel: A − B on its own scale, centred at 0, a diverging map (the
        // default viridis is not one, so RdBu_r: blue below 0, red above).
        QVERIFY(maps[2]->colorScale() != maps[0]->colorScale());
        PE_COMPARE_NEAR(cellAt(maps[2], 40, 3), cosine[0] - cosine[1], 1e-5);
        QCOMPARE(maps[2]->dataRange().lower, -maps[2]->dataRange().upper);
        double largest = 0;
        for (int p = 0; p < 64; ++p)
            for (int q = 0; q < 64; ++q) {
                double a = 0, b = 0;
                for (int i = 0; i < 32; ++i) {
                    a += std::cos((p - q) * plainTheta(10000.0, i, 64));
                    b += std::cos((p - q) * plainTheta(500000.0, i, 64));
                }
                largest = std::max(largest, std::abs(a - b) / 32.0);
            }
        PE_COMPARE_NEAR(maps[2]->dataRange().upper, largest, 1e-5);
        const QRgb zero = maps[2]->gradient().color(0.0, maps[2]->dataRange());
        PE_COMPARE_CLOSER_THAN(qRed(zero), qBlue(zero), 12); // 0 is the neutral middle of the map
        QVERIFY(qBlue(maps[2]->gradient().color(-largest, maps[2]->dataRange())) >
                qRed(maps[2]->gradient().color(-largest, maps[2]->dataRange())));
        QVERIFY(qRed(maps[2]->gradient().color(largest, maps[2]->dataRange())) >
                qBlue(maps[2]->gradient().color(largest, maps[2]->dataRange())));
    }

    // Issue 38 item 11: at any font scale the spectrum's and the decay's legends hide no curve
    // (they lie outside every axis rect, and no curve point falls in them), neighbouring tick
    // labels stay apart, and no two pieces of text drawn on the figure overlap (at font x3 the
    // spectrum's legend covered the curves, its "1 1/2 1/4 1/8" overlapped and its two axis
    // titles ran into each other).
    void legendAndLabelsClearAtAnyFontScale_data()
    {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("fontScale");
        const std::pair<const char *, const char *> figures[] = {
            {"spectrum", "rope-llama31-vs-yarn"},
            {"decay", "rope-llama31-vs-yarn"},
            {"decay", "rope-decay"}}; // four curves
        for (const auto &[view, preset] : figures)
            for (const QSize &size : {QSize(1280, 720), QSize(1024, 600)})
                for (double scale : {1.0, 2.0, 3.0})
                    QTest::addRow("%s %s %dx%d font x%.0f", view, preset, size.width(),
                                  size.height(), scale)
                        << QString::fromLatin1(view) << QString::fromLatin1(preset) << size
                        << scale;
    }
    void legendAndLabelsClearAtAnyFontScale()
    {
        QFETCH(QString, view);
        QFETCH(QString, preset);
        QFETCH(QSize, size);
        QFETCH(double, fontScale);
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, preset, &error), qPrintable(error));
        FigureOptions options;
        options.views = *parseFigureViews(view, &error);
        options.width = size.width();
        options.height = size.height();
        options.dpi = figureBaseDpi(); // layout pixels are the page's pixels
        options.style.fontScale = fontScale;
        const std::unique_ptr<Backend> backend = makeBackend(BackendChoice::Cpu, &error);
        QVERIFY2(backend, qPrintable(error));
        FigureData data;
        QVERIFY2(computeFigureData(state, options.views, options.choices, *backend, &data, &error),
                 qPrintable(error));
        QStringList problems;
        int legends = 0, curvePoints = 0, tickPairs = 0;
        FigurePaintHooks hooks;
        hooks.beforePaint = [&](int, QCustomPlot *plot) {
            const QList<QCPAxisRect *> rects = plot->axisRects();
            for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
                if (!legend->visible() || legend->itemCount() == 0)
                    continue;
                ++legends;
                const QRect box = legend->outerRect();
                for (QCPAxisRect *rect : rects)
                    if (box.intersects(rect->rect()))
                        problems.append(QStringLiteral("the legend at (%1, %2, %3 x %4) lies over "
                                                       "an axis rect")
                                            .arg(box.x())
                                            .arg(box.y())
                                            .arg(box.width())
                                            .arg(box.height()));
                for (int i = 0; i < plot->plottableCount(); ++i) {
                    auto *graph = qobject_cast<QCPGraph *>(plot->plottable(i));
                    if (!graph)
                        continue;
                    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd();
                         ++it) {
                        const QPointF point = graph->coordsToPixels(it->key, it->value);
                        if (!graph->keyAxis()->axisRect()->rect().contains(point.toPoint()))
                            continue; // outside the axis rect: clipped, not drawn
                        ++curvePoints;
                        if (box.contains(point.toPoint()))
                            problems.append(QStringLiteral("\"%1\" at pair %2 lies under the "
                                                           "legend")
                                                .arg(graph->name())
                                                .arg(it->key));
                    }
                }
            }
            // Every axis title whole at the normal font, in its full or a shorter form, never
            // elided: the spectrum's lower title read "θ scaled / …" at 1280 x 720 (issue 46.8).
            // (At font x2 and x3 a panel a third of a small page is shorter than any title.)
            for (QCPAxisRect *rect : fontScale == 1.0 ? rects : QList<QCPAxisRect *>{})
                for (QCPAxis *axis : rect->axes())
                    if (const auto *fitted = dynamic_cast<const FittedAxis *>(axis);
                        fitted && axis->visible() && fitted->shownLabel().contains(u'…'))
                        problems.append(QStringLiteral("the axis title \"%1\" is shown as "
                                                       "\"%2\"")
                                            .arg(axis->label(), fitted->shownLabel()));
            // Neighbouring tick labels: a line apart on a vertical axis, half of each label's
            // width apart on a horizontal one, at the positions the layout gave the ticks.
            for (QCPAxisRect *rect : rects)
                for (QCPAxis *axis : rect->axes()) {
                    if (!axis->visible() || !axis->tickLabels())
                        continue;
                    const QVector<double> ticks = axis->tickVector();
                    const QVector<QString> labels = axis->tickVectorLabels();
                    const QFontMetricsF metrics(axis->tickLabelFont());
                    for (qsizetype i = 1; i < ticks.size() && i < labels.size(); ++i) {
                        const double distance = std::abs(axis->coordToPixel(ticks[i]) -
                                                         axis->coordToPixel(ticks[i - 1]));
                        const double need = axis->orientation() == Qt::Vertical
                                                ? metrics.height()
                                                : (metrics.horizontalAdvance(labels[i]) +
                                                   metrics.horizontalAdvance(labels[i - 1])) /
                                                      2.0;
                        ++tickPairs;
                        if (distance < need)
                            problems.append(QStringLiteral("tick labels \"%1\" and \"%2\" are %3 "
                                                           "px apart, %4 needed")
                                                .arg(labels[i - 1], labels[i])
                                                .arg(distance)
                                                .arg(need));
                    }
                }
        };
        const auto [width, height] = figureLayoutSize(options);
        TextDevice device(width, height);
        {
            QCPPainter painter(&device);
            painter.setMode(QCPPainter::pmNoCaching);
            QVERIFY2(
                paintFigure(&painter, FigureTarget::Raster, state, data, options, &error, hooks),
                qPrintable(error));
        }
        QCOMPARE(legends, 1);
        QVERIFY2(curvePoints > 100, qPrintable(QString::number(curvePoints)));
        QVERIFY2(tickPairs > 4, qPrintable(QString::number(tickPairs)));
        // Every piece of text apart from every other, within 1.5 px: a line that falls back to
        // a second font is drawn in pieces whose glyphs touch (the title's "π/θ" and "ᵢ").
        const QList<std::pair<QString, QRectF>> &texts = device.recorder().texts;
        QVERIFY(texts.size() > 10);
        for (qsizetype i = 0; i < texts.size(); ++i)
            for (qsizetype j = i + 1; j < texts.size(); ++j) {
                const QRectF a = texts[i].second.adjusted(1.5, 1.5, -1.5, -1.5);
                const QRectF b = texts[j].second.adjusted(1.5, 1.5, -1.5, -1.5);
                if (a.intersects(b))
                    problems.append(QStringLiteral("\"%1\" overlaps \"%2\"")
                                        .arg(texts[i].first, texts[j].first));
            }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void exportEachView()
    {
        const QList<std::pair<QString, QString>> views{
            {QStringLiteral("spectrum"), QStringLiteral("rope-llama31-vs-yarn")},
            {QStringLiteral("rotation"), QStringLiteral("llama3.1")},
            {QStringLiteral("decay"), QStringLiteral("rope-decay")},
            {QStringLiteral("similarity"), QStringLiteral("qwen2.5")},
            {QStringLiteral("alibi"), QStringLiteral("alibi-bias")},
            {QStringLiteral("t5"), QStringLiteral("t5-buckets")},
            {QStringLiteral("compare"), QStringLiteral("rope-llama31-vs-yarn")}};
        for (const auto &[view, preset] : views) {
            const QString out = m_dir.filePath(view + QStringLiteral(".png"));
            const RunResult run =
                runPescope({QStringLiteral("export"), QStringLiteral("--view"), view,
                            QStringLiteral("--preset"), preset, QStringLiteral("--width"),
                            QStringLiteral("640"), QStringLiteral("--height"),
                            QStringLiteral("480"), QStringLiteral("--out"), out});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QImage image(out);
            QCOMPARE(image.size(), QSize(640, 480));
            std::set<QRgb> colours;
            for (int y = 0; y < image.height(); y += 3)
                for (int x = 0; x < image.width(); x += 3)
                    colours.insert(image.pixel(x, y));
            QVERIFY2(colours.size() > 10, qPrintable(view));
        }
        const RunResult bad = runPescope({QStringLiteral("export"), QStringLiteral("--view"),
                                          QStringLiteral("spectrumm"), QStringLiteral("--out"),
                                          m_dir.filePath(QStringLiteral("x.png"))});
        QVERIFY(bad.exitCode != 0);
        QVERIFY(bad.err.contains("spectrum"));
    }

    void windowExports()
    {
        MainWindowOptions options;
        options.persistent = false;
        MainWindow window(options);
        window.show();
        QString error;
        QVERIFY(window.applyPreset(QStringLiteral("t5-buckets"), &error));
        QTRY_VERIFY_WITH_TIMEOUT(window.isSettled(), 60000);
        // File → Export / Copy figure on the Schemes page take the page's current view.
        QCOMPARE(window.viewPages().current().figureViews(), QList<FigureView>{FigureView::T5});
        const QImage shown = ExportActions::of(&window)->currentFigure(&error);
        QVERIFY2(!shown.isNull(), qPrintable(error));
        QCOMPARE(shown.size(), window.schemePage()->currentPlot()->size());
        // The Export dialog offers every Schemes view and previews it once the scheduler has
        // computed it.
        ExportDialog dialog(window.state(), window.scheduler());
        for (FigureView view : {FigureView::Spectrum, FigureView::Decay, FigureView::Alibi,
                                FigureView::Compare, FigureView::Rotation}) {
            dialog.setViews({view});
            QCOMPARE(dialog.options().views, QList<FigureView>{view});
            dialog.refreshPreview();
            QTRY_VERIFY2_WITH_TIMEOUT(!dialog.previewImage().isNull(), qPrintable(dialog.message()),
                                      20000);
        }
        dialog.setPath(m_dir.filePath(QStringLiteral("rotation.svg")));
        QVERIFY2(dialog.exportFigure(&error), qPrintable(error));
        QFile svg(m_dir.filePath(QStringLiteral("rotation.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
    }

    void ropeSessionRoundTrip()
    {
        ExplorerState state;
        applyOrFail(state, R"({"page": "schemes", "spec": {"scheme": "rope", "positions": 300,
            "dims": 96, "rope_theta": 1000000, "pairing": "half", "rope_type": "yarn",
            "factor": 4, "original_max_position_embeddings": 32768, "beta_fast": 16,
            "beta_slow": 2, "truncate": false, "partial_rotary_factor": 0.5},
            "schemes": {"view": "decay", "alibi": {"heads": 12, "head": 5},
            "t5": {"buckets": 16, "causal": true}, "compare": {"rope_theta": 10000,
            "rope_type": "dynamic", "factor": 2, "max_position_embeddings": 2048}}})");
        const QString path = m_dir.filePath(QStringLiteral("rope.json"));
        QString error;
        QVERIFY2(saveSession(state, path, &error), qPrintable(error));
        ExplorerState loaded;
        QVERIFY2(loadSession(path, &loaded, &error), qPrintable(error));
        const RopeScheme *rope = loaded.spec().get<RopeScheme>();
        QVERIFY(rope);
        QCOMPARE(rope->ropeType, RopeType::Yarn);
        QCOMPARE(rope->originalMaxPositionEmbeddings, 32768);
        QCOMPARE(rope->betaFast, 16.0);
        QCOMPARE(rope->truncate, false);
        QCOMPARE(rope->partialRotaryFactor, 0.5);
        QVERIFY(loaded.spec() == state.spec());
        QVERIFY(loaded.schemeSettings() == state.schemeSettings());
        QCOMPARE(loaded.schemeSettings().compare.maxPositionEmbeddings, 2048);
        QCOMPARE(loaded.schemeSettings().alibi.heads, 12);
        QVERIFY(loaded.schemeSettings().t5.causal);
        QCOMPARE(loaded.page(), Page::Schemes);
    }

    // Every setting of the table is read by some view, so the page can show each one somewhere.
    void everySettingHasAView()
    {
        for (const Field<SchemeSettings> &f : SchemeSettings::fields()) {
            const QString key = QString::fromUtf8(f.key);
            if (key == u"view"_qs)
                continue;
            bool read = false;
            for (FigureView view : viewsOf(Page::Schemes))
                read = read || schemeKeysReadBy(view).contains(key);
            QVERIFY2(read, qPrintable(key));
        }
    }

    // A view's keys name what a session holds of the settings (a typo would hide a control), and
    // each of the settings' schemes ("alibi", "t5", "compare") is read by some view.
    void viewKeysAreSettings()
    {
        const QJsonObject json = SchemeSettings{}.toJson();
        QSet<QString> read;
        for (FigureView view : viewsOf(Page::Schemes))
            for (const QString &key : schemeKeysReadBy(view)) {
                QVERIFY2(json.contains(key), qPrintable(figureViewName(view) + u": "_qs + key));
                read.insert(key);
            }
        for (const QString &part : {u"alibi"_qs, u"t5"_qs, u"compare"_qs}) {
            QVERIFY2(json.value(part).isObject(), qPrintable(part));
            QVERIFY2(read.contains(part), qPrintable(part));
        }
        QCOMPARE(schemePartKeys(), (QStringList{u"alibi"_qs, u"t5"_qs, u"compare"_qs}));
    }

    // The caption names configuration B and the views' own schemes for the views that read them.
    void captionNamesTheSchemesRead()
    {
        ExplorerState state;
        QVERIFY(setBiasSettings(state));
        const auto caption = [&](FigureView view) { return figureCaption(state, {view}, false); };
        QVERIFY(caption(FigureView::Alibi).contains(u"ALiBi 4 heads"_qs));
        QVERIFY(!caption(FigureView::Alibi).contains(u"B: "_qs));
        QVERIFY(caption(FigureView::T5).contains(u"T5 16 buckets"_qs));
        QVERIFY(!caption(FigureView::T5).contains(u"ALiBi"_qs));
        for (FigureView view : {FigureView::Spectrum, FigureView::Decay, FigureView::Compare})
            QVERIFY2(caption(view).contains(u"B: "_qs), qPrintable(figureViewName(view)));
        for (FigureView view : {FigureView::Rotation, FigureView::Similarity})
            QVERIFY2(!caption(view).contains(u"B: "_qs), qPrintable(figureViewName(view)));
    }

    // Issue 47: the caption's scheme words come from the scheme parts' loop now; the captions
    // are those the hand-written ALiBi / T5 / B choices made, character for character.
    void captionsOfTheSchemePartsUnchanged()
    {
        ExplorerState state;
        QVERIFY(setBiasSettings(state));
        SchemeSettings s = state.schemeSettings();
        s.t5.maxDistance = 64;
        s.compare.ropeTheta = 500000.0;
        QVERIFY(state.setSchemeSettings(s));
        using V = FigureView;
        const QString a = u"A: RoPE base 10,000, 128 dims"_qs;
        const QString b = u", B: RoPE base 500,000"_qs;
        const QString alibi = u", ALiBi 4 heads"_qs;
        const QString t5 = u", T5 16 buckets, max distance 64"_qs;
        const std::vector<std::pair<QList<FigureView>, QString>> cases{
            {{V::Alibi}, a + alibi},
            {{V::T5}, a + t5},
            {{V::Compare}, a + b},
            {{V::Spectrum}, a + b},
            {{V::Rotation}, a},
            {{V::T5, V::Alibi}, a + alibi + t5},
            {{V::Alibi, V::T5, V::Compare}, a + b + alibi + t5},
            {{V::T5, V::Decay}, a + b + t5},
        };
        for (const auto &[views, expected] : cases)
            QVERIFY2(
                figureCaption(state, views, false) == expected,
                qPrintable(figureViewsName(views) + u": "_qs + figureCaption(state, views, false)));
    }

    // F1's formula of a bias view is its scheme's, with the settings' parameters.
    void helpFormulaOfTheSchemeRead()
    {
        ExplorerState state;
        QVERIFY(setBiasSettings(state));
        const QString alibi = viewHelp(FigureView::Alibi, state).formula;
        // Press et al.: head 0 of 4 has slope 2^(-8/4) = 0.25.
        QVERIFY2(alibi.contains(u"head 0 of 4"_qs) && alibi.contains(u"0.25"_qs),
                 qPrintable(alibi));
        QVERIFY(!alibi.contains(u"buckets"_qs));
        const QString t5 = viewHelp(FigureView::T5, state).formula;
        QVERIFY2(t5.contains(u"16 buckets"_qs), qPrintable(t5));
        QVERIFY(!t5.contains(u"slope"_qs));
        QVERIFY(!viewHelp(FigureView::Spectrum, state).formula.contains(u"bias"_qs));
    }

    // Item 6 of issue 12: the Schemes page shows the controls of the current tab only, and the
    // status bar the current page's computation, not the Encoding page's.
    void currentViewControlsAndTiming()
    {
        MainWindowOptions options;
        options.persistent = false;
        MainWindow window(options);
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.state()->setPage(Page::Schemes);
        auto *tabs = window.schemePage()->findChild<QTabWidget *>(QStringLiteral("schemeTabs"));
        auto *status = window.findChild<QLabel *>(QStringLiteral("computeInfo"));
        QVERIFY(tabs && status);
        const auto shown = [&](const char *box) {
            auto *w = window.schemePage()->findChild<QWidget *>(QString::fromLatin1(box));
            return w && w->isVisible();
        };
        const auto rowShown = [&](const char *key) {
            QWidget *e = window.schemePage()
                             ->form(QStringLiteral("settings"))
                             ->editor(QString::fromLatin1(key));
            return e && e->isVisible();
        };
        using V = FigureView;
        struct Expect
        {
            V view;
            bool settings, alibi, t5, compare;
            const char *row;    // one settings row that must show (null: none)
            const char *hidden; // one that must not
        };
        for (const Expect &e :
             {Expect{V::Spectrum, false, false, false, true, nullptr, "rotationPair"},
              Expect{V::Rotation, true, false, false, false, "rotationPosition", "metric"},
              Expect{V::Decay, true, false, false, true, "decayDistance", "rotationPair"},
              Expect{V::Similarity, true, false, false, false, "metric", "decayDistance"},
              Expect{V::Alibi, true, true, false, false, "squarePositions", "metric"},
              Expect{V::T5, true, false, true, false, "squarePositions", "rotationPair"},
              Expect{V::Compare, true, false, false, true, "metric", "rotationPosition"}}) {
            const QString name = figureViewName(e.view);
            tabs->setCurrentIndex(int(viewsOf(Page::Schemes).indexOf(e.view)));
            QCOMPARE(window.state()->schemeSettings().view, e.view);
            QVERIFY2(shown("settingsBox") == e.settings, qPrintable(name));
            QVERIFY2(shown("alibiBox") == e.alibi, qPrintable(name));
            QVERIFY2(shown("t5Box") == e.t5, qPrintable(name));
            QVERIFY2(shown("compareBox") == e.compare, qPrintable(name));
            if (e.row)
                QVERIFY2(rowShown(e.row), qPrintable(name + u": "_qs + QLatin1String(e.row)));
            QVERIFY2(!rowShown(e.hidden), qPrintable(name + u": "_qs + QLatin1String(e.hidden)));
            QTRY_VERIFY_WITH_TIMEOUT(window.isSettled(), 60000);
            QVERIFY2(status->text().startsWith(u"Schemes: "_qs + figureViewTitle(e.view)),
                     qPrintable(status->text()));
            QVERIFY2(status->text().endsWith(u" ms"_qs), qPrintable(status->text()));
        }
        window.state()->setPage(Page::Encoding);
        QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith(u"Encoding: "_qs), 60000);
        // At 1280 x 720 no panel clips its controls (its scroll area shows no horizontal bar:
        // it is as wide as they need).
        for (Page page : {Page::Encoding, Page::Schemes}) {
            window.state()->setPage(page);
            QApplication::processEvents();
            for (const QScrollArea *area : window.findChildren<QScrollArea *>()) {
                if (!area->isVisible() || !area->widget())
                    continue;
                QVERIFY2(
                    area->viewport()->width() >= area->widget()->minimumSizeHint().width(),
                    qPrintable(u"%1: %2 px shown of %3 needed"_qs.arg(area->widget()->objectName())
                                   .arg(area->viewport()->width())
                                   .arg(area->widget()->minimumSizeHint().width())));
            }
        }
    }

    // Typing into a form applies nothing until Enter; a refused value is explained beside its
    // field and leaves the state as it was.
    void badInputIsRefused()
    {
        MainWindowOptions options;
        options.persistent = false;
        MainWindow window(options);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QString error;
        QVERIFY(window.applyPreset(QStringLiteral("llama3.1"), &error));
        QCOMPARE(window.pages()->currentIndex(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(window.isSettled(), 60000);
        QVERIFY(colourCount(window.schemePage()->currentPlot()) > 20);

        // The RoPE factor on the encoding panel.
        window.state()->setPage(Page::Encoding);
        FieldForm *spec = window.parameterPanel()->specForm();
        auto *factor = qobject_cast<QLineEdit *>(spec->editor(QStringLiteral("factor")));
        QVERIFY(factor);
        const EncodingSpec before = window.state()->spec();
        const auto type = [&](QLineEdit *edit, const QString &text) {
            edit->setFocus();
            edit->selectAll();
            QTest::keyClicks(edit, text);
            QTest::keyClick(edit, Qt::Key_Return);
        };
        type(factor, QStringLiteral("-2"));
        QVERIFY2(spec->message(QStringLiteral("factor")).contains(QStringLiteral("Factor")),
                 qPrintable(spec->message(QStringLiteral("factor"))));
        QVERIFY(window.state()->spec() == before);
        type(factor, QStringLiteral("abc"));
        QVERIFY(spec->message(QStringLiteral("factor")).contains(QStringLiteral("abc")));
        type(factor, QStringLiteral("4"));
        QVERIFY2(window.parameterPanel()->message().isEmpty(),
                 qPrintable(window.parameterPanel()->message()));
        QCOMPARE(window.state()->spec().get<RopeScheme>()->factor, 4.0);

        // The Schemes page's forms.
        window.state()->setPage(Page::Schemes);
        SchemeSettings linear = window.state()->schemeSettings();
        linear.compare.ropeType = RopeType::Linear; // shows and checks the factor
        linear.compare.factor = 2.0;
        QVERIFY(window.state()->setSchemeSettings(linear, &error));
        const SchemeSettings good = window.state()->schemeSettings();
        using V = FigureView;
        for (auto [view, form, name, text, word] :
             {std::tuple{V::Alibi, "alibi", "heads", "0", "Heads"},
              std::tuple{V::T5, "t5", "buckets", "1", "Buckets"},
              std::tuple{V::Rotation, "settings", "rotationPair", "64", "Pair"},
              std::tuple{V::Compare, "compare", "rope_theta", "x", "Base"},
              std::tuple{V::Compare, "compare", "factor", "0", "Factor"}}) {
            window.schemePage()
                ->findChild<QTabWidget *>(QStringLiteral("schemeTabs"))
                ->setCurrentIndex(int(viewsOf(Page::Schemes).indexOf(view)));
            FieldForm *f = window.schemePage()->form(QString::fromLatin1(form));
            QVERIFY2(f, form);
            auto *edit = qobject_cast<QLineEdit *>(f->editor(QString::fromLatin1(name)));
            QVERIFY2(edit, name);
            QVERIFY2(edit->isVisible(), name); // the current view's controls are shown
            SchemeSettings shown = good;       // the tab is the view; nothing else changed
            shown.view = view;
            const QString old = edit->text();
            type(edit, QString::fromLatin1(text));
            const QString message = window.schemePage()->message();
            QVERIFY2(message.contains(QString::fromLatin1(word)),
                     qPrintable(QString::fromLatin1(name) + QStringLiteral(": ") + message));
            QVERIFY(window.state()->schemeSettings() == shown);
            type(edit, old);
            QVERIFY2(window.schemePage()->message().isEmpty(),
                     qPrintable(window.schemePage()->message()));
        }
    }
};

QTEST_MAIN(TestSchemeViews)
#include "tst_schemeviews.moc"
