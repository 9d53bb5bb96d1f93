// The long-context report's figures (issue 49): the Schemes page's context-pairs,
// context-base-bound and context-precision views draw and export, from `pescope export` and
// `pescope data --view`, numbers equal to float64 computations written here (Llama 3.1's
// published config: llama3 x8 from 8,192, base 500,000, head size 128, 131,072 claimed); and
// `pescope context --out report.pdf` writes one A4 page whose text holds the verdict.
#include "ropetestdata.h"
#include "testutil.h"

#include "compute/viewdata.h"
#include "figures/plottheme.h"
#include "state/viewlist.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <set>

using namespace pe;
using namespace pe::test;

namespace {

constexpr double twoPi = 2.0 * std::numbers::pi;
constexpr qint64 llamaContext = 131072;

QString llama31()
{
    return QStringLiteral(PE_SOURCE_DIR "/tests/data/configs/llama-3.1-8b.json");
}

// Llama 3.1's scaled θ, transformers' _compute_llama3_parameters in float64 (ropetestdata.h).
std::vector<double> llamaTheta()
{
    return llama3Theta(500000.0, 8.0, 1.0, 4.0, 8192.0, 128);
}

// A CSV the data export wrote: one row per line, numbers separated by commas.
std::vector<std::vector<double>> readCsv(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    std::vector<std::vector<double>> rows;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.trimmed().isEmpty() || line.startsWith('#'))
            continue;
        std::vector<double> row;
        for (const QByteArray &cell : line.split(','))
            row.push_back(cell.trimmed().toDouble());
        rows.push_back(row);
    }
    return rows;
}

// x rounded to bfloat16 (8 significand bits), ties to even, through float32's bits.
double toBfloat16(double x)
{
    const auto f = static_cast<float>(x);
    auto bits = std::bit_cast<quint32>(f);
    const quint32 lsb = (bits >> 16) & 1U;
    bits += 0x7FFFU + lsb;
    bits &= 0xFFFF0000U;
    return double(std::bit_cast<float>(bits));
}

// The first p whose bfloat16 angle bf(bf(p + 1) · bf(float32 θ)) equals that of p (HF under
// autocast: inv_freq held in float32, cast to bfloat16).
qint64 bfloat16Collision(double theta, qint64 end)
{
    const double t = toBfloat16(double(static_cast<float>(theta)));
    double previous = 0.0;
    for (qint64 p = 0; p < end; ++p) {
        const double next = toBfloat16(toBfloat16(double(p + 1)) * t);
        if (next == previous)
            return p;
        previous = next;
    }
    return -1;
}

} // namespace

