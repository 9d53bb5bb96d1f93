// Figure export: `pescope export` PNG / SVG / PDF against the formula, the colormap tables and
// the files' own structure, plus every bad input of issue 4 (one line, exit code, no file).
#include "testutil.h"

#include "compute/viewdata.h"
#include "dialogs/exportdialog.h"
#include "figures/figureexporter.h"
#include "figures/figurepainter.h"
#include "figures/qcpinclude.h"
#include "figures/tablefigures.h"
#include "figures/viewfigures.h"
#include "model/modelspec.h"
#include "modelfilewriter.h"
#include "state/colormaps.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "textrecorder.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFontDatabase>
#include <QImage>
#include <QLabel>
#include <QPaintEngine>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <cmath>

using namespace pe;
using namespace pe::test;

namespace {

// The matrix as the seeds define it, in float64, and its extremes as pescope's float32 holds
// them (the colour scale spans the float32 minimum and maximum).
struct Reference
{
    qint64 positions = 0, dims = 0;
    std::vector<double> values;
    double minimum = 0, maximum = 0;
    double at(qint64 p, qint64 i) const { return values[std::size_t(p * dims + i)]; }
};

Reference reference(qint64 positions, qint64 dims)
{
    Reference r;
    r.positions = positions;
    r.dims = dims;
    r.minimum = 1e9;
    r.maximum = -1e9;
    for (qint64 p = 0; p < positions; ++p)
        for (qint64 i = 0; i < dims; ++i) {
            const double v = referenceInterleaved(p, i, dims, 10000.0);
            r.values.push_back(v);
            r.minimum = std::min(r.minimum, double(float(v)));
            r.maximum = std::max(r.maximum, double(float(v)));
        }
    return r;
}

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2) {
        const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(line[x] & 0xffffff);
    }
    return int(colours.size());
}

bool isTableColour(Colormap map, QRgb colour)
{
    for (int k = 0; k < colormapSize(map); ++k) {
        const QRgb c = colormapRgb(map, k);
        if (std::abs(qRed(c) - qRed(colour)) <= 1 && std::abs(qGreen(c) - qGreen(colour)) <= 1 &&
            std::abs(qBlue(c) - qBlue(colour)) <= 1)
            return true;
    }
    return false;
}

// The heatmap's cell area in a one-panel figure: the largest <image> of the same figure as
// SVG, whose user units are the PNG's pixels at 96 dpi (the two share one layout).
QRectF heatmapRect(const QByteArray &svg)
{
    QXmlStreamReader xml(svg);
    QRectF best;
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement &&
            xml.name() == QLatin1String("image")) {
            const QXmlStreamAttributes a = xml.attributes();
            const QRectF r(a.value(QStringLiteral("x")).toDouble(),
                           a.value(QStringLiteral("y")).toDouble(),
                           a.value(QStringLiteral("width")).toDouble(),
                           a.value(QStringLiteral("height")).toDouble());
            if (r.width() * r.height() > best.width() * best.height())
                best = r;
        }
    return best;
}

QString describe(QRgb c)
{
    return QStringLiteral("rgb(%1, %2, %3)").arg(qRed(c)).arg(qGreen(c)).arg(qBlue(c));
}

bool sameColour(QRgb a, QRgb b)
{
    return std::abs(qRed(a) - qRed(b)) <= 1 && std::abs(qGreen(a) - qGreen(b)) <= 1 &&
           std::abs(qBlue(a) - qBlue(b)) <= 1;
}

// Pixels of the light theme's selection orange (#ff8c00), antialiased edges included: nothing
// else in a grey or viridis Fig 16-9 is that red and that little green and blue.
qint64 orangePixels(const QImage &image)
{
    qint64 count = 0;
    for (int y = 0; y < image.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x) {
            const QRgb c = line[x];
            count += qRed(c) > 220 && qGreen(c) > 100 && qGreen(c) < 180 && qBlue(c) < 80;
        }
    }
    return count;
}

QStringList filesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
}

