// The explorer window as a user drives it: real widgets under Xvfb, QTest key and mouse events,
// checks through the state and the rendered pixels. Expected colours come from the float64
// formula and matplotlib's colormap tables, never from pescope's own output.
#include "backends/cpubackend.h"
#include "compute/computescheduler.h"
#include "dialogs/shortcutsdialog.h"
#include "dialogs/viewhelpdialog.h"
#include "figures/figurebuilder.h"
#include "figures/plottheme.h"
#include "figures/qcpinclude.h"
#include "testutil.h"
#include "views/heatmapview.h"
#include "views/mainwindow.h"
#include "views/phraseview.h"
#include "views/wavesview.h"
#include "widgets/fieldform.h"
#include "widgets/parameterpanel.h"
#include "windowtestutil.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFontMetricsF>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QPushButton>
#include <QSet>
#include <QSlider>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace pe;
using pe::test::openWindow;
using pe::test::typeInto;

namespace {

constexpr int settleTimeoutMs = 30000;

bool waitSettled(MainWindow &window)
{
    // Settled on two checks 50 ms apart: a resize may still ask for a finer grid.
    for (int round = 0; round < 2; ++round) {
        if (!QTest::qWaitFor([&] { return window.isSettled(); }, settleTimeoutMs))
            return false;
        QTest::qWait(50);
    }
    return window.isSettled();
}

QImage render(QCustomPlot *plot)
{
    return plot->grab().toImage().convertToFormat(QImage::Format_RGB32);
}

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

// The 8-bit colour matplotlib draws for t = (v - vmin) / (vmax - vmin), written from its
// rules (index floor(t * 256), 1.0 to the last entry, channels truncated) and the table.
QRgb expectedColour(Colormap map, double v, double vmin, double vmax, int indexOffset = 0)
{
    const double t = (v - vmin) / (vmax - vmin);
    int index = t >= 1.0 ? 255 : int(std::floor(t * 256.0));
    index = std::clamp(index + indexOffset, 0, 255);
    double rgb[3];
    colormapEntry(map, index, rgb);
    return qRgb(int(rgb[0] * 255.0), int(rgb[1] * 255.0), int(rgb[2] * 255.0));
}

// The rendered pixel equals the expected colour (or its neighbour entry when float32 rounding
// puts the value on the other side of an entry boundary).
void verifyCellColour(const QImage &image, QPoint at, Colormap map, double v, double vmin,
                      double vmax)
{
    QVERIFY2(image.rect().contains(at), "the cell is outside the plot");
    const QRgb got = image.pixel(at) & 0xffffff;
    for (int offset : {0, -1, 1})
        if (got == (expectedColour(map, v, vmin, vmax, offset) & 0xffffff))
            return;
    QFAIL(
        qPrintable(QStringLiteral("pixel %1,%2 is #%3, expected #%4 (value %5 in [%6, %7])")
                       .arg(at.x())
                       .arg(at.y())
                       .arg(got, 6, 16, QLatin1Char('0'))
                       .arg(expectedColour(map, v, vmin, vmax) & 0xffffff, 6, 16, QLatin1Char('0'))
                       .arg(v)
                       .arg(vmin)
                       .arg(vmax)));
}

QCPColorMap *firstColorMap(QCustomPlot *plot)
{
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *map = qobject_cast<QCPColorMap *>(plot->plottable(i)))
            return map;
    return nullptr;
}

// Keras TextVectorization's vocabulary, written independently: tokens by count descending,
// ties by token descending, after '' and '[UNK]'.
QStringList kerasVocabulary(const QStringList &phrases)
{
    QMap<QString, int> counts;
    for (const QString &phrase : phrases)
        for (const QString &token : phrase.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts))
            ++counts[token];
    QStringList tokens = counts.keys();
    std::sort(tokens.begin(), tokens.end(), [&](const QString &a, const QString &b) {
        return counts[a] != counts[b] ? counts[a] > counts[b] : a.toUtf8() > b.toUtf8();
    });
    return QStringList{QString(), QStringLiteral("[UNK]")} + tokens;
}

} // namespace