class TestContextViews : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // `pescope data --view NAME --config llama-3.1 --out NAME.csv`, read back.
    std::vector<std::vector<double>> viewData(const QString &view)
    {
        const QString out = m_dir.filePath(view + QStringLiteral(".csv"));
        const RunResult run =
            runPescope({QStringLiteral("data"), QStringLiteral("--view"), view,
                        QStringLiteral("--config"), llama31(), QStringLiteral("--out"), out});
        if (run.exitCode != 0)
            qWarning("%s", run.err.constData());
        return readCsv(out);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void viewsAreListed()
    {
        for (const char *name : {"context-pairs", "context-base-bound", "context-precision"}) {
            bool found = false;
            for (const ViewEntry &e : viewList())
                if (QLatin1String(e.name) == QLatin1String(name)) {
                    found = true;
                    QCOMPARE(e.page, Page::Schemes);
                    QVERIFY(hasViewData(e.view));
                    QVERIFY(std::strlen(e.formula) > 0);
                    QVERIFY(std::strlen(e.help) > 0);
                }
            QVERIFY2(found, name);
        }
    }

    // Each view's PNG: the asked size, many colours, and the scaled curve's colour (the print
    // theme's first curve colour) drawn in it.
    void exportEachView()
    {
        const QColor curve = printPlotTheme().curve(0);
        for (const QString &view :
             {QStringLiteral("context-pairs"), QStringLiteral("context-base-bound"),
              QStringLiteral("context-precision")}) {
            const QString out = m_dir.filePath(view + QStringLiteral(".png"));
            const RunResult run = runPescope(
                {QStringLiteral("export"), QStringLiteral("--view"), view,
                 QStringLiteral("--config"), llama31(), QStringLiteral("--print-theme"),
                 QStringLiteral("--width"), QStringLiteral("800"), QStringLiteral("--height"),
                 QStringLiteral("600"), QStringLiteral("--out"), out});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            const QImage image(out);
            QCOMPARE(image.size(), QSize(800, 600));
            std::set<QRgb> colours;
            int curvePixels = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const QRgb c = image.pixel(x, y);
                    colours.insert(c);
                    curvePixels += int(c == curve.rgb());
                }
            QVERIFY2(colours.size() > 20, qPrintable(view));
            QVERIFY2(curvePixels > 20, qPrintable(QStringLiteral("%1: %2 pixels of the curve "
                                                                 "colour")
                                                      .arg(view)
                                                      .arg(curvePixels)));
        }
    }

    // B(m) = Σ cos(m θᵢ) over Llama 3.1's 64 scaled frequencies, at every exported distance.
    void baseBoundData()
    {
        const std::vector<std::vector<double>> rows =
            viewData(QStringLiteral("context-base-bound"));
        QVERIFY(rows.size() > 1000);
        const std::vector<double> theta = llamaTheta();
        QCOMPARE(rows.front()[0], 0.0);
        QCOMPARE(rows.front()[1], 64.0);
        QVERIFY(rows.back()[0] >= double(llamaContext));
        for (const std::vector<double> &row : rows) {
            QCOMPARE(row.size(), std::size_t(2));
            double b = 0.0;
            for (double t : theta)
                b += std::cos(row[0] * t);
            QVERIFY2(std::abs(row[1] - b) <= 2e-5 * std::max(1.0, std::abs(b)),
                     qPrintable(
                         QStringLiteral("B(%1) = %2, expected %3").arg(row[0]).arg(row[1]).arg(b)));
        }
    }

    // Per pair: 2π/θ unscaled and scaled, their ratio, llama3's band.
    void pairsData()
    {
        const std::vector<std::vector<double>> rows = viewData(QStringLiteral("context-pairs"));
        QCOMPARE(rows.size(), std::size_t(64));
        const std::vector<double> scaled = llamaTheta();
        const std::vector<double> plain = defaultTheta(500000.0, 128);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::vector<double> &row = rows[i];
            QCOMPARE(row[0], double(i));
            // float32 in the file: within its rounding of the float64 value.
            const auto near = [](double got, double expected) {
                return std::abs(got - expected) <= 1e-6 * std::abs(expected);
            };
            QVERIFY(near(row[1], twoPi / plain[i]));
            QVERIFY(near(row[2], twoPi / scaled[i]));
            QVERIFY(near(row[3], plain[i] / scaled[i]));
            // llama3: wavelength under 8192/4 unchanged (0), over 8192/1 interpolated (2),
            // between blended (1).
            const double wavelength = twoPi / plain[i];
            const double band = wavelength < 2048.0 ? 0.0 : wavelength > 8192.0 ? 2.0 : 1.0;
            QCOMPARE(row[4], band);
        }
    }

    // float32 angle error at position 131,071 and the first bfloat16 collision, per pair.
    void precisionData()
    {
        const std::vector<std::vector<double>> rows = viewData(QStringLiteral("context-precision"));
        QCOMPARE(rows.size(), std::size_t(64));
        const std::vector<double> theta = llamaTheta();
        const double last = double(llamaContext - 1);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const float angle = static_cast<float>(last) * static_cast<float>(theta[i]);
            const double turns = std::abs(double(angle) - last * theta[i]) / twoPi;
            QVERIFY2(std::abs(rows[i][1] - turns) <= 1e-6 * turns + 1e-12,
                     qPrintable(QStringLiteral("pair %1: %2 turns, expected %3")
                                    .arg(i)
                                    .arg(rows[i][1])
                                    .arg(turns)));
            // bfloat16 keeps position ids exact to 256: every pair collides by 257.
            QCOMPARE(qint64(rows[i][2]), bfloat16Collision(theta[i], 257));
            QVERIFY(rows[i][2] >= 0 && rows[i][2] <= 256);
            QVERIFY(rows[i][3] >= 0 && rows[i][3] <= 2048);
        }
        // Pair 0 turns by exactly one radian a position, so its float32 angle is exact; the
        // fast pairs after it are off by up to half a float32 ulp of their angle (2^-8 rad
        // near 10^5), a few 10^-4 of a turn, which the view draws.
        QCOMPARE(rows[0][1], 0.0);
        double worst = 0;
        for (const std::vector<double> &row : rows)
            worst = std::max(worst, row[1]);
        QVERIFY(worst > 1e-4 && worst < 1e-3);
    }

    // The one-page PDF: A4, one page, the verdict's first line in its text.
    void pdfReport()
    {
        for (const QString &program : {QStringLiteral("pdfinfo"), QStringLiteral("pdftotext")})
            if (QStandardPaths::findExecutable(program).isEmpty())
                PE_SKIP_MISSING("poppler-utils (pdfinfo, pdftotext) is not installed");
        const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
        const RunResult run =
            runPescope({QStringLiteral("context"), QStringLiteral("--config"), llama31(),
                        QStringLiteral("--json"), QStringLiteral("--out"), pdf});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        const QString first = json.value(QStringLiteral("reports"))
                                  .toArray()
                                  .at(0)
                                  .toObject()
                                  .value(QStringLiteral("verdict"))
                                  .toArray()
                                  .at(0)
                                  .toString();
        QVERIFY(first.startsWith(QStringLiteral("rope_theta 500,000 with llama3 x8 from 8,192")));

        QProcess info;
        info.start(QStringLiteral("pdfinfo"), {pdf});
        QVERIFY(info.waitForFinished(60000));
        const QString infoText = QString::fromUtf8(info.readAllStandardOutput());
        QVERIFY2(infoText.contains(QRegularExpression(QStringLiteral("Pages:\\s+1\\n"))),
                 qPrintable(infoText));
        QVERIFY2(infoText.contains(QStringLiteral("(A4)")), qPrintable(infoText));

        QProcess text;
        text.start(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
        QVERIFY(text.waitForFinished(60000));
        const auto simplified = [](QString s) {
            return s.replace(QRegularExpression(QStringLiteral("\\s+")), QStringLiteral(" "));
        };
        const QString body = simplified(QString::fromUtf8(text.readAllStandardOutput()));
        QVERIFY2(body.contains(simplified(first)), qPrintable(body.left(600)));
        // Searchable words: no "ﬂ" ligature in the verdict's text.
        QVERIFY2(body.contains(QStringLiteral("position ids exact in float32")),
                 qPrintable(body.left(1200)));
    }

    // A bad --out is refused before any work: exit 2, nothing written.
    void badOutRefused()
    {
        const QString png = m_dir.filePath(QStringLiteral("report.png"));
        const QString missing = m_dir.filePath(QStringLiteral("no-such-folder/report.pdf"));
        for (const QString &out : {png, missing}) {
            const RunResult run = runPescope({QStringLiteral("context"), QStringLiteral("--config"),
                                              llama31(), QStringLiteral("--out"), out});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains("--out"), run.err.constData());
            QVERIFY(run.out.isEmpty());
            QVERIFY(!QFile::exists(out));
        }
    }
};

QTEST_GUILESS_MAIN(TestContextViews)
#include "tst_contextviews.moc"