// The data of `options`' views, computed by the CPU backend once the options validate; false
// with *error naming what failed.
bool computeOnCpu(const ExplorerState &state, const FigureOptions &options, FigureData *data,
                  QString *error)
{
    if (const QString problem = options.validate(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    const std::unique_ptr<Backend> backend = makeBackend(BackendChoice::Cpu, error);
    return backend &&
           computeFigureData(state, options.views, options.choices, *backend, data, error);
}

// A learned position table (48 positions x 8 dims of sinusoids) as the Model page's views see
// it: written as .npy and opened as a model.
bool openTableState(const QString &folder, ExplorerState *state, QString *error)
{
    const qint64 positions = 48, dims = 8;
    std::vector<float> values;
    for (qint64 p = 0; p < positions; ++p)
        for (qint64 j = 0; j < dims; ++j)
            values.push_back(float(std::sin(double(p) * 0.2 * double(j + 1) + double(j))));
    const QString file = QDir(folder).filePath(QStringLiteral("table.npy"));
    if (!writeBytes(file, npyBytes("<f4", {positions, dims}, f32Bytes(values))))
        return false;
    ModelRequest request;
    request.source = file;
    request.table = true;
    const std::optional<ModelLayerSpec> model = openModelSpec(request, error);
    return model && state->setSpec(model->spec, error);
}

// The state a figure view is drawn from: the preset that shows it, or a learned table.
bool stateFor(const QString &source, const QString &folder, ExplorerState *state, QString *error)
{
    if (source == QLatin1String("table"))
        return openTableState(folder, state, error);
    return applyPreset(*state, source, error);
}

// `views` of `source` (stateFor) computed on the CPU for a page of `size` with fonts x
// `fontScale`, the layout's pixels being the page's pixels.
bool computePage(const QString &source, const QString &views, QSize size, double fontScale,
                 const QString &folder, ExplorerState *state, FigureOptions *options,
                 FigureData *data, QString *error)
{
    if (!stateFor(source, folder, state, error))
        return false;
    options->views = *parseFigureViews(views, error);
    options->width = size.width();
    options->height = size.height();
    options->dpi = figureBaseDpi();
    options->style.fontScale = fontScale;
    return computeOnCpu(*state, *options, data, error);
}

// The figure painted on an image of its layout's size, `hooks` called as each panel paints.
bool paintPage(FigureTarget target, const ExplorerState &state, const FigureData &data,
               const FigureOptions &options, const FigurePaintHooks &hooks, QString *error)
{
    const auto [width, height] = figureLayoutSize(options);
    QImage image(width, height, QImage::Format_RGB32);
    QCPPainter painter(&image);
    painter.setMode(QCPPainter::pmNoCaching);
    return paintFigure(&painter, target, state, data, options, error, hooks);
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString &name) const { return m_dir.filePath(name); }

    // Runs `pescope export` and checks success, one report line and the file.
    QByteArray exportOk(const QStringList &args, const QString &out)
    {
        const RunResult r = runPescope(QStringList{QStringLiteral("export")} + args +
                                       QStringList{QStringLiteral("--out"), out});
        if (r.exitCode != 0) {
            qWarning("pescope export failed (%d): %s", r.exitCode, r.err.constData());
            return {};
        }
        QFile file(out);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

private slots:
    // `pescope export --help` lists its views from the view list: every view is named once.
    void helpNamesEveryView()
    {
        const RunResult r = runPescope({QStringLiteral("export"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        const QString help = QString::fromUtf8(r.out);
        const QString description = help.left(help.indexOf(QStringLiteral("Options:")));
        for (const FigureView view : allFigureViews()) {
            const QRegularExpression named(
                QStringLiteral("[ :,]%1[,;.]")
                    .arg(QRegularExpression::escape(figureViewName(view))));
            QVERIFY2(description.count(named) == 1,
                     qPrintable(figureViewName(view) + QStringLiteral(" in:\n") + description));
        }
    }

    // A view's data function (compute/viewdata.cpp) and the shape its entry describes
    // (state/viewlist.cpp) are lines of two tables: every view has both or neither, and one
    // without says so when asked for data.
    void dataFunctionAndShapeGoTogether()
    {
        for (const ViewEntry &e : viewList()) {
            QVERIFY2(hasViewData(e.view) == (*e.dataShape != '\0'), e.name);
            QCOMPARE(noDataExport(e.view).isEmpty(), hasViewData(e.view));
        }
        QVERIFY(hasViewData(FigureView::Heatmap));
        QVERIFY(!hasViewData(FigureView::Spectrum));
    }

    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void pngExactSize_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("dpi");
        QTest::addRow("1500x900 at 96 dpi") << 1500 << 900 << 96;
        QTest::addRow("2400x1600 at 300 dpi") << 2400 << 1600 << 300;
        QTest::addRow("odd 333x217 at 72 dpi") << 333 << 217 << 72;
        QTest::addRow("wide 1999x401 at 150 dpi") << 1999 << 401 << 150;
    }

    void pngExactSize()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, dpi);
        const QString out = path(QStringLiteral("size.png"));
        const QByteArray bytes = exportOk(
            {QStringLiteral("--view"), QStringLiteral("heatmap"), QStringLiteral("--positions"),
             QStringLiteral("64"), QStringLiteral("--dims"), QStringLiteral("32"),
             QStringLiteral("--width"), QString::number(width), QStringLiteral("--height"),
             QString::number(height), QStringLiteral("--dpi"), QString::number(dpi)},
            out);
        QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
        QImage image;
        QVERIFY(image.loadFromData(bytes, "PNG"));
        QCOMPARE(image.width(), width);
        QCOMPARE(image.height(), height);
        PE_COMPARE_NEAR(image.dotsPerMeterX() * 0.0254, dpi, 0.05);
        QVERIFY2(distinctColours(image) > 50, "the figure looks blank");
    }

    // Every cell of a small viridis heatmap has the colour matplotlib would give its value:
    // the seeds' formula in float64, normalised over the matrix, looked up in the table.
    void pngCellColours()
    {
        const qint64 positions = 20, dims = 10;
        const QStringList args = {QStringLiteral("--view"),           QStringLiteral("heatmap"),
                                  QStringLiteral("--positions"),      QString::number(positions),
                                  QStringLiteral("--dims"),           QString::number(dims),
                                  QStringLiteral("--mark-dims"),      QStringLiteral("0"),
                                  QStringLiteral("--mark-positions"), QString(),
                                  QStringLiteral("--select"),         QStringLiteral("0@0"),
                                  QStringLiteral("--width"),          QStringLiteral("900"),
                                  QStringLiteral("--height"),         QStringLiteral("700")};
        const QByteArray bytes = exportOk(args, path(QStringLiteral("cells.png")));
        QImage image;
        QVERIFY(image.loadFromData(bytes, "PNG"));
        const QRectF area = heatmapRect(exportOk(args, path(QStringLiteral("cells.svg"))));
        QVERIFY2(area.width() > 200 && area.height() > 200, "heatmap area not found");
        const Reference ref = reference(positions, dims);
        int checked = 0;
        for (qint64 p = 1; p < positions; ++p)
            for (qint64 i = 1; i < dims; ++i) {
                const double t = normalizeValue(ref.at(p, i), ref.minimum, ref.maximum);
                // Values within a hair of a table boundary could fall either way in float32.
                if (std::abs(t * 256 - std::round(t * 256)) < 1e-3)
                    continue;
                const QRgb expected =
                    colormapColor(Colormap::Viridis, ref.at(p, i), ref.minimum, ref.maximum);
                const int x = int(area.left() + (i + 0.5) * area.width() / dims);
                const int y = int(area.top() + (p + 0.5) * area.height() / positions);
                const QRgb got = image.pixel(x, y);
                QVERIFY2(sameColour(got, expected),
                         qPrintable(QStringLiteral("cell p = %1, i = %2: %3, expected %4")
                                        .arg(p)
                                        .arg(i)
                                        .arg(describe(got), describe(expected))));
                ++checked;
            }
        QVERIFY(checked > 150);
    }

    // Fig 16-9's heatmap: transposed (dims down the y axis) and grey.
    void pngTransposedGray()
    {
        const QStringList args = {QStringLiteral("--view"),
                                  QStringLiteral("heatmap"),
                                  QStringLiteral("--positions"),
                                  QStringLiteral("16"),
                                  QStringLiteral("--dims"),
                                  QStringLiteral("12"),
                                  QStringLiteral("--transpose"),
                                  QStringLiteral("--colormap"),
                                  QStringLiteral("gray"),
                                  QStringLiteral("--mark-dims"),
                                  QStringLiteral("0"),
                                  QStringLiteral("--mark-positions"),
                                  QString(),
                                  QStringLiteral("--select"),
                                  QStringLiteral("0@0"),
                                  QStringLiteral("--width"),
                                  QStringLiteral("800"),
                                  QStringLiteral("--height"),
                                  QStringLiteral("600")};
        QImage image;
        QVERIFY(image.loadFromData(exportOk(args, path(QStringLiteral("gray.png"))), "PNG"));
        const QRectF area = heatmapRect(exportOk(args, path(QStringLiteral("gray.svg"))));
        QVERIFY(area.width() > 200 && area.height() > 200);
        const Reference ref = reference(16, 12);
        for (const auto &[p, i] : {std::pair{5, 3}, std::pair{11, 7}, std::pair{14, 10}}) {
            const QRgb expected =
                colormapColor(Colormap::Gray, ref.at(p, i), ref.minimum, ref.maximum);
            // Transposed: positions along x, dims down y.
            const int x = int(area.left() + (p + 0.5) * area.width() / 16);
            const int y = int(area.top() + (i + 0.5) * area.height() / 12);
            QVERIFY2(sameColour(image.pixel(x, y), expected),
                     qPrintable(QStringLiteral("p = %1, i = %2: %3, expected %4")
                                    .arg(p)
                                    .arg(i)
                                    .arg(describe(image.pixel(x, y)), describe(expected))));
        }
    }

    void svgIsVector()
    {
        const QString out = path(QStringLiteral("fig.svg"));
        const QByteArray svg = exportOk(
            {QStringLiteral("--preset"), QStringLiteral("geron-16-9"), QStringLiteral("--view"),
             QStringLiteral("waves+heatmap"), QStringLiteral("--width"), QStringLiteral("1200"),
             QStringLiteral("--height"), QStringLiteral("1000"), QStringLiteral("--dpi"),
             QStringLiteral("150"), QStringLiteral("--title"), QStringLiteral("Figure 16-9")},
            out);
        QXmlStreamReader xml(svg);
        QMap<QString, int> elements;
        QStringList texts;
        QString width, height;
        QList<QByteArray> images;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement)
                continue;
            const QString name = xml.name().toString();
            ++elements[name];
            if (name == QLatin1String("svg")) {
                width = xml.attributes().value(QStringLiteral("width")).toString();
                height = xml.attributes().value(QStringLiteral("height")).toString();
            } else if (name == QLatin1String("image")) {
                QVERIFY(xml.attributes()
                            .value(QStringLiteral("style"))
                            .contains(QStringLiteral("pixelated")));
                const QString href = xml.attributes()
                                         .value(QStringLiteral("http://www.w3.org/1999/xlink"),
                                                QStringLiteral("href"))
                                         .toString();
                images.append(QByteArray::fromBase64(href.section(QLatin1Char(','), 1).toLatin1()));
            } else if (name == QLatin1String("text")) {
                texts.append(xml.readElementText().trimmed());
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        // Curves, markers and axes as vector elements, the labels as text.
        QVERIFY2(elements.value(QStringLiteral("polyline")) +
                         elements.value(QStringLiteral("path")) >
                     20,
                 "too few vector path elements");
        QVERIFY(elements.value(QStringLiteral("circle")) +
                    elements.value(QStringLiteral("ellipse")) >=
                4); // the dots at p = 22 and 60
        for (const char *label : {"position p", "dimension i", "PE(p, i)", "Figure 16-9",
                                  "i = 100 (sin)", "i = 101 (cos)"})
            QVERIFY2(texts.contains(QLatin1String(label)), label);
        // 1200 x 1000 pixels at 150 dpi: 203.2 x 169.333 mm.
        QCOMPARE(width, QStringLiteral("203.200mm"));
        QCOMPARE(height, QStringLiteral("169.333mm"));
        // The heatmap (201 positions x the first 150 dims) is embedded with a whole number of
        // image pixels per cell, each cell one uniform block.
        bool found = false;
        for (const QByteArray &png : images) {
            QImage image;
            QVERIFY(image.loadFromData(png, "PNG"));
            if (image.width() % 201 != 0 || image.height() % 150 != 0)
                continue;
            found = true;
            const int fx = image.width() / 201, fy = image.height() / 150;
            const Reference ref = reference(201, 512);
            // The preset draws dimension 0 at the bottom (origin lower), as the book does.
            for (const auto &[p, i] : {std::pair{0, 0}, std::pair{22, 100}, std::pair{150, 149}}) {
                const QRgb expected =
                    colormapColor(Colormap::Gray, ref.at(p, i), ref.minimum, ref.maximum);
                const int row = 149 - i;
                QVERIFY(sameColour(image.pixel(p * fx, row * fy), expected));
                QVERIFY(sameColour(image.pixel(p * fx + fx - 1, row * fy + fy - 1), expected));
            }
        }
        QVERIFY2(found, "no full-resolution heatmap image in the SVG");
    }

    void pdfPageAndRender()
    {
        const QString out = path(QStringLiteral("fig.pdf"));
        const QByteArray pdf =
            exportOk({QStringLiteral("--preset"), QStringLiteral("keras-phrases"),
                      QStringLiteral("--view"), QStringLiteral("phrases"),
                      QStringLiteral("--width"), QStringLiteral("1800"), QStringLiteral("--height"),
                      QStringLiteral("1200"), QStringLiteral("--dpi"), QStringLiteral("300")},
                     out);
        QVERIFY(pdf.startsWith("%PDF"));
        // 1800 x 1200 pixels at 300 dpi: 6 x 4 inches, 432 x 288 points.
        static const QRegularExpression mediaBox(
            QStringLiteral("/MediaBox \\[\\s*0 0 ([0-9.]+) ([0-9.]+)\\s*\\]"));
        const QRegularExpressionMatch m = mediaBox.match(QString::fromLatin1(pdf));
        QVERIFY(m.hasMatch());
        PE_COMPARE_NEAR(m.captured(1).toDouble(), 432.0, 0.5);
        PE_COMPARE_NEAR(m.captured(2).toDouble(), 288.0, 0.5);
        QVERIFY2(!pdf.contains("/DCTDecode"), "the heatmaps must not be JPEG-compressed");

        const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
        if (pdftoppm.isEmpty())
            PE_SKIP_MISSING(
                "pdftoppm (Debian poppler-utils) is not installed: cannot render the PDF");
        QProcess render;
        const QString prefix = path(QStringLiteral("rendered"));
        render.start(pdftoppm, {QStringLiteral("-r"), QStringLiteral("100"), QStringLiteral("-png"),
                                QStringLiteral("-singlefile"), out, prefix});
        QVERIFY(render.waitForFinished(60000));
        QCOMPARE(render.exitCode(), 0);
        QImage page(prefix + QStringLiteral(".png"));
        QVERIFY(!page.isNull());
        QCOMPARE(page.width(), 600); // 6 inches at 100 dpi
        QCOMPARE(page.height(), 400);
        QVERIFY2(distinctColours(page) > 50, "the rendered PDF page looks blank");
        // The viridis cells survive: many pixels are table colours.
        int viridis = 0;
        for (int y = 0; y < page.height(); y += 5)
            for (int x = 0; x < page.width(); x += 5)
                viridis += isTableColour(Colormap::Viridis, page.pixel(x, y));
        QVERIFY2(viridis > 1500, qPrintable(QString::number(viridis)));
    }

    // The same state through a preset and through a saved session: identical bytes.
    void sessionRoundTripIdenticalPng()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("geron-16-9"), &error), qPrintable(error));
        const QString session = path(QStringLiteral("geron.json"));
        QVERIFY2(saveSession(state, session, &error), qPrintable(error));
        ExplorerState loaded;
        QVERIFY2(loadSession(session, &loaded, &error), qPrintable(error));
        QCOMPARE(loaded.toJson(), state.toJson());

        const QStringList common = {QStringLiteral("--view"),   QStringLiteral("waves+heatmap"),
                                    QStringLiteral("--width"),  QStringLiteral("900"),
                                    QStringLiteral("--height"), QStringLiteral("700")};
        const QByteArray fromPreset =
            exportOk(common + QStringList{QStringLiteral("--preset"), QStringLiteral("geron-16-9")},
                     path(QStringLiteral("a.png")));
        const QByteArray fromSession =
            exportOk(common + QStringList{QStringLiteral("--session"), session},
                     path(QStringLiteral("b.png")));
        QVERIFY(!fromPreset.isEmpty());
        QVERIFY2(fromPreset == fromSession, "a session export differs from its preset's");
        // And a second run is byte-identical too (nothing time- or run-dependent in the file).
        QCOMPARE(exportOk(common + QStringList{QStringLiteral("--session"), session},
                          path(QStringLiteral("c.png"))),
                 fromSession);
    }

    void dataExport()
    {
        const QString out = path(QStringLiteral("heat.npy"));
        const QByteArray npy = exportOk(
            {QStringLiteral("--view"), QStringLiteral("heatmap"), QStringLiteral("--positions"),
             QStringLiteral("30"), QStringLiteral("--dims"), QStringLiteral("16"),
             QStringLiteral("--crop-dims"), QStringLiteral("10"), QStringLiteral("--transpose")},
            out);
        QVERIFY(npy.startsWith("\x93NUMPY"));
        QVERIFY(npy.contains("'shape': (10, 30)"));
        const auto *values = reinterpret_cast<const float *>(npy.constData() + 128);
        QCOMPARE(npy.size(), 128 + 10 * 30 * 4);
        // Row i, column p of the transposed matrix is PE(p, i).
        PE_COMPARE_NEAR(values[7 * 30 + 21], referenceInterleaved(21, 7, 16, 10000.0), 1e-6);
    }

    // `pescope data --view` is the view list's data export: the same numbers as export's .npy.
    void dataCommandWritesAViewsNumbers()
    {
        const QStringList view = {QStringLiteral("--view"),      QStringLiteral("heatmap"),
                                  QStringLiteral("--positions"), QStringLiteral("30"),
                                  QStringLiteral("--dims"),      QStringLiteral("16"),
                                  QStringLiteral("--transpose")};
        const QString out = path(QStringLiteral("data-view.npy"));
        const RunResult r = runPescope(QStringList{QStringLiteral("data")} + view +
                                       QStringList{QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.startsWith("pescope data: heatmap data"), r.err.constData());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray npy = file.readAll();
        QVERIFY(npy.contains("'shape': (16, 30)"));
        QCOMPARE(npy.size(), 128 + 16 * 30 * 4);
        const auto *values = reinterpret_cast<const float *>(npy.constData() + 128);
        for (const auto &[i, p] : {std::pair{7, 21}, std::pair{0, 0}, std::pair{15, 29}})
            PE_COMPARE_NEAR(values[i * 30 + p], referenceInterleaved(p, i, 16, 10000.0), 1e-6);
        QCOMPARE(exportOk(view, path(QStringLiteral("export-view.npy"))), npy);

        const RunResult figure =
            runPescope(QStringList{QStringLiteral("data")} + view +
                       QStringList{QStringLiteral("--out"), path(QStringLiteral("d.png"))});
        QCOMPARE(figure.exitCode, 2);
        QVERIFY2(figure.err.contains("pescope data writes a view's numbers"),
                 figure.err.constData());
        QVERIFY(!QFile::exists(path(QStringLiteral("d.png"))));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("out");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QStringList heat = {QStringLiteral("--view"),      QStringLiteral("heatmap"),
                                  QStringLiteral("--positions"), QStringLiteral("50"),
                                  QStringLiteral("--dims"),      QStringLiteral("20")};
        const auto with = [&](const QStringList &extra) { return heat + extra; };
        QTest::addRow("missing folder") << heat << QStringLiteral("no/such/folder/fig.png") << 1
                                        << QStringLiteral("does not exist");
        QTest::addRow("folder is a file")
            << heat << QStringLiteral("blocker/fig.png") << 1 << QStringLiteral("is not a folder");
        QTest::addRow("unknown extension")
            << heat << QStringLiteral("fig.jpg") << 2
            << QStringLiteral("--out must end in .png, .svg or .pdf");
        QTest::addRow("no extension")
            << heat << QStringLiteral("fig") << 2 << QStringLiteral("--out must end");
        QTest::addRow("data of a figure-only view")
            << QStringList{QStringLiteral("--view"), QStringLiteral("alibi")}
            << QStringLiteral("alibi.npy") << 2
            << QStringLiteral("the alibi view has no data export; export it as a figure");
        QTest::addRow("zero width")
            << with({QStringLiteral("--width"), QStringLiteral("0")}) << QStringLiteral("z.png")
            << 2 << QStringLiteral("--width must be between 16 and 30000");
        QTest::addRow("negative height")
            << with({QStringLiteral("--height"), QStringLiteral("-5")}) << QStringLiteral("z.png")
            << 2 << QStringLiteral("--height must be between");
        QTest::addRow("absurd width") << with({QStringLiteral("--width"), QStringLiteral("100000")})
                                      << QStringLiteral("z.png") << 2
                                      << QStringLiteral("--width must be between 16 and 30000");
        QTest::addRow("over the pixel limit")
            << with({QStringLiteral("--width"), QStringLiteral("20000"), QStringLiteral("--height"),
                     QStringLiteral("20000")})
            << QStringLiteral("z.png") << 2 << QStringLiteral("the limit is 100 megapixels");
        QTest::addRow("zero dpi") << with({QStringLiteral("--dpi"), QStringLiteral("0")})
                                  << QStringLiteral("z.pdf") << 2
                                  << QStringLiteral("--dpi must be between 10 and 2400");
        QTest::addRow("absurd dpi")
            << with({QStringLiteral("--dpi"), QStringLiteral("1e6")}) << QStringLiteral("z.svg")
            << 2 << QStringLiteral("--dpi must be between 10 and 2400");
        QTest::addRow("tiny at high dpi")
            << with({QStringLiteral("--width"), QStringLiteral("100"), QStringLiteral("--height"),
                     QStringLiteral("100"), QStringLiteral("--dpi"), QStringLiteral("2400")})
            << QStringLiteral("z.png") << 2 << QStringLiteral("too small to lay out a figure");
        QTest::addRow("unknown view")
            << QStringList{QStringLiteral("--view"),      QStringLiteral("spectrogram"),
                           QStringLiteral("--positions"), QStringLiteral("5"),
                           QStringLiteral("--dims"),      QStringLiteral("4")}
            << QStringLiteral("z.png") << 2
            << QStringLiteral("--view: unknown view \"spectrogram\"");
        QTest::addRow("no view") << QStringList{QStringLiteral("--positions"), QStringLiteral("5"),
                                                QStringLiteral("--dims"), QStringLiteral("4")}
                                 << QStringLiteral("z.png") << 2
                                 << QStringLiteral("--view is required");
        QTest::addRow("positions out of range")
            << QStringList{QStringLiteral("--view"),      QStringLiteral("heatmap"),
                           QStringLiteral("--positions"), QStringLiteral("0"),
                           QStringLiteral("--dims"),      QStringLiteral("4")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("--positions must be between");
        QTest::addRow("too large to hold")
            << QStringList{QStringLiteral("--view"),      QStringLiteral("heatmap"),
                           QStringLiteral("--positions"), QStringLiteral("16777216"),
                           QStringLiteral("--dims"),      QStringLiteral("4096")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("holds at most");
        QTest::addRow("mark dims outside")
            << with({QStringLiteral("--mark-dims"), QStringLiteral("100,20")})
            << QStringLiteral("z.png") << 2 << QStringLiteral("--mark-dims");
        QTest::addRow("unknown colormap")
            << with({QStringLiteral("--colormap"), QStringLiteral("jet")})
            << QStringLiteral("z.png") << 2 << QStringLiteral("--colormap must be viridis");
        QTest::addRow("malformed session")
            << QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                           QStringLiteral("--session"), QStringLiteral("malformed.json")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("is not valid JSON");
        QTest::addRow("truncated session")
            << QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                           QStringLiteral("--session"), QStringLiteral("truncated.json")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("looks truncated");
        QTest::addRow("newer session")
            << QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                           QStringLiteral("--session"), QStringLiteral("newer.json")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("saved by a newer pescope");
        QTest::addRow("session out of range")
            << QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                           QStringLiteral("--session"), QStringLiteral("range.json")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("dims");
        QTest::addRow("missing session")
            << QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                           QStringLiteral("--session"), QStringLiteral("absent.json")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("does not exist");
        QTest::addRow("not a session")
            << QStringList{QStringLiteral("--view"), QStringLiteral("heatmap"),
                           QStringLiteral("--session"), QStringLiteral("other.json")}
            << QStringLiteral("z.png") << 2 << QStringLiteral("has no \"format_version\"");
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, out);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString &name, const QByteArray &bytes) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
        };
        write(QStringLiteral("blocker"), "a file where a folder is expected");
        write(QStringLiteral("malformed.json"), "{\"format_version\": 1, \"state\": {,}}");
        ExplorerState state;
        QByteArray good = sessionBytes(state);
        write(QStringLiteral("truncated.json"), good.left(good.size() / 2));
        write(QStringLiteral("newer.json"), "{\"format_version\": 99, \"state\": {}}");
        write(QStringLiteral("range.json"),
              "{\"format_version\": 1, \"state\": {\"spec\": {\"positions\": 10, \"dims\": "
              "1000000}}}");
        write(QStringLiteral("other.json"), "{\"hello\": \"world\"}");
        const QStringList before = filesIn(dir.path());

        for (QString &arg : args)
            if (arg.endsWith(QLatin1String(".json")))
                arg = dir.filePath(arg);
        const QString target = dir.filePath(out);
        const RunResult r = runPescope(QStringList{QStringLiteral("export")} + args +
                                       QStringList{QStringLiteral("--out"), target});
        const QString err = QString::fromLocal8Bit(r.err).trimmed();
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(!err.contains(QLatin1Char('\n')),
                 qPrintable(QStringLiteral("more than one line: ") + err));
        QVERIFY2(err.startsWith(QLatin1String("pescope export: ")), qPrintable(err));
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(!QFileInfo::exists(target), "an output file was left behind");
        QCOMPARE(filesIn(dir.path()), before); // no temporary files either
    }

    // Root ignores permissions, so an unwritable place is a read-only file system.
    void unwritableFolder()
    {
        QString folder;
        QTemporaryDir dir;
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        if (!QFileInfo(dir.path()).isWritable())
            folder = dir.path();
        else if (QFileInfo(QStringLiteral("/proc/self")).isDir())
            folder = QStringLiteral("/proc");
        else
            QSKIP("no unwritable folder to try (running as root without /proc)");
        const QString target = folder + QStringLiteral("/pescope-test-figure.png");
        const RunResult r = runPescope({QStringLiteral("export"), QStringLiteral("--view"),
                                        QStringLiteral("waves"), QStringLiteral("--positions"),
                                        QStringLiteral("50"), QStringLiteral("--dims"),
                                        QStringLiteral("8"), QStringLiteral("--out"), target});
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                              QFileDevice::ExeOwner);
        const QString err = QString::fromLocal8Bit(r.err).trimmed();
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(err.startsWith(QLatin1String("pescope export: cannot write ")), qPrintable(err));
        QVERIFY(!err.contains(QLatin1Char('\n')));
        QVERIFY(!QFileInfo::exists(target));
    }

    // In process: the exporter refuses bad options with a sentence and renders nothing.
    // Interaction marks (the selected cell at p = 22, i = 100: an orange ring on the waves and
    // an orange cell on the heatmap) appear only when asked for.
    void selectionOnlyWhenAsked_data()
    {
        QTest::addColumn<QString>("views");
        QTest::addRow("waves+heatmap") << QStringLiteral("waves+heatmap");
        QTest::addRow("heatmap") << QStringLiteral("heatmap");
        QTest::addRow("waves") << QStringLiteral("waves");
    }
    void selectionOnlyWhenAsked()
    {
        QFETCH(QString, views);
        const QStringList args{QStringLiteral("--preset"),  QStringLiteral("geron-16-9"),
                               QStringLiteral("--view"),    views,
                               QStringLiteral("--backend"), QStringLiteral("cpu")};
        const QString plain = path(QStringLiteral("plain-%1.png").arg(views));
        const QString marked = path(QStringLiteral("marked-%1.png").arg(views));
        QVERIFY(!exportOk(args, plain).isEmpty());
        QVERIFY(
            !exportOk(args + QStringList{QStringLiteral("--show-selection")}, marked).isEmpty());
        const QImage a = QImage(plain).convertToFormat(QImage::Format_RGB32);
        const QImage b = QImage(marked).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(orangePixels(a), 0);
        QVERIFY2(orangePixels(b) > 12, qPrintable(QString::number(orangePixels(b))));
        // --no-show-selection wins over a session that asks for the marks.
        ExplorerState state;
        QString error;
        QVERIFY(applyPreset(state, QStringLiteral("geron-16-9"), &error));
        FigureStyle style = state.figureStyle();
        style.showSelection = true;
        state.setFigureStyle(style);
        const QString session = path(QStringLiteral("marks-%1.pescope.json").arg(views));
        QVERIFY2(saveSession(state, session, &error), qPrintable(error));
        const QString fromSession = path(QStringLiteral("session-%1.png").arg(views));
        const QString overridden = path(QStringLiteral("overridden-%1.png").arg(views));
        const QStringList sessionArgs{QStringLiteral("--session"), session,
                                      QStringLiteral("--view"),    views,
                                      QStringLiteral("--backend"), QStringLiteral("cpu")};
        QVERIFY(!exportOk(sessionArgs, fromSession).isEmpty());
        QVERIFY(
            !exportOk(sessionArgs + QStringList{QStringLiteral("--no-show-selection")}, overridden)
                 .isEmpty());
        QCOMPARE(QImage(fromSession).convertToFormat(QImage::Format_RGB32), b);
        QCOMPARE(QImage(overridden).convertToFormat(QImage::Format_RGB32), a);
    }

    // Without the selection the waves show the wave dims only: no third (green) curve for the
    // selected dim when it is not among them.
    void noExtraWaveWithoutSelection()
    {
        const QStringList args{QStringLiteral("--preset"),  QStringLiteral("geron-16-9"),
                               QStringLiteral("--view"),    QStringLiteral("waves"),
                               QStringLiteral("--select"),  QStringLiteral("22@30"),
                               QStringLiteral("--backend"), QStringLiteral("cpu")};
        const QString plain = path(QStringLiteral("nogreen.png"));
        const QString marked = path(QStringLiteral("green.png"));
        QVERIFY(!exportOk(args, plain).isEmpty());
        QVERIFY(
            !exportOk(args + QStringList{QStringLiteral("--show-selection")}, marked).isEmpty());
        // The light theme's third curve colour, #2ca02c (matplotlib's tab:green).
        const auto greens = [](const QImage &image) {
            qint64 n = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    n += sameColour(image.pixel(x, y), qRgb(0x2c, 0xa0, 0x2c));
            return n;
        };
        QCOMPARE(greens(QImage(plain)), 0);
        QVERIFY(greens(QImage(marked)) > 50);
    }

    // No tick label, axis title, legend entry or title runs off the figure, from the smallest
    // layout to a large one, at 72 to 600 dpi, with each legend place and a larger font: every
    // drawn text box lies inside the page. The text is recorded as the exporter paints it.
    // A raster export draws its heatmap straight from the sampled grid; QCPColorMap's own
    // drawing of the same grid (what animations use) is the reference, pixel for pixel.
    void rasterHeatmapDrawsAsColorMap_data()
    {
        QTest::addColumn<bool>("transposed");
        QTest::addColumn<int>("origin");
        QTest::addColumn<bool>("interpolate");
        QTest::addColumn<int>("dpi");
        QTest::addColumn<QString>("colormap");
        QTest::newRow("matshow") << false << int(Origin::Upper) << false << 96
                                 << QStringLiteral("viridis");
        QTest::newRow("transposed, origin lower")
            << true << int(Origin::Lower) << false << 96 << QStringLiteral("twilight");
        QTest::newRow("interpolated at 200 dpi")
            << false << int(Origin::Lower) << true << 200 << QStringLiteral("RdBu");
        QTest::newRow("transposed, interpolated")
            << true << int(Origin::Upper) << true << 150 << QStringLiteral("magma");
    }
    void rasterHeatmapDrawsAsColorMap()
    {
        QFETCH(bool, transposed);
        QFETCH(int, origin);
        QFETCH(bool, interpolate);
        QFETCH(int, dpi);
        QFETCH(QString, colormap);
        ExplorerState state;
        QString error;
        EncodingSpec spec = state.spec();
        spec.positions = 1500;
        spec.dims = 300;
        QVERIFY2(state.setSpec(spec, &error), qPrintable(error));
        ViewOptions view = state.viewOptions();
        view.transposed = transposed;
        view.origin = Origin(origin);
        view.colormap = *parseAs<Colormap>(colormapNames, colormap);
        QVERIFY2(state.setViewOptions(view, &error), qPrintable(error));
        FigureOptions options;
        options.views = {FigureView::Heatmap, FigureView::Waves};
        options.width = 900 * dpi / 96;
        options.height = 700 * dpi / 96;
        options.dpi = dpi;
        options.interpolate = interpolate;
        FigureData data;
        QVERIFY2(computeOnCpu(state, options, &data, &error), qPrintable(error));
        const auto render = [&](bool asColorMap) {
            QImage image(int(options.width), int(options.height), QImage::Format_RGB32);
            QCPPainter painter(&image);
            painter.setMode(QCPPainter::pmNoCaching);
            painter.scale(dpi / figureBaseDpi(), dpi / figureBaseDpi());
            FigurePaintHooks hooks;
            hooks.heatmapsAsColorMaps = asColorMap;
            if (!paintFigure(&painter, FigureTarget::Raster, state, data, options, &error, hooks))
                return QImage();
            return image;
        };
        const QImage direct = render(false);
        const QImage reference = render(true);
        QVERIFY2(!direct.isNull() && !reference.isNull(), qPrintable(error));
        // Not a figure without its heatmap on both sides: a colormap's worth of colours.
        QSet<QRgb> colours;
        for (int y = 0; y < direct.height(); y += 3)
            for (int x = 0; x < direct.width(); x += 3)
                colours.insert(direct.pixel(x, y));
        QVERIFY2(colours.size() > 100, qPrintable(QString::number(colours.size())));
        QCOMPARE(direct, reference);
    }

    void noTextOutsideFigure_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("views");
        QTest::addColumn<QSize>("layout"); // logical pixels: the device size at 96 dpi
        QTest::addColumn<int>("dpi");
        QTest::addColumn<QString>("legend");
        QTest::addColumn<double>("fontScale");
        const QSize smallest(figurelimits::minLayoutWidth, figurelimits::minLayoutHeight);
        // The largest is 10,000 x 6,250 pixels at 600 dpi, inside the 100-megapixel limit.
        const QList<QSize> sizes{smallest, QSize(576, 384), QSize(1000, 850), QSize(1600, 1000)};
        for (const QString &views :
             {QStringLiteral("waves+heatmap"), QStringLiteral("waves"), QStringLiteral("heatmap")})
            for (const QSize &size : sizes)
                for (int dpi : {72, 96, 300, 600})
                    QTest::addRow("%s %dx%d at %d dpi", qPrintable(views), size.width(),
                                  size.height(), dpi)
                        << QStringLiteral("geron-16-9") << views << size << dpi
                        << QStringLiteral("auto") << 1.0;
        for (const ChoiceName &place : legendPlaceNames)
            for (const QSize &size : sizes) {
                // A legend inside a corner fits a plot taller than itself only.
                const bool inside = QByteArray(place.name).startsWith("upper") ||
                                    QByteArray(place.name).startsWith("lower");
                if (inside && size == smallest)
                    continue;
                QTest::addRow("waves legend %s %dx%d", place.name, size.width(), size.height())
                    << QStringLiteral("geron-16-9") << QStringLiteral("waves+heatmap") << size
                    << 300 << QString::fromUtf8(place.name) << 1.0;
            }
        for (const QSize &size : {QSize(576, 384), QSize(1000, 850)})
            QTest::addRow("font x1.5 %dx%d", size.width(), size.height())
                << QStringLiteral("geron-16-9") << QStringLiteral("waves+heatmap") << size << 300
                << QStringLiteral("auto") << 1.5;
        for (const QSize &size : {QSize(576, 384), QSize(1200, 700)})
            QTest::addRow("phrases %dx%d", size.width(), size.height())
                << QStringLiteral("keras-phrases") << QStringLiteral("phrases") << size << 150
                << QStringLiteral("auto") << 1.0;
    }
    void noTextOutsideFigure()
    {
        QFETCH(QString, preset);
        QFETCH(QString, views);
        QFETCH(QSize, layout);
        QFETCH(int, dpi);
        QFETCH(QString, legend);
        QFETCH(double, fontScale);
        ExplorerState state;
        QString error;
        QVERIFY(applyPreset(state, preset, &error));
        FigureOptions options;
        options.views = *parseFigureViews(views, &error);
        const double scale = dpi / figureBaseDpi();
        options.width = qint64(std::ceil(layout.width() * scale));
        options.height = qint64(std::ceil(layout.height() * scale));
        options.dpi = dpi;
        options.style.legend = *parseAs<LegendPlace>(legendPlaceNames, legend);
        options.style.fontScale = fontScale;
        FigureData data;
        QVERIFY2(computeOnCpu(state, options, &data, &error), qPrintable(error));
        const auto [width, height] = figureLayoutSize(options);
        TextDevice device(width, height);
        {
            QCPPainter painter(&device);
            painter.setMode(QCPPainter::pmNoCaching);
            QVERIFY(paintFigure(&painter, FigureTarget::Raster, state, data, options, &error));
        }
        const QList<std::pair<QString, QRectF>> &texts = device.recorder().texts;
        QVERIFY(texts.size() > 10);
        const QRectF page = QRectF(0, 0, width, height).adjusted(-0.5, -0.5, 0.5, 0.5);
        for (const auto &[text, box] : texts)
            QVERIFY2(page.contains(box), qPrintable(QStringLiteral("\"%1\" at (%2, %3, %4 x %5) "
                                                                   "leaves the %6 x %7 page")
                                                        .arg(text)
                                                        .arg(box.x())
                                                        .arg(box.y())
                                                        .arg(box.width())
                                                        .arg(box.height())
                                                        .arg(width)
                                                        .arg(height)));
    }

    void legendsInsideThePage_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("views");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("fontScale");
        const QList<std::pair<QString, QString>> figures = {
            {QStringLiteral("geron-16-9"), QStringLiteral("waves+heatmap")},
            {QStringLiteral("geron-16-9"), QStringLiteral("waves")},
            {QStringLiteral("keras-phrases"), QStringLiteral("token-similarity")},
            {QStringLiteral("rope-llama31-vs-yarn"), QStringLiteral("spectrum")},
            {QStringLiteral("rope-llama31-vs-yarn"), QStringLiteral("decay")},
            {QStringLiteral("rope-decay"), QStringLiteral("decay")},
            {QStringLiteral("table"), QStringLiteral("sinusoid-fit")},
        };
        for (const auto &[source, views] : figures)
            for (const QSize &size : {QSize(1280, 720), QSize(800, 600)})
                for (double scale : {0.5, 1.0, 1.5, 2.0, 2.5, 3.0})
                    QTest::addRow("%s %s %dx%d font x%.1f", qPrintable(source), qPrintable(views),
                                  size.width(), size.height(), scale)
                        << source << views << size << scale;
    }

    // Issue 38 item 11: the notes drawn in a Schemes page figure ("original context 8,192
    // tokens") follow the font scale as its legend does.
    void schemeNotesFollowTheFontScale()
    {
        for (const QString &views : {QStringLiteral("spectrum"), QStringLiteral("decay")})
            for (double fontScale : {1.0, 3.0}) {
                ExplorerState state;
                QString error;
                QVERIFY2(
                    stateFor(QStringLiteral("rope-llama31-vs-yarn"), m_dir.path(), &state, &error),
                    qPrintable(error));
                FigureOptions options;
                options.views = *parseFigureViews(views, &error);
                options.width = 1280;
                options.height = 720;
                options.dpi = figureBaseDpi();
                options.style.fontScale = fontScale;
                FigureData data;
                QVERIFY2(computeOnCpu(state, options, &data, &error), qPrintable(error));
                const double pointSize = QApplication::font("QCustomPlot").pointSizeF() * fontScale;
                QStringList notes;
                FigurePaintHooks hooks;
                hooks.beforePaint = [&](int, QCustomPlot *plot) {
                    for (int i = 0; i < plot->itemCount(); ++i)
                        if (auto *text = qobject_cast<QCPItemText *>(plot->item(i))) {
                            notes.append(text->text());
                            QVERIFY2(std::abs(text->font().pointSizeF() - pointSize) < 0.01,
                                     qPrintable(QStringLiteral("%1: \"%2\" at %3 pt, not %4")
                                                    .arg(views, text->text())
                                                    .arg(text->font().pointSizeF())
                                                    .arg(pointSize)));
                        }
                };
                const auto [width, height] = figureLayoutSize(options);
                QImage image(width, height, QImage::Format_RGB32);
                QCPPainter painter(&image);
                painter.setMode(QCPPainter::pmNoCaching);
                QVERIFY2(paintFigure(&painter, FigureTarget::Raster, state, data, options, &error,
                                     hooks),
                         qPrintable(error));
                painter.end();
                // Titles end in "…" rather than run off the page: nothing dark at its edges
                // in the title's band (the spectrum's second line was cut at x 3).
                const QColor background = image.pixelColor(image.width() / 2, image.height() - 1);
                for (int y = 0; y < image.height() / 8; ++y)
                    for (int x : {0, 1, image.width() - 2, image.width() - 1})
                        QVERIFY2(qAbs(image.pixelColor(x, y).lightness() - background.lightness()) <
                                     60,
                                 qPrintable(QStringLiteral("%1 x%2: text at (%3, %4)")
                                                .arg(views)
                                                .arg(fontScale)
                                                .arg(x)
                                                .arg(y)));
                QVERIFY2(views != QLatin1String("spectrum") ||
                             notes.join(u'|').contains(QStringLiteral("original context")),
                         qPrintable(views + u": "_qs + notes.join(u'|')));
            }
    }

    // Issue 25: every legend lies inside the page, its frame included (at font x1.5 the right
    // border was clipped at the page's edge), and its text follows the font scale (the
    // sinusoid fit's and the Schemes page's legends kept the window's size).
    void legendsInsideThePage()
    {
        QFETCH(QString, source);
        QFETCH(QString, views);
        QFETCH(QSize, size);
        QFETCH(double, fontScale);
        ExplorerState state;
        FigureOptions options;
        FigureData data;
        QString error;
        QVERIFY2(computePage(source, views, size, fontScale, m_dir.path(), &state, &options, &data,
                             &error),
                 qPrintable(error));
        const double pointSize = QApplication::font("QCustomPlot").pointSizeF() * fontScale;
        QStringList problems;
        int legends = 0;
        FigurePaintHooks hooks;
        hooks.beforePaint = [&](int panel, QCustomPlot *plot) {
            // The panel's band of the page: legends and their frames stay inside it.
            const QRect band(QPoint(0, 0), plot->viewport().size());
            for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
                if (!legend->visible() || legend->itemCount() == 0)
                    continue;
                ++legends;
                // drawRect(QRect) strokes one pixel past right() and bottom().
                const QRect frame = legend->outerRect().adjusted(0, 0, 1, 1);
                if (!band.contains(frame))
                    problems.append(QStringLiteral("panel %1: legend at (%2, %3, %4 x %5) leaves "
                                                   "the %6 x %7 band")
                                        .arg(panel)
                                        .arg(frame.x())
                                        .arg(frame.y())
                                        .arg(frame.width())
                                        .arg(frame.height())
                                        .arg(band.width())
                                        .arg(band.height()));
                for (int i = 0; i < legend->itemCount(); ++i) {
                    const QCPAbstractLegendItem *item = legend->item(i);
                    if (item && std::abs(item->font().pointSizeF() - pointSize) > 0.01)
                        problems.append(QStringLiteral("panel %1: legend text at %2 pt, not %3")
                                            .arg(panel)
                                            .arg(item->font().pointSizeF())
                                            .arg(pointSize));
                }
            }
        };
        QVERIFY2(paintPage(FigureTarget::Raster, state, data, options, hooks, &error),
                 qPrintable(error));
        QVERIFY2(legends > 0, "no legend drawn");
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // Issue 46.8: an SVG's legend text ran into the next entry's line sample in a browser,
    // whose font was wider than the one Qt measured. In a vector export each entry leaves room
    // after its text, 15% of the text's width, before the next entry or the legend's frame, and
    // the legend stays inside the page.
    void vectorLegendLeavesRoomForWiderFonts_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("views");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("fontScale");
        const QList<std::pair<QString, QString>> figures = {
            {QStringLiteral("geron-16-9"), QStringLiteral("waves+heatmap")},
            {QStringLiteral("rope-decay"), QStringLiteral("decay")},
        };
        for (const auto &[source, views] : figures)
            for (const QSize &size : {QSize(1280, 720), QSize(800, 600)})
                for (double scale : {1.0, 2.0})
                    QTest::addRow("%s %s %dx%d font x%.1f", qPrintable(source), qPrintable(views),
                                  size.width(), size.height(), scale)
                        << source << views << size << scale;
    }
    void vectorLegendLeavesRoomForWiderFonts()
    {
        QFETCH(QString, source);
        QFETCH(QString, views);
        QFETCH(QSize, size);
        QFETCH(double, fontScale);
        ExplorerState state;
        FigureOptions options;
        FigureData data;
        QString error;
        QVERIFY2(computePage(source, views, size, fontScale, m_dir.path(), &state, &options, &data,
                             &error),
                 qPrintable(error));
        QStringList problems;
        int entries = 0;
        FigurePaintHooks hooks;
        hooks.beforePaint = [&](int panel, QCustomPlot *plot) {
            const QRect band(QPoint(0, 0), plot->viewport().size());
            for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
                if (!legend->visible() || legend->itemCount() < 2)
                    continue;
                if (!band.contains(legend->outerRect().adjusted(0, 0, 1, 1)))
                    problems.append(
                        QStringLiteral("panel %1: the legend leaves the page").arg(panel));
                for (int i = 0; i < legend->itemCount(); ++i) {
                    auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
                    if (!item)
                        continue;
                    ++entries;
                    const QFontMetrics metrics(item->font());
                    const int text =
                        metrics
                            .boundingRect(0, 0, 0, 0, Qt::TextDontClip, item->plottable()->name())
                            .width();
                    // The entry's own room ends where the next entry (or the frame) begins.
                    const QRect entry = legend->item(i)->outerRect();
                    const int textEnd = legend->item(i)->rect().left() +
                                        legend->iconSize().width() + legend->iconTextPadding() +
                                        text;
                    const int room = entry.x() + entry.width() - textEnd;
                    if (room < 0.15 * text)
                        problems.append(QStringLiteral("panel %1: \"%2\" has %3 px after it, %4 "
                                                       "wanted")
                                            .arg(panel)
                                            .arg(item->plottable()->name())
                                            .arg(room)
                                            .arg(0.15 * text));
                }
            }
        };
        QVERIFY2(paintPage(FigureTarget::Vector, state, data, options, hooks, &error),
                 qPrintable(error));
        QVERIFY2(entries > 2, "no legend entries");
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // Issue 25: in the window the sinusoid fit's legend covered the table's values; it goes
    // under the plot there now, as the waves' does.
    void sinusoidFitLegendLeavesTheDataInTheWindow()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(openTableState(m_dir.path(), &state, &error), qPrintable(error));
        FigureOptions options;
        options.views = {FigureView::SinusoidFit};
        FigureData data;
        QVERIFY2(computeOnCpu(state, options, &data, &error), qPrintable(error));
        QCustomPlot plot; // as the Model page builds it: no legend place chosen
        plot.resize(1280, 720);
        buildTableView(FigureView::SinusoidFit, TableFigures(state, plotTheme(state.theme())),
                       &plot, *data.table);
        plot.replot();
        QCPLegend *legend = plot.legend;
        QVERIFY(legend && legend->visible() && legend->itemCount() == 2);
        QVERIFY(QRect(QPoint(0, 0), plot.size()).contains(legend->outerRect()));
        for (QCPAxisRect *rect : plot.axisRects())
            QVERIFY2(!rect->rect().intersects(legend->outerRect()),
                     "the legend lies over a plot's data");
        QCOMPARE(legend->item(0)->font().pointSizeF(), plot.font().pointSizeF());
    }

    // Issue 25: SVG text names a family a renderer has and a CSS generic family to fall back on
    // ("Sans Serif" is neither: rsvg chose a font whose legend ran into the line samples).
    void svgFontFamilyHasAGenericFallback()
    {
        ExplorerState state;
        QString error;
        QVERIFY(applyPreset(state, QStringLiteral("geron-16-9"), &error));
        FigureOptions options;
        options.views = {FigureView::Waves, FigureView::Heatmap};
        options.title = QStringLiteral("Fig 16-9");
        FigureData data;
        QVERIFY2(computeOnCpu(state, options, &data, &error), qPrintable(error));
        const QByteArray svg = FigureExporter(state, data, options).renderSvg(&error);
        QVERIFY2(!svg.isEmpty(), qPrintable(error));
        static const QStringList generic = {
            QStringLiteral("serif"),   QStringLiteral("sans-serif"), QStringLiteral("monospace"),
            QStringLiteral("cursive"), QStringLiteral("fantasy"),    QStringLiteral("system-ui")};
        const QStringList installed = QFontDatabase::families();
        QXmlStreamReader xml(svg);
        int texts = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement)
                continue;
            const QString family = xml.attributes().value(QStringLiteral("font-family")).toString();
            if (family.isEmpty())
                continue;
            ++texts;
            QStringList names = family.split(QLatin1Char(','));
            for (QString &name : names)
                name = name.trimmed().remove(QLatin1Char('\'')).remove(QLatin1Char('"'));
            QVERIFY2(
                names.size() >= 2 && generic.contains(names.last()),
                qPrintable(
                    QStringLiteral("font-family=\"%1\" has no generic family last").arg(family)));
            QVERIFY2(installed.contains(names.first()),
                     qPrintable(QStringLiteral("font-family=\"%1\": %2 is not an installed font")
                                    .arg(family, names.first())));
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(texts > 10);
    }

    // Issue 25: "Si&ze:" and "&File:" showed their ampersands: a label's '&' marks a shortcut
    // only when the label has a buddy, which QFormLayout gives text rows of widgets, not of
    // layouts. Every label of the export dialog with a '&' has one, so none shows it.
    void dialogLabelsShowNoAmpersand()
    {
        ExplorerState state;
        ExportDialog dialog(&state, nullptr);
        dialog.setAnimation(AnimationOptions{}); // the animation's rows too
        int withShortcut = 0;
        for (const QLabel *label : dialog.findChildren<QLabel *>()) {
            const QString text = QString(label->text()).remove(QStringLiteral("&&"));
            if (!text.contains(QLatin1Char('&')) || label->textFormat() == Qt::RichText)
                continue;
            ++withShortcut;
            QVERIFY2(label->buddy(),
                     qPrintable(QStringLiteral("\"%1\" shows its '&'").arg(label->text())));
        }
        QVERIFY(withShortcut >= 10);
    }

    void exporterRefuses()
    {
        ExplorerState state;
        FigureOptions options;
        options.views = {FigureView::Heatmap};
        QString error;
        // No computed data for the heatmap.
        QVERIFY(FigureExporter(state, FigureData(), options).renderImage(&error).isNull());
        QVERIFY(error.contains(QLatin1String("no encoding")));
        options.width = 0;
        QVERIFY(options.validate().contains(QLatin1String("width must be between")));
        options.width = 800;
        options.dpi = std::nan("");
        QVERIFY(options.validate().contains(QLatin1String("dpi must be between")));
        QVERIFY(!parseFigureViews(QStringLiteral("waves+nope"), &error));
        QVERIFY(error.contains(QLatin1String("unknown view \"nope\"")));
        QCOMPARE(figureViewsName(*parseFigureViews(QStringLiteral("waves+heatmap"), &error)),
                 QStringLiteral("waves+heatmap"));
        QVERIFY(!figureFormatForPath(QStringLiteral("x.jpeg")));
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