class TestExplorer : public QObject
{
    Q_OBJECT
private slots:
    // Issue 12 item 5: 120,000 positions in about a thousand pixels are drawn as each dim's
    // min-max band (translucent, so the other dims show through), and the band holds the curve.
    void manyPositionsWavesAreBands()
    {
        auto window = test::openWindow();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        EncodingSpec spec = window->state()->spec();
        spec.positions = 120000;
        spec.dims = 64;
        QString error;
        QVERIFY2(window->state()->setSpec(spec, &error), qPrintable(error));
        QVERIFY2(window->state()->setWaveDims({50}, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QCustomPlot *waves = window->wavesView()->plot();
        QCPGraph *band = nullptr;
        for (int g = 0; g < waves->graphCount(); ++g)
            if (waves->graph(g)->name() == u"i = 50 (sin) (min–max band)"_qs)
                band = waves->graph(g);
        QVERIFY(band);
        QCPGraph *lower = band->channelFillGraph();
        QVERIFY(lower);
        QVERIFY(band->brush().color().alpha() < 255);
        QVERIFY(band->data()->size() <= 2 * qMax(400, waves->width()));
        QCOMPARE(lower->data()->size(), band->data()->size());
        for (qint64 p = 0; p < 120000; p += 997) {
            const double v = test::referenceInterleaved(p, 50, 64, 10000.0);
            // The band point whose run holds p: the nearest run centre.
            int index = 0;
            for (int c = 1; c < band->data()->size(); ++c)
                if (std::abs(band->data()->at(c)->key - double(p)) <
                    std::abs(band->data()->at(index)->key - double(p)))
                    index = c;
            QVERIFY2(band->data()->at(index)->value >= v - 1e-5, qPrintable(QString::number(p)));
            QVERIFY2(lower->data()->at(index)->value <= v + 1e-5, qPrintable(QString::number(p)));
        }
    }

    // Issue 12 item 5: the cosine-similarity chart's token labels are thinned so that no two
    // overlap (rotated 60°, neighbours need their line height / sin 60° apart), at any width.
    void tokenLabelsThinnedNotOverlapped()
    {
        ExplorerState state;
        PhraseSettings s = state.phraseSettings();
        QStringList words;
        for (int i = 0; i < 200; ++i)
            words.append(u"w"_qs + QString::number(i % 37));
        s.phrases = {words.join(u' '), words.mid(0, 150).join(u' ')};
        s.titles.clear();
        s.sequenceLength = 200;
        s.dims = 16;
        QString error;
        QVERIFY2(state.setPhraseSettings(s, &error), qPrintable(error));
        state.setPhraseSelection({0, 3, EmbeddingMode::Fixed});
        CpuBackend backend;
        PhraseResult result;
        QVERIFY2(computePhrases(backend, state.phraseSettings(), &result, &error),
                 qPrintable(error));
        for (const QSize size : {QSize(420, 300), QSize(900, 400), QSize(1800, 600)}) {
            QCustomPlot plot;
            plot.resize(size);
            plot.setViewport(QRect(QPoint(0, 0), size)); // as an export lays it out
            FigureBuilder(state, plotTheme(Theme::Light)).buildTokenSimilarity(&plot, result);
            plot.replot();
            QCPAxis *x = plot.axisRect()->axis(QCPAxis::atBottom);
            auto ticker = x->ticker().dynamicCast<QCPAxisTickerText>();
            QVERIFY(ticker);
            // The labels drawn: the ticker holds every token's, thinned as the axis is laid out.
            const QVector<double> ticks = x->tickVector();
            QVERIFY(ticks.size() >= 5); // thinned, not emptied
            const double needed = QFontMetricsF(x->tickLabelFont()).height() / std::sin(M_PI / 3);
            for (int i = 1; i < ticks.size(); ++i) {
                const double apart = x->coordToPixel(ticks[i]) - x->coordToPixel(ticks[i - 1]);
                QVERIFY2(apart >= needed,
                         qPrintable(u"%1 px apart at %2 px wide, %3 needed"_qs.arg(apart)
                                        .arg(size.width())
                                        .arg(needed)));
            }
        }
    }

    // Géron's "cheat = 2": a line within two rows of an earlier one moves two rows, and stays
    // among the rows shown.
    void overlayRowsKeepLinesApart()
    {
        QCOMPARE(overlayRows({100, 101}, 150), (QList<double>{100, 102}));
        QCOMPARE(overlayRows({100, 101, 102}, 150), (QList<double>{100, 102, 104}));
        QCOMPARE(overlayRows({104, 100, 101}, 150), (QList<double>{104, 100, 102}));
        QCOMPARE(overlayRows({62, 63}, 64), (QList<double>{62, 60})); // row 65 is not shown
        QCOMPARE(overlayRows({0, 1}, 2), (QList<double>{0, 1}));      // no room: its own row
        QCOMPARE(overlayRows({7, 30}, 64), (QList<double>{7, 30}));
    }

    // Issue 12 item 2: the phrase grid's colorbars per row (the seed's layout), per plot (each
    // its own range) or one shared, with the ranges of exactly those plots' values.
    void phraseGridColorbars()
    {
        ExplorerState state;
        PhraseSettings s = state.phraseSettings();
        s.phrases = {QStringLiteral("I am a robot"), QStringLiteral("you too robot"),
                     QStringLiteral("robots are here")};
        s.titles.clear();
        s.sequenceLength = 5;
        s.dims = 6;
        QString error;
        QVERIFY2(state.setPhraseSettings(s, &error), qPrintable(error));
        CpuBackend backend;
        PhraseResult result;
        QVERIFY2(computePhrases(backend, state.phraseSettings(), &result, &error),
                 qPrintable(error));
        // min / max of one mode's values (both when null), of phrase b (all when -1).
        const auto extent = [&](std::optional<EmbeddingMode> mode, int b) {
            double lo = 1e300, hi = -1e300;
            for (EmbeddingMode m : {EmbeddingMode::Random, EmbeddingMode::Fixed}) {
                if (mode && *mode != m)
                    continue;
                const std::vector<float> &v = result.embedding(m).values;
                const std::size_t per = std::size_t(5 * 6);
                for (std::size_t i = 0; i < v.size(); ++i)
                    if (b < 0 || int(i / per) == b) {
                        lo = std::min(lo, double(v[i]));
                        hi = std::max(hi, double(v[i]));
                    }
            }
            return QCPRange(lo, hi);
        };
        const auto scalesOf = [](QCustomPlot *plot) {
            QList<QCPColorScale *> scales;
            for (QCPLayoutElement *e : plot->plotLayout()->elements(true))
                if (auto *scale = qobject_cast<QCPColorScale *>(e))
                    scales.append(scale);
            return scales;
        };
        // Empty when both ends are closer than 1e-6, else what differs.
        const auto rangeMismatch = [](const QCPRange &a, const QCPRange &b) -> QString {
            return test::nearMismatch("lower", a.lower, b.lower, 1e-6, test::Bound::Strict) +
                   test::nearMismatch("upper", a.upper, b.upper, 1e-6, test::Bound::Strict);
        };
        for (ColorbarPlace place :
             {ColorbarPlace::PerRow, ColorbarPlace::PerPlot, ColorbarPlace::Shared}) {
            QCustomPlot plot;
            plot.resize(1200, 700);
            FigureBuilder builder(state, plotTheme(Theme::Light));
            builder.setColorbarPlace(place);
            const QList<PhraseCell> cells = builder.buildPhraseGrid(&plot, result);
            QCOMPARE(cells.size(), 6);
            const QList<QCPColorScale *> scales = scalesOf(&plot);
            const QString name = nameOf(colorbarPlaceNames, place);
            if (place == ColorbarPlace::PerRow) {
                QCOMPARE(scales.size(), 2);
                PE_TOLERANCE_CHECK(
                    rangeMismatch(scales[0]->dataRange(), extent(EmbeddingMode::Random, -1)));
                PE_TOLERANCE_CHECK(
                    rangeMismatch(scales[1]->dataRange(), extent(EmbeddingMode::Fixed, -1)));
            } else if (place == ColorbarPlace::PerPlot) {
                QCOMPARE(scales.size(), 6);
                for (const PhraseCell &cell : cells) {
                    const QString mismatch =
                        rangeMismatch(cell.map->dataRange(), extent(cell.mode, cell.phrase));
                    QVERIFY2(mismatch.isEmpty(), qPrintable(name + u": "_qs + mismatch));
                }
            } else {
                QCOMPARE(scales.size(), 1);
                for (const PhraseCell &cell : cells)
                    PE_TOLERANCE_CHECK(
                        rangeMismatch(cell.map->dataRange(), extent(std::nullopt, -1)));
            }
            plot.replot();
            // Every bar's labels inside the figure.
            for (QCPColorScale *scale : scales)
                QVERIFY2(scale->outerRect().right() <= plot.width(), qPrintable(name));
        }
    }

    // Issue 12 item 5: rows where both phrases are padding (difference exactly 0) are masked in
    // the theme's grid colour, not a white block glaring in the dark theme.
    void phraseDifferenceMasksPadding()
    {
        ExplorerState state;
        PhraseSettings s = state.phraseSettings();
        s.phrases = {QStringLiteral("a b"), QStringLiteral("a b c d")};
        s.titles.clear();
        s.sequenceLength = 6;
        s.dims = 8;
        QString error;
        QVERIFY2(state.setPhraseSettings(s, &error), qPrintable(error));
        state.setCompare(0, 1);
        CpuBackend backend;
        PhraseResult result;
        QVERIFY2(computePhrases(backend, state.phraseSettings(), &result, &error),
                 qPrintable(error));
        const PlotTheme dark = plotTheme(Theme::Dark);
        QCustomPlot plot;
        plot.resize(700, 420);
        const QList<PhraseCell> cells =
            FigureBuilder(state, dark).buildPhraseDifference(&plot, result);
        QCOMPARE(cells.size(), 2); // random and fixed
        const QImage image = plot.toPixmap(700, 420).toImage();
        for (const PhraseCell &cell : cells) {
            QCPColorMapData *data = cell.map->data();
            for (int row = 0; row < 6; ++row) {
                double key = 0, value = 0;
                int k = 0, v = 0;
                data->coordToCell(3, row, &k, &v);
                const double z = data->cell(k, v);
                // Tokens 0, 1: a b in both, differ by 0; 2, 3: c d against padding; 4, 5: padding.
                if (row >= 4)
                    QVERIFY2(std::isnan(z), qPrintable(QString::number(row)));
                else
                    QVERIFY2(std::isfinite(z), qPrintable(QString::number(row)));
                if (row == 2)
                    QVERIFY(z != 0.0);
                data->cellToCoord(k, v, &key, &value);
                // A few pixels off the cell's centre, off any grid line through it.
                const QPointF at = cell.map->coordsToPixels(key, value) + QPointF(5, 7);
                if (row >= 4)
                    QCOMPARE(QColor(image.pixel(at.toPoint())), dark.grid);
            }
        }
    }

    void initTestCase()
    {
        if (QGuiApplication::platformName() == QLatin1String("minimal"))
            PE_SKIP_MISSING("needs a display or the offscreen platform to render widgets");
    }

    void changingDimsRerendersHeatmap()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        HeatmapView *heatmap = window->heatmapView();
        QCOMPARE(heatmap->result()->spec.dims, 128);
        auto *dims = window->findChild<QLineEdit *>(QStringLiteral("dims"));
        QVERIFY(dims);
        typeInto(dims, QStringLiteral("48"));
        QVERIFY(waitSettled(*window));
        QCOMPARE(window->state()->spec().dims, 48);
        QCOMPARE(heatmap->result()->spec.dims, 48);
        QCOMPARE(heatmap->grid()->cols, 48);
        QCPColorMap *map = firstColorMap(heatmap->plot());
        QVERIFY(map);
        QCOMPARE(map->data()->keySize(), 48); // dims across, as matshow
        QCOMPARE(map->data()->valueSize(), 200);
        // Up steps the value by one, and the heatmap follows.
        QTest::keyClick(dims, Qt::Key_Up);
        QVERIFY(waitSettled(*window));
        QCOMPARE(firstColorMap(heatmap->plot())->data()->keySize(), 49);
        QVERIFY(distinctColours(render(heatmap->plot())) > 20);
    }

    void clickingACellSelectsItAndTheWavesFollow()
    {
        auto window = openWindow();
        QString error;
        QVERIFY2(window->applyPreset(QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QVERIFY(waitSettled(*window));
        HeatmapView *heatmap = window->heatmapView();
        WavesView *waves = window->wavesView();
        const QString before = waves->shareReadout();
        const int graphsBefore = waves->plot()->graphCount();
        QTest::mouseClick(heatmap->plot(), Qt::LeftButton, {}, heatmap->cellCentre(150, 40));
        QCOMPARE(window->state()->selection(), (Selection{150, 40}));
        QVERIFY(waitSettled(*window));
        QVERIFY2(waves->shareReadout().contains(QLatin1String("p = 150, i = 40")),
                 qPrintable(waves->shareReadout()));
        QVERIFY(waves->shareReadout() != before);
        // The selected dim joins the plotted waves.
        QCOMPARE(window->state()->plottedDims(), (QList<qint64>{100, 101, 40}));
        QVERIFY(waves->plot()->graphCount() > graphsBefore);

        // And back: a click on the i = 101 wave at p = 60 selects that cell for the heatmap.
        QTest::mouseClick(waves->plot(), Qt::LeftButton, {}, waves->curvePoint(60, 101));
        QCOMPARE(window->state()->selection(), (Selection{60, 101}));
        QVERIFY(waitSettled(*window));
        QVERIFY2(waves->shareReadout().contains(QLatin1String("p = 60, i = 101")),
                 qPrintable(waves->shareReadout()));
        // A drag pans instead of selecting.
        const QPoint from = heatmap->cellCentre(100, 20);
        QTest::mousePress(heatmap->plot(), Qt::LeftButton, {}, from);
        QTest::mouseMove(heatmap->plot(), from + QPoint(40, 0));
        QTest::mouseRelease(heatmap->plot(), Qt::LeftButton, {}, from + QPoint(40, 0));
        QCOMPARE(window->state()->selection(), (Selection{60, 101}));
    }

    void hoverShowsPositionDimAndValue()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        HeatmapView *heatmap = window->heatmapView();
        QTest::mouseMove(heatmap->plot(), heatmap->cellCentre(30, 7));
        QTRY_VERIFY(heatmap->readout().contains(QLatin1String("p = 30, i = 7")));
        const double value = test::referenceInterleaved(30, 7, 128, 10000.0);
        QVERIFY2(heatmap->readout().contains(QString::number(value, 'f', 4).left(6)),
                 qPrintable(heatmap->readout()));
        // The status bar gives the cell's formula with its numbers: column 7 is the cosine of
        // pair 3, angle 30 / 10000^(6/128).
        const auto status = [&] { return window->statusBar()->currentMessage(); };
        QTRY_VERIFY2(status().startsWith(QStringLiteral("PE(30, 7) = cos(30 / 10000^(6/128)) = "
                                                        "cos(30 × ")),
                     qPrintable(status()));
        QVERIFY2(status().contains(QString::number(std::pow(10000.0, -6.0 / 128.0), 'g', 6)),
                 qPrintable(status()));

        // Issue 25: what the readout says follows the matrix under a mouse that stays put: a new
        // base recomputes the hovered cell's value and formula.
        typeInto(qobject_cast<QLineEdit *>(
                     window->parameterPanel()->specForm()->editor(QStringLiteral("base"))),
                 QStringLiteral("500"));
        QVERIFY(waitSettled(*window));
        const double rebased = test::referenceInterleaved(30, 7, 128, 500.0);
        QTRY_VERIFY2(heatmap->readout().contains(
                         QStringLiteral("p = 30, i = 7, value = %1").arg(rebased, 0, 'f', 6)),
                     qPrintable(heatmap->readout()));
        QVERIFY2(status().startsWith(QLatin1String("PE(30, 7) = cos(30 / 500^(6/128))")),
                 qPrintable(status()));
        // Another scheme: no number of the old one stays on screen.
        auto *scheme = qobject_cast<QComboBox *>(
            window->parameterPanel()->specForm()->editor(QStringLiteral("scheme")));
        QVERIFY(scheme);
        scheme->setFocus();
        QTest::keyClick(scheme, Qt::Key_Down); // learned
        QCOMPARE(window->state()->spec().schemeId(), QStringLiteral("learned"));
        QVERIFY(!heatmap->readout().contains(QString::number(rebased, 'f', 6)));
        QVERIFY(waitSettled(*window));
        QVERIFY2(!status().startsWith(QLatin1String("PE(")), qPrintable(status()));
        // The mouse leaves: the hint again, and the formula goes.
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(heatmap->plot(), &leave);
        QCOMPARE(heatmap->readout(), HeatmapView::hint());
        QCOMPARE(status(), QString());
    }

    // Issue 25: the dark theme toggled on the Phrases page, then Ctrl+1: the waves still sit over
    // the heatmap pixel for pixel (the plots were rebuilt while hidden).
    void themeChangedOnAnotherPageKeepsTheAlignment()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier | Qt::AltModifier); // Géron
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(window->state()->theme(), Theme::Dark);
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier);
        QVERIFY(waitSettled(*window));
        QCustomPlot *waves = window->wavesView()->plot();
        HeatmapView *heatmap = window->heatmapView();
        const auto wavesX = [&](qint64 p) {
            return waves->mapTo(window.get(), window->wavesView()->curvePoint(p, 100)).x();
        };
        const auto heatmapX = [&](qint64 p) {
            return heatmap->plot()->mapTo(window.get(), heatmap->cellCentre(p, 0)).x();
        };
        for (const qint64 p : {0, 60, 200})
            QTRY_VERIFY2(std::abs(wavesX(p) - heatmapX(p)) <= 1,
                         qPrintable(QStringLiteral("p = %1: waves at %2, heatmap at %3")
                                        .arg(p)
                                        .arg(wavesX(p))
                                        .arg(heatmapX(p))));
    }

    // Help > Keyboard shortcuts lists every shortcut of every action, generated from the window;
    // F1 explains the current page's views with their formulas.
    void helpListsEveryShortcutAndExplainsTheViews()
    {
        auto window = openWindow();
        QVERIFY(QTest::qWaitForWindowActive(window.get()));
        const QList<ShortcutEntry> entries = shortcutEntries(window.get());
        ShortcutsDialog dialog(window.get());
        QTableWidget *table = dialog.table();
        QCOMPARE(table->rowCount(), int(entries.size()));
        QStringList listed;
        for (int r = 0; r < table->rowCount(); ++r)
            listed.append(table->item(r, 0)->text() + QLatin1Char('|') + table->item(r, 1)->text());
        const QList<QAction *> actions = window->findChildren<QAction *>();
        int withKeys = 0;
        for (const QAction *action : actions) {
            if (action->shortcuts().isEmpty())
                continue;
            ++withKeys;
            for (const QKeySequence &keys : action->shortcuts()) {
                const QString text = keys.toString(QKeySequence::NativeText);
                QVERIFY2(std::any_of(listed.begin(), listed.end(),
                                     [&](const QString &row) {
                                         return row.section(QLatin1Char('|'), 0, 0)
                                             .split(QStringLiteral(", "))
                                             .contains(text);
                                     }),
                         qPrintable(action->text() + QStringLiteral(": ") + text));
            }
        }
        QVERIFY(withKeys >= 20);
        const QString undoKeys =
            QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText);
        QVERIFY2(std::any_of(listed.begin(), listed.end(),
                             [&](const QString &row) {
                                 return row.startsWith(undoKeys) &&
                                        row.endsWith(QLatin1String("|Undo"));
                             }),
                 qPrintable(listed.join(QLatin1Char('\n'))));
        QVERIFY(listed.contains(QStringLiteral("Ctrl+T|Transpose heatmap")));

        // F1 on the Encoding page: the waves and the heatmap, with the sinusoid's formula.
        QTest::keyClick(window.get(), Qt::Key_F1);
        auto *help = window->findChild<ViewHelpDialog *>();
        QVERIFY(help);
        QVERIFY(help->isVisible());
        QString html = help->html();
        for (const char *words : {"Heatmap", "Waves", "PE(", "sin(", "10000"})
            QVERIFY2(html.contains(QLatin1String(words)), words);
        // It follows the window: the rope-decay preset shows RoPE's θ and the Decay view.
        QTest::keyClick(window.get(), Qt::Key_4, Qt::ControlModifier | Qt::AltModifier);
        html = help->html();
        for (const char *words : {"Decay", "RoFormer", "θ", "no scaling"})
            QVERIFY2(html.contains(QString::fromUtf8(words)), words);
        // With Llama 3.1's scaling, the rule in use is named with its numbers.
        EncodingSpec spec = window->state()->spec();
        RopeScheme &rope = std::get<RopeScheme>(spec.scheme);
        rope.ropeType = RopeType::Llama3;
        rope.factor = 8;
        rope.originalMaxPositionEmbeddings = 8192;
        QVERIFY(window->state()->setSpec(spec));
        html = help->html();
        for (const char *words : {"Llama 3", "8192", "= 8"})
            QVERIFY2(html.contains(QString::fromUtf8(words)), words);
    }

    void typingAPhraseUpdatesVocabularyAndGrid()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window->pages()->currentIndex(), 1);
        PhraseView *view = window->phraseView();
        const int before = view->phraseEditCount();
        QTest::mouseClick(view->addPhraseButton(), Qt::LeftButton);
        QCOMPARE(view->phraseEditCount(), before + 1);
        // The new row is not flagged before anything is typed (issue 38 item 8); Enter on it
        // empty is refused, visibly, until words are typed.
        const QColor base = view->phraseEdit(0)->palette().color(QPalette::Base);
        QVERIFY2(view->message().isEmpty(), qPrintable(view->message()));
        QCOMPARE(view->phraseEdit(before)->palette().color(QPalette::Base), base);
        QTest::keyClick(view->phraseEdit(before), Qt::Key_Return);
        QVERIFY2(view->message().contains(QLatin1String("empty")), qPrintable(view->message()));
        QVERIFY(view->phraseEdit(before)->palette().color(QPalette::Base) != base);
        QCOMPARE(window->state()->phraseSettings().phrases.size(), before);
        QTest::keyClicks(view->phraseEdit(before), QStringLiteral("Zebras dance, zebras sing"));
        // Applied on commit (Enter, leaving the field, or a pause), not key by key.
        QCOMPARE(window->state()->phraseSettings().phrases.size(), before);
        QTest::keyClick(view->phraseEdit(before), Qt::Key_Return);
        QVERIFY(view->message().isEmpty());
        QVERIFY(waitSettled(*window));
        QCOMPARE(window->state()->phraseSettings().phrases.size(), before + 1);
        QStringList vocabulary;
        const QAbstractItemModel *table = view->vocabularyTable()->model();
        for (int row = 0; row < table->rowCount(); ++row)
            vocabulary.append(table->index(row, 1).data().toString());
        QVERIFY2(vocabulary.contains(QStringLiteral("zebras")), qPrintable(vocabulary.join(u' ')));
        QVERIFY(vocabulary.contains(QStringLiteral("dance")));
        QCOMPARE(view->idsTable()->model()->rowCount(), before + 1);
        // One heatmap per phrase in each of the two rows.
        int maps = 0;
        for (int i = 0; i < view->gridPlot()->plottableCount(); ++i)
            maps += qobject_cast<QCPColorMap *>(view->gridPlot()->plottable(i)) ? 1 : 0;
        QCOMPARE(maps, 2 * (before + 1));
        QVERIFY(distinctColours(render(view->gridPlot())) > 20);
    }

    void clickingATokenComparesIt()
    {
        auto window = openWindow();
        QString error;
        QVERIFY(window->applyPreset(QStringLiteral("keras-phrases"), &error));
        QVERIFY(waitSettled(*window));
        PhraseView *view = window->phraseView();
        QTest::mouseClick(view->gridPlot(), Qt::LeftButton, {},
                          view->gridCellCentre(1, EmbeddingMode::Random, 5, 10));
        QCOMPARE(window->state()->phraseSelection(),
                 (PhraseSelection{1, 5, EmbeddingMode::Random}));
        QVERIFY(waitSettled(*window));
        // Two bar series (random, fixed) over the other phrase's 20 tokens.
        QCPBars *bars = nullptr;
        for (int i = 0; i < view->similarityPlot()->plottableCount(); ++i)
            if (auto *b = qobject_cast<QCPBars *>(view->similarityPlot()->plottable(i)))
                bars = b;
        QVERIFY(bars);
        QCOMPARE(bars->data()->size(), 20);
    }

    void geronPresetByShortcut()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_1, Qt::ControlModifier | Qt::AltModifier);
        QVERIFY(waitSettled(*window));
        const ExplorerState *state = window->state();
        QCOMPARE(state->spec().positions, 201);
        QCOMPARE(state->spec().dims, 512);
        QCOMPARE(state->colormap(), Colormap::Gray);
        QVERIFY(state->transposed());
        QCOMPARE(state->heatmapDimLimit(), 150);
        QCOMPARE(state->markers(), (QList<qint64>{22, 60}));
        QCOMPARE(window->pages()->currentIndex(), 0);

        HeatmapView *heatmap = window->heatmapView();
        const QImage image = render(heatmap->plot());
        QVERIFY(distinctColours(image) > 20);
        QVERIFY(distinctColours(render(window->wavesView()->plot())) > 5);
        // Transposed and cropped: positions across, 150 dims down.
        QCPColorMap *map = firstColorMap(heatmap->plot());
        QCOMPARE(map->data()->keySize(), 201);
        QCOMPARE(map->data()->valueSize(), 150);
        double vmin = 1e9, vmax = -1e9;
        for (qint64 p = 0; p < 201; ++p)
            for (qint64 j = 0; j < 512; ++j) {
                const double v = test::referenceInterleaved(p, j, 512, 10000.0);
                vmin = std::min(vmin, v);
                vmax = std::max(vmax, v);
            }
        for (const auto &[p, j] : {std::pair<qint64, qint64>{150, 40}, {5, 3}, {180, 130}})
            verifyCellColour(image, heatmap->cellCentre(p, j), Colormap::Gray,
                             test::referenceInterleaved(p, j, 512, 10000.0), vmin, vmax);
        // As the book draws Fig 16-9 (origin lower): dim 0 at the bottom, below dim 149.
        QVERIFY(heatmap->cellCentre(0, 0).y() > heatmap->cellCentre(0, 149).y());
        // And as Géron's notebook styles it: i = 100 and i = 101 both solid ("b-", "r-"), the
        // p = 60 line faded (alpha 0.5) where p = 22's is not, and on the heatmap the i = 101
        // line raised two rows ("cheat = 2") so that it does not hide i = 100's.
        QCustomPlot *waves = window->wavesView()->plot();
        const auto graphNamed = [waves](const QString &name) -> QCPGraph * {
            for (int g = 0; g < waves->graphCount(); ++g)
                if (waves->graph(g)->name() == name)
                    return waves->graph(g);
            return nullptr;
        };
        for (const QString &name : {u"i = 100 (sin)"_qs, u"i = 101 (cos)"_qs}) {
            QVERIFY2(graphNamed(name), qPrintable(name));
            QCOMPARE(graphNamed(name)->pen().style(), Qt::SolidLine);
        }
        QVERIFY(graphNamed(u"p = 22"_qs) && graphNamed(u"p = 60"_qs));
        QCOMPARE(graphNamed(u"p = 22"_qs)->pen().color().alphaF(), 1.0);
        PE_COMPARE_CLOSER_THAN(graphNamed(u"p = 60"_qs)->pen().color().alphaF(), 0.5, 0.01);
        QList<double> dimLines;
        for (int i = 0; i < heatmap->plot()->itemCount(); ++i)
            if (auto *line = qobject_cast<QCPItemStraightLine *>(heatmap->plot()->item(i)))
                if (line->point1->coords().y() == line->point2->coords().y())
                    dimLines.append(line->point1->coords().y());
        std::sort(dimLines.begin(), dimLines.end());
        QCOMPARE(dimLines, (QList<double>{100.0, 102.0}));

        // The waves' x axis over the heatmap's, pixel for pixel, at several window sizes.
        for (const QSize size : {QSize(1400, 900), QSize(1280, 720), QSize(1700, 1000)}) {
            window->resize(size);
            QVERIFY(waitSettled(*window));
            const auto wavesX = [&](qint64 p) {
                return waves->mapTo(window.get(), window->wavesView()->curvePoint(p, 100)).x();
            };
            const auto heatmapX = [&](qint64 p) {
                return heatmap->plot()->mapTo(window.get(), heatmap->cellCentre(p, 0)).x();
            };
            for (const qint64 p : {0, 60, 200})
                QTRY_VERIFY2(
                    std::abs(wavesX(p) - heatmapX(p)) <= 1,
                    qPrintable(QStringLiteral("%1 x %2, p = %3: waves at %4, heatmap at %5")
                                   .arg(size.width())
                                   .arg(size.height())
                                   .arg(p)
                                   .arg(wavesX(p))
                                   .arg(heatmapX(p))));
        }
        // sharex: zooming the heatmap zooms the waves with it; the waves are not zoomed apart.
        QCPAxisRect *wavesRect = waves->axisRect();
        QCOMPARE(wavesRect->rangeDrag(), Qt::Orientations());
        QCOMPARE(wavesRect->rangeZoom(), Qt::Orientations());
        const QPointF centre = heatmap->cellCentre(100, 50);
        QWheelEvent wheel(centre, heatmap->plot()->mapToGlobal(centre), QPoint(), QPoint(0, 240),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(heatmap->plot(), &wheel);
        QVERIFY(waitSettled(*window));
        const QCPRange zoomed = heatmap->plot()->axisRect()->axis(QCPAxis::atBottom)->range();
        QVERIFY2(zoomed.size() < 190, qPrintable(QString::number(zoomed.size())));
        QTRY_COMPARE(wavesRect->axis(QCPAxis::atBottom)->range(), zoomed);
        QVERIFY2(window->wavesView()->shareReadout().contains(QLatin1String("60")),
                 qPrintable(window->wavesView()->shareReadout()));
        QVERIFY2(window->computeInfo().contains(QLatin1String("cpu")),
                 qPrintable(window->computeInfo()));
    }

    void kerasPresetByShortcut()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier | Qt::AltModifier);
        QVERIFY(waitSettled(*window));
        const PhraseSettings &s = window->state()->phraseSettings();
        QCOMPARE(s.phrases.size(), 2);
        QVERIFY(s.phrases[0].startsWith(QLatin1String("to understand machine learning")));
        QVERIFY(s.phrases[1].startsWith(QLatin1String("patrick henry said")));
        QCOMPARE(s.maxTokens, 200);
        QCOMPARE(s.sequenceLength, 20);
        QCOMPARE(s.dims, 50);
        QCOMPARE(window->pages()->currentIndex(), 1);

        PhraseView *view = window->phraseView();
        const QStringList vocabulary = kerasVocabulary(s.phrases);
        QCOMPARE(view->vocabularyTable()->model()->rowCount(), vocabulary.size());
        QCOMPARE(view->vocabularyTable()->model()->index(2, 1).data().toString(), vocabulary[2]);

        // Fixed row: value = PE(id, j) + PE(p, j) with d = 50; one colour scale for the row.
        auto ids = [&](int phrase) {
            QList<qint64> out;
            for (const QString &t : s.phrases[phrase].split(QLatin1Char(' '), Qt::SkipEmptyParts))
                out.append(vocabulary.indexOf(t));
            while (out.size() < 20)
                out.append(0);
            return out.mid(0, 20);
        };
        auto fixedValue = [&](int phrase, qint64 p, qint64 j) {
            return test::referenceInterleaved(ids(phrase)[p], j, 50, 10000.0) +
                   test::referenceInterleaved(p, j, 50, 10000.0);
        };
        double vmin = 1e9, vmax = -1e9;
        for (int b = 0; b < 2; ++b)
            for (qint64 p = 0; p < 20; ++p)
                for (qint64 j = 0; j < 50; ++j) {
                    vmin = std::min(vmin, fixedValue(b, p, j));
                    vmax = std::max(vmax, fixedValue(b, p, j));
                }
        const QImage image = render(view->gridPlot());
        QVERIFY(distinctColours(image) > 20);
        for (const auto &[b, p, j] :
             {std::tuple<int, qint64, qint64>{1, 3, 7}, {0, 12, 20}, {1, 18, 1}})
            verifyCellColour(image, view->gridCellCentre(b, EmbeddingMode::Fixed, p, j),
                             Colormap::Viridis, fixedValue(b, p, j), vmin, vmax);
    }

    void invalidValuesAreRefusedAndTheViewStays()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        const auto shown = window->heatmapView()->result();
        ParameterPanel *panel = window->parameterPanel();
        FieldForm *spec = panel->specForm();
        auto *dims = qobject_cast<QLineEdit *>(spec->editor(QStringLiteral("dims")));
        auto *positions = qobject_cast<QLineEdit *>(spec->editor(QStringLiteral("positions")));
        auto *base = qobject_cast<QLineEdit *>(spec->editor(QStringLiteral("base")));
        QVERIFY(dims && positions && base);
        const auto says = [&](const char *words) {
            return panel->message().contains(QLatin1String(words), Qt::CaseInsensitive);
        };

        typeInto(dims, QStringLiteral("0"));
        QVERIFY2(says("dims must be between 1"), qPrintable(panel->message()));
        QVERIFY(window->findChild<QLabel *>(QStringLiteral("dimsMessage"))->isVisible());
        typeInto(positions, QStringLiteral("x12"));
        QVERIFY2(says("must be a whole number"), qPrintable(panel->message()));
        typeInto(base, QStringLiteral("0.5"));
        QVERIFY2(says("base"), qPrintable(panel->message()));
        typeInto(positions, QStringLiteral("99999999999"));
        QVERIFY2(says("positions must be between 1 and 16777216"), qPrintable(panel->message()));
        // One message, beside the field it explains.
        QCOMPARE(panel->message().count(QLatin1Char('\n')), 0);
        QVERIFY(waitSettled(*window));
        QCOMPARE(window->state()->spec().dims, 128);
        QCOMPARE(window->state()->spec().positions, 200);
        QCOMPARE(window->state()->spec().get<SinusoidalScheme>()->base, 10000.0);
        QCOMPARE(window->heatmapView()->result(), shown);

        auto *waveDims =
            qobject_cast<QLineEdit *>(panel->viewForm()->editor(QStringLiteral("waveDims")));
        QVERIFY(waveDims);
        const QList<qint64> before = window->state()->waveDims();
        typeInto(waveDims, QStringLiteral("3, 999"));
        QVERIFY2(says("999"), qPrintable(panel->message()));
        // Nothing half-typed was applied on the way ("3, 99" never reached the state).
        QCOMPARE(window->state()->waveDims(), before);

        // Good values clear the message again.
        typeInto(dims, QStringLiteral("64"));
        typeInto(positions, QStringLiteral("100"));
        typeInto(base, QStringLiteral("10000"));
        typeInto(waveDims, QStringLiteral("3, 4"));
        QVERIFY2(panel->message().isEmpty(), qPrintable(panel->message()));
        QVERIFY(waitSettled(*window));
        QCOMPARE(window->heatmapView()->result()->spec.dims, 64);
        QCOMPARE(window->state()->waveDims(), (QList<qint64>{3, 4}));

        // The phrase page refuses a phrase with no words.
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        PhraseView *phrases = window->phraseView();
        const QStringList good = window->state()->phraseSettings().phrases;
        typeInto(phrases->phraseEdit(0), QStringLiteral("?!"));
        QVERIFY2(phrases->message().contains(QLatin1String("phrase 1")),
                 qPrintable(phrases->message()));
        QCOMPARE(window->state()->phraseSettings().phrases, good);
        auto *maxTokens = window->findChild<QLineEdit *>(QStringLiteral("phraseMaxTokens"));
        QVERIFY(maxTokens);
        typeInto(maxTokens, QStringLiteral("2"));
        QVERIFY2(phrases->message().contains(QLatin1String("Max tokens")),
                 qPrintable(phrases->message()));
        QCOMPARE(window->state()->phraseSettings().maxTokens, 200);
    }

    void shortcutsThemeAndTooltips()
    {
        auto window = openWindow();
        QVERIFY(waitSettled(*window));
        QTest::keyClick(window.get(), Qt::Key_T, Qt::ControlModifier);
        QVERIFY(window->state()->transposed());
        QTest::keyClick(window.get(), Qt::Key_M, Qt::ControlModifier);
        QCOMPARE(window->state()->colormap(), Colormap::Plasma);
        // The chooser previews every map: each item's icon is the map itself, left to right.
        auto *maps = window->findChild<QComboBox *>(QStringLiteral("colormap"));
        QVERIFY(maps);
        QCOMPARE(maps->count(), int(allColormaps().size()));
        for (int i = 0; i < maps->count(); ++i) {
            const auto map = parseAs<Colormap>(colormapNames, maps->itemData(i).toString());
            QVERIFY(map);
            const QImage icon = maps->itemIcon(i).pixmap(maps->iconSize()).toImage();
            QVERIFY(!icon.isNull());
            const int w = icon.width();
            QCOMPARE(icon.pixel(0, icon.height() / 2) & 0xffffff,
                     colormapColor(*map, 0.5 / w, 0.0, 1.0) & 0xffffff);
            QCOMPARE(icon.pixel(w - 1, icon.height() / 2) & 0xffffff,
                     colormapColor(*map, (w - 0.5) / w, 0.0, 1.0) & 0xffffff);
        }
        QTest::keyClick(window.get(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(window->state()->theme(), Theme::Dark);
        QVERIFY(waitSettled(*window));
        const QImage dark = render(window->wavesView()->plot());
        QCOMPARE(dark.pixel(2, 2) & 0xffffff, plotTheme(Theme::Dark).background.rgb() & 0xffffff);
        QTest::keyClick(window.get(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(window->state()->theme(), Theme::Light);

        // Every control says what it does.
        QStringList missing;
        const QList<QWidget *> widgets = window->findChildren<QWidget *>();
        for (QWidget *w : widgets) {
            const bool control = qobject_cast<QLineEdit *>(w) || qobject_cast<QComboBox *>(w) ||
                                 qobject_cast<QAbstractButton *>(w) || qobject_cast<QSlider *>(w);
            if (!control || w->toolTip().isEmpty() == false || !w->isVisibleTo(window.get()))
                continue;
            if (qobject_cast<QLineEdit *>(w) && qobject_cast<QComboBox *>(w->parentWidget()))
                continue; // a combo box's internal editor
            if (w->objectName().startsWith(QLatin1String("qt_")))
                continue; // Qt's own (scroll area corners, tab scrollers)
            missing.append(QStringLiteral("%1 (%2)").arg(
                w->objectName(), QString::fromLatin1(w->metaObject()->className())));
        }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QStringLiteral(", "))));
    }

    void settingsAreRestored()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("pescope.ini"));
        {
            auto window = openWindow(file);
            QVERIFY(waitSettled(*window));
            typeInto(window->findChild<QLineEdit *>(QStringLiteral("dims")), QStringLiteral("33"));
            window->state()->setColormap(Colormap::Magma);
            window->close();
        }
        auto window = openWindow(file);
        QCOMPARE(window->state()->spec().dims, 33);
        QCOMPARE(window->state()->colormap(), Colormap::Magma);
        QVERIFY(waitSettled(*window));
        QCOMPARE(window->heatmapView()->result()->spec.dims, 33);
    }
};

QTEST_MAIN(TestExplorer)
#include "tst_explorer.moc"
