// The window side of opening a model: the learned-table views (position similarity, PCA,
// sinusoid fits) on tables with known answers, the Model page's card and layer map, drag and
// drop, File > Recent models across a restart, and `pescope export --model`. Expected numbers
// come from closed forms written here, never from pescope's output.
#include "modelfilewriter.h"
#include "testutil.h"
#include "windowtestutil.h"

#include "compute/computescheduler.h"
#include "compute/tabledata.h"
#include "dialogs/configpastedialog.h"
#include "dialogs/exportdialog.h"
#include "dialogs/modelfiledialog.h"
#include "figures/qcpinclude.h"
#include "model/positiontable.h"
#include "schemes/tablescheme.h"
#include "views/fileactions.h"
#include "views/mainwindow.h"
#include "views/modelpage.h"

#include <QAction>
#include <QClipboard>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <cmath>
#include <numbers>

using namespace pe;
using namespace pe::test;

namespace {

constexpr double pi = std::numbers::pi;

// A spec holding `values` (n x dims) as a loaded table, as File > Open model leaves it.
EncodingSpec tableSpec(qint64 n, qint64 dims, const std::vector<float> &values)
{
    auto table = std::make_shared<PositionTable>();
    table->source = QStringLiteral("synthetic");
    table->file = QStringLiteral("synthetic.npy");
    table->tensor = QStringLiteral("wpe");
    table->rows = n;
    table->columns = dims;
    table->values = values;
    table->minimum = *std::min_element(values.begin(), values.end());
    table->maximum = *std::max_element(values.begin(), values.end());
    TableScheme scheme;
    scheme.source = table->source;
    scheme.table = table;
    EncodingSpec spec;
    spec.scheme = scheme;
    spec.positions = n;
    spec.dims = dims;
    return spec;
}

// A planar circle in 4 dims: position p at angle 2 pi p / n in the plane spanned by two
// orthonormal vectors u = (1, 1, 1, 1) / 2 and v = (1, -1, 1, -1) / 2, scaled by `radius`.
std::vector<float> circleTable(qint64 n, double radius)
{
    const double u[4] = {0.5, 0.5, 0.5, 0.5}, v[4] = {0.5, -0.5, 0.5, -0.5};
    std::vector<float> values;
    for (qint64 p = 0; p < n; ++p) {
        const double a = 2 * pi * double(p) / double(n);
        for (int j = 0; j < 4; ++j)
            values.push_back(float(radius * (std::cos(a) * u[j] + std::sin(a) * v[j])));
    }
    return values;
}

// Wraps an angle into (-pi, pi].
double wrap(double a)
{
    a = std::fmod(a + pi, 2 * pi);
    if (a <= 0)
        a += 2 * pi;
    return a - pi;
}

} // namespace

class TestModelPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString &name) const { return m_dir.filePath(name); }

    // A GPT-2-like folder: config.json and model.safetensors whose wpe.weight is the circle.
    QString writeGpt2Folder(const QString &name, qint64 n)
    {
        const QString folder = path(name);
        QDir().mkpath(folder);
        writeBytes(folder + QStringLiteral("/config.json"),
                   QStringLiteral(R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
                      "n_embd": 4, "n_head": 1, "n_layer": 2, "n_positions": %1})")
                       .arg(n)
                       .toUtf8());
        writeBytes(folder + QStringLiteral("/model.safetensors"),
                   safetensorsBytes({{QStringLiteral("wpe.weight"),
                                      QStringLiteral("F32"),
                                      {n, 4},
                                      f32Bytes(circleTable(n, 2.0))}}));
        return folder;
    }

    static bool openAndWait(MainWindow *window, const QString &source, QString *error)
    {
        QSignalSpy opened(FileActions::of(window), &FileActions::modelOpened);
        FileActions::of(window)->openModel(source);
        if (!opened.wait(30000))
            return false;
        *error = opened.at(0).at(0).toString();
        return error->isEmpty();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("pescope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_modelpage"));
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    }

    // Every column an exact sinusoid: the fits find each frequency and phase, R² = 1.
    void sinusoidFitsOfAnExactTable()
    {
        const qint64 n = 200, dims = 5;
        const double w[dims] = {0.05, 0.3, 0.77, 1.9, 2.8};
        const double phase[dims] = {0.0, 1.0, -2.0, 2.5, -0.4};
        const double amplitude[dims] = {1.0, 0.5, 2.0, 0.1, 1.5};
        const double offset[dims] = {0.0, 0.2, -1.0, 0.05, 0.0};
        std::vector<float> values;
        for (qint64 p = 0; p < n; ++p)
            for (int j = 0; j < dims; ++j)
                values.push_back(
                    float(amplitude[j] * std::sin(w[j] * double(p) + phase[j]) + offset[j]));
        TableResult result;
        QString error;
        QCOMPARE(computeTableData(tableInputs(tableSpec(n, dims, values), 2), {}, &result, &error),
                 JobStatus::Done);
        QCOMPARE(result.fits.size(), std::size_t(dims));
        for (int j = 0; j < dims; ++j) {
            const SinusoidFit &f = result.fits[std::size_t(j)];
            PE_COMPARE_CLOSER_THAN(f.angularFrequency, w[j], 1e-4);
            PE_COMPARE_CLOSER_THAN(wrap(f.phase - phase[j]), 0, 1e-3);
            PE_COMPARE_CLOSER_THAN(f.amplitude, amplitude[j], 1e-3 * amplitude[j] + 1e-5);
            QVERIFY(f.rSquared > 0.99999);
        }
        // The chosen dim's data is the table's column.
        QCOMPARE(result.inputs.dim, qint64(2));
        for (qint64 p = 0; p < n; p += 17)
            QCOMPARE(result.column[std::size_t(p)], double(values[std::size_t(p * dims + 2)]));
    }

    // A planar circle over whole turns: two components of equal variance (1/2 each), nothing in
    // the third; every point at the circle's radius; cosines cos(2 pi (p - q) / n).
    void pcaAndSimilarityOfACircle()
    {
        const qint64 n = 96;
        const double radius = 2.0;
        TableResult result;
        QString error;
        QCOMPARE(computeTableData(tableInputs(tableSpec(n, 4, circleTable(n, radius)), 0), {},
                                  &result, &error),
                 JobStatus::Done);
        const PositionPca &pca = result.pca;
        QCOMPARE(pca.components, 3);
        PE_COMPARE_NEAR(pca.explainedVariance[0], 0.5, 1e-6);
        PE_COMPARE_NEAR(pca.explainedVariance[1], 0.5, 1e-6);
        PE_COMPARE_NEAR(pca.explainedVariance[2], 0.0, 1e-6);
        for (qint64 p = 0; p < n; ++p) {
            const double a = pca.scores[std::size_t(p * 3)], b = pca.scores[std::size_t(p * 3 + 1)];
            PE_COMPARE_NEAR(std::hypot(a, b), radius, 1e-5);
        }
        QCOMPARE(result.similarity.size, n);
        for (const auto &[p, q] : {std::pair{0, 0}, std::pair{3, 40}, std::pair{95, 1},
                                   std::pair{24, 0}, std::pair{48, 0}})
            PE_COMPARE_NEAR(double(result.similarity.at(p, q)),
                            std::cos(2 * pi * double(p - q) / double(n)), 1e-5);
    }

    void notATableIsRefused()
    {
        TableResult result;
        QString error;
        QCOMPARE(computeTableData(tableInputs(sinusoidalSpec(64, 16), 0), {}, &result, &error),
                 JobStatus::Failed);
        QVERIFY2(error.contains(QStringLiteral("Open model")), qPrintable(error));
    }

    // The window: open the GPT-2-like folder; the Model page shows its card, PCA and fits.
    void modelPageShowsTheTable()
    {
        const qint64 n = 64;
        const QString folder = writeGpt2Folder(QStringLiteral("gpt2-circle"), n);
        auto window = openWindow();
        QString error;
        QVERIFY2(openAndWait(window.get(), folder, &error), qPrintable(error));
        window->state()->setPage(Page::Model);
        QCOMPARE(window->pages()->currentWidget(), window->modelPage());
        ModelPage *page = window->modelPage();
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QVERIFY(page->result());
        PE_COMPARE_NEAR(page->result()->pca.explainedVariance[0], 0.5, 1e-6);
        PE_COMPARE_NEAR(page->result()->pca.explainedVariance[1], 0.5, 1e-6);
        QCOMPARE(page->currentView(), FigureView::Pca);
        // Two scatter panels (PC1-PC2, PC2-PC3) and a position colour scale.
        QCOMPARE(page->currentPlot()->axisRectCount(), 2);
        QVERIFY(page->currentPlot()->plottableCount() > 2);
        // The card says what was read from which file, and what the config says.
        const QString card = page->cardText();
        QVERIFY2(card.contains(QStringLiteral("architecture: gpt2 (GPT2LMHeadModel)")),
                 qPrintable(card));
        QVERIFY2(card.contains(QStringLiteral("context length: %1").arg(n)), qPrintable(card));
        QVERIFY2(card.contains(QStringLiteral("read: tensor wpe.weight [%1, 4] F32").arg(n)),
                 qPrintable(card));
        QVERIFY2(card.contains(QStringLiteral("assumed:")) ||
                     card.contains(QStringLiteral("read:")),
                 qPrintable(card));

        // The fit dimension follows the selected cell, and the views follow it.
        page->setCurrentView(FigureView::SinusoidFit);
        Selection cell = window->state()->selection();
        cell.dim = 1;
        window->state()->setSelection(cell);
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QCOMPARE(page->result()->inputs.dim, qint64(1));
        // Column 1 of the circle is cos(a)/2 * 2 - sin(a)/2 * 2 = sqrt(2) sin(a + 3pi/4)... a
        // sinusoid of angular frequency 2 pi / n: fitted exactly.
        const SinusoidFit &f = page->result()->fits[1];
        PE_COMPARE_NEAR(f.angularFrequency, 2 * pi / double(n), 1e-6);
        PE_COMPARE_NEAR(f.amplitude, std::sqrt(2.0), 1e-5);
        QVERIFY(f.rSquared > 0.99999);
        QCOMPARE(page->currentPlot()->axisRectCount(), 2);
        page->setCurrentView(FigureView::TableSimilarity);
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QCOMPARE(page->currentPlot()->plottableCount(), 1);
    }

    // A rotary config with NoPE layers: the layer map lists them, and choosing a layer shows it.
    void layerMapOfNoPELayers()
    {
        // Cohere2: a 4096-token sliding window with RoPE (θ 50,000) in three of four layers;
        // every fourth layer global, without positions.
        const QString folder = path(QStringLiteral("cohere2"));
        QDir().mkpath(folder);
        writeBytes(folder + QStringLiteral("/config.json"),
                   R"({"model_type":"cohere2","num_hidden_layers":8,"hidden_size":64,
                      "num_attention_heads":2,"sliding_window":4096,"sliding_window_pattern":4,
                      "rope_theta":50000.0,"max_position_embeddings":8192})");
        auto window = openWindow();
        QString error;
        QVERIFY2(openAndWait(window.get(), folder, &error), qPrintable(error));
        QTableWidget *map = window->modelPage()->layerTable();
        QCOMPARE(map->rowCount(), 8);
        for (int layer = 0; layer < 8; ++layer) {
            const bool global = layer % 4 == 3;
            QCOMPARE(map->item(layer, 0)->text(), QString::number(layer));
            QCOMPARE(map->item(layer, 1)->text(),
                     global ? QStringLiteral("NoPE (no rotation)") : QStringLiteral("RoPE"));
            QCOMPARE(map->item(layer, 2)->text(), global ? QStringLiteral("full attention")
                                                         : QStringLiteral("sliding window 4096"));
            QCOMPARE(map->item(layer, 3)->text(),
                     global ? QString() : QLocale().toString(50000.0, 'g', 10));
            // head_dim = 64 / 2 = 32, all of it rotated.
            QCOMPARE(map->item(layer, 4)->text(), global ? QString() : QStringLiteral("32 of 32"));
        }
        // The first rotary layer opened; choosing layer 3 makes the encoding NoPE, 2 RoPE again.
        QVERIFY(window->state()->spec().get<RopeScheme>());
        QCOMPARE(window->state()->spec().get<RopeScheme>()->ropeTheta, 50000.0);
        QVERIFY2(window->modelPage()->selectLayer(3, &error), qPrintable(error));
        QVERIFY(window->state()->spec().get<NopeScheme>());
        map->selectRow(2);
        QTRY_VERIFY(window->state()->spec().get<RopeScheme>());
        QCOMPARE(window->state()->spec().dims, qint64(32));
        // A rotary layer: the Model page shows its views, not the learned table's empty axes.
        window->state()->setPage(Page::Model);
        ModelPage *page = window->modelPage();
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QVERIFY2(page->message().isEmpty(), qPrintable(page->message()));
        QCOMPARE(page->shownViews(), (QList<FigureView>{FigureView::Spectrum, FigureView::Rotation,
                                                        FigureView::Decay}));
        QCOMPARE(page->currentView(), FigureView::Spectrum);
        QVERIFY(page->currentPlot()->plottableCount() > 0);
        QVERIFY(page->notice().isEmpty());
        // A NoPE layer says so in place of a figure.
        QTest::mouseClick(map->viewport(), Qt::LeftButton, {},
                          map->visualItemRect(map->item(3, 0)).center());
        QTRY_VERIFY(window->state()->spec().get<NopeScheme>());
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QVERIFY2(page->notice().contains(QStringLiteral("NoPE")), qPrintable(page->notice()));
        QCOMPARE(page->currentPlot()->axisRectCount(), 0);
        QCOMPARE(page->currentPlot()->plottableCount(), 0);
    }

    // Issue 25: after File > Paste config.json of a RoPE model the Model page showed empty PCA
    // axes. Now it shows the chosen layer's spectrum, rotation and decay. Llama 2: θ = 10,000
    // (transformers' default), head_dim 4096 / 32 = 128, so pair i turns with wavelength
    // 2π · 10000^(2i/128), written here from the formula.
    void rotaryModelShowsItsLayerViews()
    {
        auto window = openWindow();
        QFile file(QFINDTESTDATA("data/configs/llama-2-7b.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        ConfigPasteDialog dialog(
            [w = window.get()](QByteArrayView text, QString *error) {
                return applyModelConfigText(w, text, error);
            },
            window.get());
        dialog.editor()->setPlainText(QString::fromUtf8(file.readAll()));
        QVERIFY2(dialog.apply(), qPrintable(dialog.message()));
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTest::keyClick(window.get(), Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(window->state()->page(), Page::Model);
        ModelPage *page = window->modelPage();
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QCOMPARE(page->currentView(), FigureView::Spectrum);
        auto *tabs = page->findChild<QTabWidget *>(QStringLiteral("modelTabs"));
        QVERIFY(tabs);
        // Only a rotary layer's views (spectrum, rotation, decay): those drawn from the Schemes
        // page's numbers.
        for (int i = 0; i < tabs->count(); ++i)
            QCOMPARE(tabs->isTabVisible(i), viewNeeds(ModelPage::views()[i], ViewJob::Schemes));
        QCOMPARE(
            viewsNeeding(ModelPage::views(), ViewJob::Schemes),
            (QList<FigureView>{FigureView::Spectrum, FigureView::Rotation, FigureView::Decay}));
        QCPGraph *unscaled = nullptr;
        for (int i = 0; i < page->currentPlot()->graphCount(); ++i)
            if (!unscaled && page->currentPlot()->graph(i)->name().startsWith(u"unscaled"_qs))
                unscaled = page->currentPlot()->graph(i);
        QVERIFY(unscaled);
        QCOMPARE(unscaled->data()->size(), 64);
        for (int i : {0, 1, 31, 63}) {
            const double expected = 2 * pi * std::pow(10000.0, 2.0 * i / 128.0);
            const double got = unscaled->data()->at(i)->value;
            PE_COMPARE_REL(got, expected, 1e-9); // pair i
        }
        // Rotation and decay draw too (Ctrl+Tab walks the visible tabs).
        for (FigureView view : {FigureView::Rotation, FigureView::Decay}) {
            page->setCurrentView(view);
            QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
            QCOMPARE(page->currentView(), view);
            QVERIFY(page->currentPlot()->plottableCount() > 0);
            QVERIFY(page->notice().isEmpty());
        }
        // A learned table brings the table's tabs back, on the view last chosen for tables.
        QString error;
        QVERIFY2(openAndWait(window.get(), writeGpt2Folder(QStringLiteral("gpt2-after-rope"), 24),
                             &error),
                 qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QCOMPARE(page->currentView(), FigureView::Pca);
        // A learned table's views: pca, table-similarity, sinusoid-fit, and any the list adds.
        QCOMPARE(page->shownViews(), viewsNeeding(ModelPage::views(), ViewJob::Table));
        QCOMPARE(page->shownViews().mid(0, 3),
                 (QList<FigureView>{FigureView::Pca, FigureView::TableSimilarity,
                                    FigureView::SinusoidFit}));
    }

    // File > Paste config.json keeps one dialog: closed, it stays (deleted on close, it went
    // while its text edit could still be inside a drag's nested loop: the monkey's SIGSEGV), and
    // opened again it shows no old message.
    void pasteConfigDialogOutlivesItsClose()
    {
        auto window = openWindow();
        auto *action = window->findChild<QAction *>(QStringLiteral("pasteConfigAction"));
        QVERIFY(action);
        action->trigger();
        QPointer<ConfigPasteDialog> first = window->findChild<ConfigPasteDialog *>();
        QVERIFY(first && first->isVisible());
        first->editor()->setPlainText(QStringLiteral("{not json"));
        QVERIFY(!first->apply());
        QVERIFY(!first->message().isEmpty());
        first->reject();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QVERIFY(first);
        action->trigger();
        QCOMPARE(window->findChildren<ConfigPasteDialog *>().size(), 1);
        QVERIFY(first->isVisible());
        QVERIFY(first->message().isEmpty());
        first->reject();
    }

    // Gemma 3's layer map: "256 of 256" rotated dims was cut to "256 of 2…"; every cell fits
    // its column and says its whole text in its tooltip.
    void layerMapColumnsFit()
    {
        auto window = openWindow();
        QFile file(QFINDTESTDATA("data/configs/gemma-3-4b-it.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        ConfigPasteDialog dialog(
            [w = window.get()](QByteArrayView text, QString *error) {
                return applyModelConfigText(w, text, error);
            },
            window.get());
        dialog.editor()->setPlainText(QString::fromUtf8(file.readAll()));
        QVERIFY2(dialog.apply(), qPrintable(dialog.message()));
        window->resize(1280, 720);
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTest::keyClick(window.get(), Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(window->state()->page(), Page::Model);
        QTableWidget *map = window->modelPage()->layerTable();
        QTRY_VERIFY(map->isVisible());
        QCOMPARE(map->item(0, 4)->text(), QStringLiteral("256 of 256"));
        for (int row : {0, 5})
            for (int column = 0; column < map->columnCount(); ++column) {
                const QTableWidgetItem *item = map->item(row, column);
                QCOMPARE(item->toolTip(), item->text());
                const int needed = map->fontMetrics().horizontalAdvance(item->text());
                QVERIFY2(map->columnWidth(column) > needed,
                         qPrintable(QStringLiteral("column %1: %2 px for \"%3\" (%4 px)")
                                        .arg(column)
                                        .arg(map->columnWidth(column))
                                        .arg(item->text())
                                        .arg(needed)));
            }
    }

    // Issue 25: "Use layer as B" moved (y = 509 → 481 → 467) as the status text below it
    // changed between clicks. Its place holds through layer choices and messages.
    void controlsHoldStillAsStatusChanges()
    {
        auto window = openWindow();
        window->resize(1280, 720);
        QString error;
        QVERIFY2(openAndWait(window.get(), path(QStringLiteral("cohere2")), &error),
                 qPrintable(error));
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTest::keyClick(window.get(), Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(window->state()->page(), Page::Model);
        ModelPage *page = window->modelPage();
        auto *useAsB = page->findChild<QPushButton *>(QStringLiteral("useLayerAsB"));
        QTableWidget *map = page->layerTable();
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        const auto place = [&](QWidget *w) {
            return QRect(w->mapTo(window.get(), QPoint()), w->size());
        };
        const QRect button = place(useAsB), table = place(map);
        QStringList infos;
        for (int layer : {3, 0, 1, 3}) {
            QTest::mouseClick(map->viewport(), Qt::LeftButton, {},
                              map->visualItemRect(map->item(layer, 0)).center());
            QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
            QTest::mouseClick(useAsB, Qt::LeftButton);
            QApplication::processEvents();
            infos.append(page->info());
            QCOMPARE(place(useAsB), button);
            QCOMPARE(place(map), table);
        }
        // The status said different things, of different lengths (a NoPE layer is refused).
        QVERIFY2(infos.constFirst().contains(u"NoPE"_qs), qPrintable(infos.constFirst()));
        QVERIFY(infos.at(1) != infos.at(0));
    }

    // File > Open model takes a folder, typed or chosen, as well as a file; a folder that holds
    // no model is entered, as a file dialog does.
    void openModelAcceptsAFolder()
    {
        const QString folder = writeGpt2Folder(QStringLiteral("dialog-model"), 24);
        QDir().mkpath(path(QStringLiteral("dialog-plain/inner")));
        const auto typeAndEnter = [](ModelFileDialog &dialog, const QString &text) {
            auto *name = dialog.findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
            QVERIFY(name);
            name->setFocus();
            name->setText(text);
            QTest::keyClick(name, Qt::Key_Return);
        };
        {
            ModelFileDialog dialog(nullptr, m_dir.path());
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            typeAndEnter(dialog, folder);
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
            QCOMPARE(dialog.chosenPath(), QFileInfo(folder).absoluteFilePath());
        }
        {
            ModelFileDialog dialog(nullptr, m_dir.path());
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            typeAndEnter(dialog, path(QStringLiteral("dialog-plain")));
            QVERIFY(dialog.isVisible()); // entered, not opened
            QCOMPARE(QFileInfo(dialog.directory().absolutePath()).canonicalFilePath(),
                     QFileInfo(path(QStringLiteral("dialog-plain"))).canonicalFilePath());
            QVERIFY(dialog.chosenPath().isEmpty());
            // A file still opens as a file.
            typeAndEnter(dialog, folder + QStringLiteral("/config.json"));
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
            QCOMPARE(QFileInfo(dialog.chosenPath()).fileName(), QStringLiteral("config.json"));
        }
        // Through the File menu (Ctrl+Shift+O): a typed folder's path and Enter open the model.
        auto window = openWindow();
        auto *action = window->findChild<QAction *>(QStringLiteral("openModelAction"));
        QVERIFY(action);
        // Answered as a user does once the dialog shows; closed whatever happens, so that a
        // failure cannot leave the test waiting in the dialog.
        QString answered;
        QTimer poll;
        poll.setInterval(100);
        connect(&poll, &QTimer::timeout, [&] {
            QDialog *shown = nullptr;
            for (QWidget *w : QApplication::topLevelWidgets())
                if (auto *d = qobject_cast<QDialog *>(w); d && d->isVisible())
                    shown = d;
            if (!shown)
                return;
            poll.stop();
            auto *dialog = qobject_cast<ModelFileDialog *>(shown);
            if (!dialog) {
                answered = u"another dialog: "_qs + shown->windowTitle();
                shown->reject();
                return;
            }
            // The folder's path typed, as issue 25 did (Qt's dialog entered the folder).
            auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
            name->setFocus();
            QTest::keyClicks(name, folder);
            QTest::keyClick(name, Qt::Key_Return);
            answered = dialog->isVisible() ? u"still open"_qs : u"opened"_qs;
            if (dialog->isVisible())
                dialog->reject();
        });
        poll.start();
        QSignalSpy opened(FileActions::of(window.get()), &FileActions::modelOpened);
        action->trigger();
        QCOMPARE(answered, u"opened"_qs);
        QVERIFY(opened.wait(30000));
        QCOMPARE(opened.at(0).at(0).toString(), QString());
        const TableScheme *table = window->state()->spec().get<TableScheme>();
        QVERIFY(table && table->table);
        QCOMPARE(table->table->rows, qint64(24));
    }

    // File > Export figure offers the Model views only while a learned table is open.
    void exportDialogOffersModelViews()
    {
        auto window = openWindow();
        {
            ExportDialog dialog(window->state(), window->scheduler());
            dialog.setViews({FigureView::Pca});
            QVERIFY(dialog.options().views != QList<FigureView>{FigureView::Pca});
        }
        QString error;
        QVERIFY2(
            openAndWait(window.get(), writeGpt2Folder(QStringLiteral("gpt2-export"), 32), &error),
            qPrintable(error));
        ExportDialog dialog(window->state(), window->scheduler());
        for (const FigureView view :
             {FigureView::Pca, FigureView::TableSimilarity, FigureView::SinusoidFit}) {
            dialog.setViews({view});
            QCOMPARE(dialog.options().views, QList<FigureView>{view});
        }
        dialog.setViews({FigureView::Pca});
        dialog.setPath(path(QStringLiteral("dialog-pca.png")));
        // QTRY_VERIFY calls exportFigure() once more after it succeeds: that second write
        // replaces the first, which the dialog asks about (issue 46); yes.
        dialog.setReplaceQuestion([](const QString &) { return true; });
        QTRY_VERIFY_WITH_TIMEOUT(dialog.exportFigure(&error), 60000);
        const QImage image(path(QStringLiteral("dialog-pca.png")));
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(int(dialog.options().width), int(dialog.options().height)));
    }

    // File > Paste config.json: Phi-3-mini-128k's text sets its longrope RoPE with the file's own
    // factor lists (read here with Qt's JSON, not pescope's reader) and its layer map; a bad text
    // leaves the state as it was, with one message in the dialog.
    void pasteConfigJson()
    {
        auto window = openWindow();
        QFile file(QFINDTESTDATA("data/configs/phi-3-mini-128k-instruct.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        const QJsonObject scaling =
            QJsonDocument::fromJson(text).object().value(u"rope_scaling"_qs).toObject();
        const auto listOf = [&scaling](const QString &key) {
            std::vector<double> out;
            for (const QJsonValue &v : scaling.value(key).toArray())
                out.push_back(v.toDouble());
            return out;
        };
        QCOMPARE(listOf(u"short_factor"_qs).size(), std::size_t(48));

        const EncodingSpec before = window->state()->spec();
        ConfigPasteDialog dialog(
            [w = window.get()](QByteArrayView text, QString *error) {
                return applyModelConfigText(w, text, error);
            },
            window.get());
        for (const QByteArray &bad :
             {QByteArray("{\"model_type\": \"llama\", "),
              QByteArray(R"({"model_type":"llama","hidden_size":64,"num_attention_heads":2,
                             "rope_scaling":{"rope_type":"bogus","factor":2}})")}) {
            dialog.editor()->setPlainText(QString::fromUtf8(bad));
            QVERIFY(!dialog.apply());
            QVERIFY2(dialog.message().contains(u"pasted config.json"_qs),
                     qPrintable(dialog.message()));
            QVERIFY(window->state()->spec() == before);
        }
        QVERIFY2(dialog.message().contains(u"bogus"_qs), qPrintable(dialog.message()));

        dialog.editor()->setPlainText(QString::fromUtf8(text));
        QVERIFY2(dialog.apply(), qPrintable(dialog.message()));
        const RopeScheme *rope = window->state()->spec().get<RopeScheme>();
        QVERIFY(rope);
        QCOMPARE(rope->ropeType, RopeType::Longrope);
        QCOMPARE(rope->ropeTheta, 10000.0);
        QCOMPARE(rope->shortFactor, listOf(u"short_factor"_qs));
        QCOMPARE(rope->longFactor, listOf(u"long_factor"_qs));
        QCOMPARE(window->state()->spec().dims, qint64(3072 / 32));
        QCOMPARE(window->modelPage()->layerTable()->rowCount(), 32);
    }

    // Issue 32 (the monkey test, seed 4): Qt 6.4's text control reads the first format of
    // pasted data without checking there is one, so a middle-click with a primary selection
    // of no format crashed the window. Nothing is inserted; real text still is.
    void configPasteTakesNoFormatlessData()
    {
        auto window = openWindow();
        ConfigPasteDialog dialog(
            [w = window.get()](QByteArrayView text, QString *error) {
                return applyModelConfigText(w, text, error);
            },
            window.get());
        dialog.editor()->setPlainText(u"{}"_qs);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QClipboard *clipboard = QGuiApplication::clipboard();
        const QClipboard::Mode mode =
            clipboard->supportsSelection() ? QClipboard::Selection : QClipboard::Clipboard;
        clipboard->setMimeData(new QMimeData, mode);
        QWidget *viewport = dialog.editor()->viewport();
        if (mode == QClipboard::Selection)
            QTest::mouseClick(viewport, Qt::MiddleButton, {}, QPoint(40, 10));
        dialog.editor()->setFocus();
        QTest::keyClick(dialog.editor(), Qt::Key_V, Qt::ControlModifier);
        QCOMPARE(dialog.editor()->toPlainText(), u"{}"_qs);
        clipboard->setText(u"\"x\""_qs, mode);
        if (mode == QClipboard::Selection)
            QTest::mouseClick(viewport, Qt::MiddleButton, {}, QPoint(4, 4));
        else
            QTest::keyClick(dialog.editor(), Qt::Key_V, Qt::ControlModifier);
        QVERIFY2(dialog.editor()->toPlainText().contains(u"\"x\""_qs),
                 qPrintable(dialog.editor()->toPlainText()));
    }

    // A GGUF file has no config.json: the card and layer map come from its metadata. Llama 4 as
    // llama.cpp converts it: every fourth layer without RoPE, the others chunked (8,192).
    void ggufLayerMapAndCard()
    {
        GgufBuilder b;
        b.addString("general.architecture", "llama4");
        b.addU32("llama4.context_length", 10485760);
        b.addU32("llama4.embedding_length", 5120);
        b.addU32("llama4.block_count", 8);
        b.addU32("llama4.attention.head_count", 40);
        b.addU32("llama4.attention.head_count_kv", 8);
        b.addU32("llama4.rope.dimension_count", 128);
        b.addF32("llama4.rope.freq_base", 500000.0f);
        const QString file = path(QStringLiteral("scout.gguf"));
        QVERIFY(writeBytes(file, b.build()));
        auto window = openWindow();
        QString error;
        QVERIFY2(openAndWait(window.get(), file, &error), qPrintable(error));
        QTableWidget *map = window->modelPage()->layerTable();
        QCOMPARE(map->rowCount(), 8);
        for (int layer = 0; layer < 8; ++layer) {
            const bool nope = (layer + 1) % 4 == 0;
            QCOMPARE(map->item(layer, 1)->text(),
                     nope ? QStringLiteral("NoPE (no rotation)") : QStringLiteral("RoPE"));
            QVERIFY2(map->item(layer, 2)->text().contains(nope ? u"full"_qs : u"8192"_qs),
                     qPrintable(map->item(layer, 2)->text()));
        }
        const QString card = window->modelPage()->cardText();
        QVERIFY2(card.contains(u"architecture: llama4"_qs), qPrintable(card));
        QVERIFY2(card.contains(u"context length: 10485760"_qs), qPrintable(card));
        QVERIFY2(card.contains(u"llama4.rope.freq_base"_qs), qPrintable(card));
        QVERIFY2(card.contains(u"assumed: "_qs) && card.contains(u"n_no_rope_layer_step"_qs),
                 qPrintable(card));
        QVERIFY2(!card.contains(u"no config.json"_qs), qPrintable(card));
    }

    // Two models compared as A and B: a Cohere2 layer becomes B, Llama 4 Scout's first layer A.
    void twoModelsAsAAndB()
    {
        auto window = openWindow();
        QString error;
        QVERIFY2(openAndWait(window.get(), path(QStringLiteral("cohere2")), &error),
                 qPrintable(error));
        QVERIFY(!window->modelPage()->useLayerAsB(3, &error)); // NoPE: nothing to compare
        QVERIFY2(error.contains(QStringLiteral("NoPE")), qPrintable(error));
        QVERIFY2(window->modelPage()->useLayerAsB(0, &error), qPrintable(error));
        QCOMPARE(window->state()->schemeSettings().compare.ropeTheta, 50000.0);
        QVERIFY2(openAndWait(window.get(), QFINDTESTDATA("data/configs/llama-4-scout-17b-16e.json"),
                             &error),
                 qPrintable(error));
        const RopeScheme *a = window->state()->spec().get<RopeScheme>();
        QVERIFY(a);
        QCOMPARE(a->ropeTheta, 500000.0);
        QCOMPARE(a->ropeType, RopeType::Llama3);
        QCOMPARE(window->state()->schemeSettings().compare.ropeTheta, 50000.0);
        // The Schemes page draws both.
        SchemeSettings s = window->state()->schemeSettings();
        s.view = FigureView::Spectrum;
        QVERIFY(window->state()->setSchemeSettings(s, &error));
        window->state()->setPage(Page::Schemes);
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 60000);
        QVERIFY(window->scheduler()->schemes());
        QCOMPARE(window->scheduler()->schemes()->b.rope().ropeTheta, 50000.0);
        QCOMPARE(window->scheduler()->schemes()->a.rope().ropeTheta, 500000.0);
    }

    // File > Open model from the cache lists the cached models; the one picked opens by repo id.
    void openModelFromTheCache()
    {
        writeGpt2Folder(QStringLiteral("hub/models--acme--tiny-gpt2/snapshots/abc123"), 20);
        QVERIFY(
            writeBytes(path(QStringLiteral("hub/models--acme--tiny-gpt2/refs/main")), "abc123"));
        qputenv("HF_HUB_CACHE", path(QStringLiteral("hub")).toUtf8());
        auto window = openWindow();
        FileActions *files = FileActions::of(window.get());
        QStringList offered;
        QTimer::singleShot(300, [&offered] {
            auto *dialog = qobject_cast<QInputDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            offered = dialog->comboBoxItems();
            dialog->accept();
        });
        QSignalSpy opened(files, &FileActions::modelOpened);
        files->openCachedModel();
        QVERIFY(opened.wait(30000));
        qunsetenv("HF_HUB_CACHE");
        QCOMPARE(offered, QStringList{QStringLiteral("acme/tiny-gpt2")});
        QCOMPARE(opened.at(0).at(0).toString(), QString());
        const TableScheme *table = window->state()->spec().get<TableScheme>();
        QVERIFY(table && table->table);
        QCOMPARE(table->source, QStringLiteral("acme/tiny-gpt2"));
        QCOMPARE(table->table->rows, qint64(20));
        const QString card = window->modelPage()->cardText();
        QVERIFY2(card.contains(QStringLiteral("cache: acme/tiny-gpt2 at revision abc123")),
                 qPrintable(card));
    }

    // Dropping a model folder on the window opens it; other files are not accepted.
    void dragAndDropOpensAModel()
    {
        const QString folder = writeGpt2Folder(QStringLiteral("dropped"), 32);
        auto window = openWindow();
        QVERIFY(window->acceptDrops());
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(folder)});
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy opened(FileActions::of(window.get()), &FileActions::modelOpened);
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(window.get(), &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(opened.wait(30000));
        QCOMPARE(opened.at(0).at(0).toString(), QString());
        const TableScheme *table = window->state()->spec().get<TableScheme>();
        QVERIFY(table && table->table);
        QCOMPARE(table->table->rows, qint64(32));

        QMimeData text;
        text.setUrls({QUrl::fromLocalFile(path(QStringLiteral("notes.txt")))});
        QDragEnterEvent refused(QPoint(100, 100), Qt::CopyAction, &text, Qt::LeftButton,
                                Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(window.get(), &refused);
        QVERIFY(!refused.isAccepted());
    }

    // File > Recent models: kept across a restart (newest first), a missing one refused with a
    // message and removed.
    void recentModelsSurviveARestart()
    {
        const QString settings = path(QStringLiteral("recent.ini"));
        const QString a = writeGpt2Folder(QStringLiteral("recent-a"), 16);
        const QString b = writeGpt2Folder(QStringLiteral("recent-b"), 16);
        {
            auto window = openWindow(settings);
            QString error;
            QVERIFY2(openAndWait(window.get(), a, &error), qPrintable(error));
            QVERIFY2(openAndWait(window.get(), b, &error), qPrintable(error));
            QCOMPARE(
                FileActions::of(window.get())->recentModels(),
                (QStringList{QFileInfo(b).absoluteFilePath(), QFileInfo(a).absoluteFilePath()}));
            window->close();
        }
        QVERIFY(QDir(b).removeRecursively());
        auto window = openWindow(settings);
        FileActions *files = FileActions::of(window.get());
        QCOMPARE(files->recentModels(),
                 (QStringList{QFileInfo(b).absoluteFilePath(), QFileInfo(a).absoluteFilePath()}));
        // The menu lists them.
        emit files->recentModelsMenu()->aboutToShow();
        QVERIFY(files->recentModelsMenu()->actions().size() >= 2);
        QCOMPARE(files->recentModelsMenu()->actions().at(0)->data().toString(),
                 QFileInfo(b).absoluteFilePath());
        const QByteArray before = QJsonDocument(window->state()->toJson()).toJson();
        QSignalSpy messages(files, &FileActions::message);
        QSignalSpy opened(files, &FileActions::modelOpened);
        // A message box would block: answer it as a user does.
        QTimer::singleShot(200, [] {
            if (QWidget *box = QApplication::activeModalWidget())
                box->close();
        });
        files->openRecentModel(QFileInfo(b).absoluteFilePath());
        QCOMPARE(opened.size(), 1);
        QVERIFY(messages.size() >= 1);
        QVERIFY2(messages.last().at(0).toString().contains(QStringLiteral("no longer exists")),
                 qPrintable(messages.last().at(0).toString()));
        QCOMPARE(QJsonDocument(window->state()->toJson()).toJson(), before);
        QCOMPARE(files->recentModels(), QStringList{QFileInfo(a).absoluteFilePath()});
    }

    // `pescope --model DIR --page model --model-view V --screenshot F`: the README's screenshot.
    void windowOpensAModelOnStart()
    {
        const QString folder = writeGpt2Folder(QStringLiteral("start-model"), 40);
        const QString shot = path(QStringLiteral("start.png"));
        const RunResult r =
            runPescope({QStringLiteral("--model"), folder, QStringLiteral("--page"),
                        QStringLiteral("model"), QStringLiteral("--model-view"),
                        QStringLiteral("sinusoid-fit"), QStringLiteral("--screenshot"), shot,
                        QStringLiteral("--size"), QStringLiteral("900x600")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QImage(shot).size(), QSize(900, 600));
        const RunResult missing =
            runPescope({QStringLiteral("--model"), path(QStringLiteral("no-such-model")),
                        QStringLiteral("--screenshot"), path(QStringLiteral("x.png"))});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("--model:") && missing.err.contains("no-such-model"),
                 missing.err.constData());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("x.png"))));
    }

    // `pescope export --model DIR --view pca --out FIG.png` writes the figure.
    void exportModelWritesAFigure()
    {
        const QString folder = writeGpt2Folder(QStringLiteral("export-model"), 48);
        const QString out = path(QStringLiteral("pca.png"));
        const RunResult r = runPescope(
            {QStringLiteral("export"), QStringLiteral("--model"), folder, QStringLiteral("--view"),
             QStringLiteral("pca"), QStringLiteral("--out"), out, QStringLiteral("--width"),
             QStringLiteral("800"), QStringLiteral("--height"), QStringLiteral("500")});
        QVERIFY2(r.exitCode == 0, qPrintable(QString::fromUtf8(r.err)));
        QImage image(out);
        QCOMPARE(image.size(), QSize(800, 500));
        // The fits' numbers as data: dims x 3, each row (w, phase, R²).
        const QString npy = path(QStringLiteral("fits.csv"));
        const RunResult d = runPescope({QStringLiteral("export"), QStringLiteral("--model"), folder,
                                        QStringLiteral("--view"), QStringLiteral("sinusoid-fit"),
                                        QStringLiteral("--out"), npy});
        QVERIFY2(d.exitCode == 0, qPrintable(QString::fromUtf8(d.err)));
        QFile csv(npy);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        for (const QByteArray &line : lines) {
            const QList<QByteArray> cells = line.split(',');
            QCOMPARE(cells.size(), 3);
            PE_COMPARE_NEAR(cells[0].toDouble(), 2 * pi / 48.0, 1e-5);
            QVERIFY(cells[2].toDouble() > 0.9999);
        }
        // A model without a table: the view is refused with a message, exit 1 or 2.
        const RunResult bad = runPescope({QStringLiteral("export"), QStringLiteral("--model"),
                                          path(QStringLiteral("cohere2")), QStringLiteral("--view"),
                                          QStringLiteral("pca"), QStringLiteral("--out"),
                                          path(QStringLiteral("x.png"))});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(QString::fromUtf8(bad.err).contains(QStringLiteral("position table")),
                 qPrintable(QString::fromUtf8(bad.err)));
    }
};

QTEST_MAIN(TestModelPage)
#include "tst_modelpage.moc"
