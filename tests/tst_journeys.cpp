// The journeys of issue 38 as a new user makes them: a window opened without --size on the
// screen it meets (CTest runs this suite on Xvfb screens of 1280 x 720 and 1024 x 600), driven by
// keys and clicks, each journey checked through the window's state, its files and its pixels,
// and each leaving a screenshot in screenshots/journeys-<W>x<H>/ under the working folder (the
// build's tests/ folder under CTest) for a person to look at. The journeys that other suites
// drive in detail are here once more at the screen's own window size.
#include "widgets/compactcombo.h"
#include "widgets/fittingscrollarea.h"
#include "widgets/parameterpanel.h"
#include "windowtestutil.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScreen>
#include <QSplitter>
#include <QTabWidget>

using namespace pe;
using namespace pe::test;

namespace {

// A window as a user opens it: no --size, no settings, the size the screen gives it.
std::unique_ptr<MainWindow> openAsUser()
{
    MainWindowOptions options;
    options.persistent = false;
    auto window = std::make_unique<MainWindow>(options);
    window->state()->setBackendChoice(BackendChoice::Cpu);
    window->undoStack()->clear();
    window->show();
    window->activateWindow();
    return window;
}

// Saves what the window shows as <name>.png in this screen's screenshot folder; the path.
QString screenshot(QWidget *window, const QString &name)
{
    const QSize screen = window->screen()->size();
    QDir dir(QDir::current().filePath(
        QStringLiteral("screenshots/journeys-%1x%2").arg(screen.width()).arg(screen.height())));
    dir.mkpath(QStringLiteral("."));
    const QString path = dir.filePath(name + QStringLiteral(".png"));
    window->grab().save(path);
    return path;
}

} // namespace

class TestJourneys : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        const QRect room = QGuiApplication::primaryScreen()->availableGeometry();
        qInfo("screen: %d x %d available", room.width(), room.height());
    }

    // The panel beside the figures takes at most a third of the window, and a combo box that
    // cuts its choice gives it whole in its tooltip, on every page (issue 38: the Encoding
    // page's panel took 440 of 1024 px, its combo boxes as wide as their longest choice).
    void panelLeavesTheFigureRoom()
    {
        auto window = openAsUser();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 30000);
        const auto *panel = qobject_cast<FittingScrollArea *>(
            window->parameterPanel()->parentWidget()->parentWidget());
        QVERIFY(panel);
        screenshot(window.get(), QStringLiteral("encoding"));
        if (qEnvironmentVariableIsSet("PE_DEBUG_PANEL"))
            for (QWidget *w : window->parameterPanel()->findChildren<QWidget *>())
                if (w->isVisibleTo(window.get()))
                    qInfo("%s %s %s min %d hint %d w %d", w->metaObject()->className(),
                          qPrintable(w->objectName()),
                          qPrintable(w->property("text").toString().left(30)),
                          w->minimumSizeHint().width(), w->sizeHint().width(), w->width());
        qInfo("window %d px wide, Encoding panel %d px", window->width(), panel->width());
        QVERIFY2(
            panel->width() * 3 <= window->width(),
            qPrintable(QStringLiteral("%1 of %2 px").arg(panel->width()).arg(window->width())));
        // RoPE with Llama 3's scaling has the most rows and the longest labels.
        QString error;
        QVERIFY2(window->state()->applyJson(
                     QJsonDocument::fromJson(R"({"spec": {"scheme": "rope", "rope_type": "llama3",
                        "factor": 8, "original_max_position_embeddings": 8192}})")
                         .object(),
                     &error),
                 qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 30000);
        QTRY_VERIFY2(panel->width() * 3 <= window->width(),
                     qPrintable(QString::number(panel->width())));
        screenshot(window.get(), QStringLiteral("encoding-llama3"));
        for (int page = 0; page < window->pages()->count(); ++page) {
            window->pages()->setCurrentIndex(page);
            QApplication::processEvents();
            for (QComboBox *combo : window->pages()->widget(page)->findChildren<QComboBox *>()) {
                if (!combo->isVisibleTo(window.get()) || !comboTextCut(combo))
                    continue;
                QVERIFY2(combo->toolTip().contains(combo->currentText()),
                         qPrintable(combo->objectName() + u": "_qs + combo->currentText()));
                // The list it drops down shows every choice whole.
                QVERIFY2(combo->view()->minimumWidth() >
                             combo->fontMetrics().horizontalAdvance(combo->currentText()),
                         qPrintable(combo->currentText()));
            }
        }
    }
};

QTEST_MAIN(TestJourneys)
#include "tst_journeys.moc"
