// Journeys of a new user through the window (issue 38), driven by key events on the real widgets
// of a window under Xvfb: every rope type typed into the Encoding page's form (choosing the type
// fills what it needs, one undo step, and each later edit of one field is applied alone); a
// scheme round trip that leaves Dims as they were; the export dialog remembering MP4 with a size
// MP4 takes; Check engine table… saying what must be open before it asks for a file.
#include "dialogs/enginecheckdialog.h"
#include "dialogs/exportdialog.h"
#include "fields/field.h"
#include "schemes/ropescheme.h"
#include "state/statecommand.h"
#include "views/exportactions.h"
#include "views/fileactions.h"
#include "views/heatmapview.h"
#include "views/phraseview.h"
#include "views/wavesview.h"
#include "widgets/compactcombo.h"
#include "widgets/fieldform.h"
#include "widgets/parameterpanel.h"
#include "windowtestutil.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFontMetricsF>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QScopeGuard>
#include <QStyleOptionButton>
#include <QTabWidget>
#include <QTimer>

#include "figures/qcpinclude.h"

#include <cmath>
#include <numbers>

using namespace pe;
using namespace pe::test;

namespace {

// The text of a RoPE field in the window's state (the field table's own text).
QString ropeText(const MainWindow &window, const QString &key)
{
    const RopeScheme *rope = window.state()->spec().get<RopeScheme>();
    const Field<RopeScheme> *field = findField(RopeScheme::fields(), key);
    return rope && field ? fieldText(*field, *rope) : QStringLiteral("(no rope)");
}

FieldForm *specForm(const MainWindow &window)
{
    return window.parameterPanel()->specForm();
}

QComboBox *comboOf(const MainWindow &window, const QString &key)
{
    return qobject_cast<QComboBox *>(specForm(window)->editor(key));
}

} // namespace

class TestFirstUse : public QObject
{
    Q_OBJECT

private slots:
    // Encoding page → Scheme RoPE → Rope type, by keys alone: the type comes with the values it
    // needs (those of a published configuration of that type), as one step of the history; a
    // field typed afterwards is applied alone, and a value the type cannot do without is refused
    // with the state kept.
    void ropeTypeTypedIn_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QStringList>("filled"); // key=value the type brings
        QTest::addColumn<QString>("editKey");
        QTest::addColumn<QString>("editText");
        QTest::addColumn<QString>("requiredKey"); // emptied: refused
        // Llama 3.1's config.json: rope_scaling {"rope_type": "llama3", "factor": 8.0,
        // "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        // "original_max_position_embeddings": 8192}.
        QTest::addRow("llama3") << u"llama3"_qs
                                << QStringList{u"factor=8"_qs,
                                               u"original_max_position_embeddings=8192"_qs,
                                               u"low_freq_factor=1"_qs, u"high_freq_factor=4"_qs}
                                << u"factor"_qs << u"16"_qs << u"factor"_qs;
        // Qwen 2.5's model card: {"type": "yarn", "factor": 4.0,
        // "original_max_position_embeddings": 32768}.
        QTest::addRow("yarn") << u"yarn"_qs
                              << QStringList{u"factor=4"_qs,
                                             u"original_max_position_embeddings=32768"_qs}
                              << u"beta_fast"_qs << u"16"_qs
                              << u"original_max_position_embeddings"_qs;
        // Phi-3-mini-128k: original 4096, max_position_embeddings 131072; one factor per pair.
        QTest::addRow("longrope") << u"longrope"_qs
                                  << QStringList{u"original_max_position_embeddings=4096"_qs,
                                                 u"max_position_embeddings=131072"_qs,
                                                 u"short_factor=1"_qs, u"long_factor=1"_qs}
                                  << u"long_factor"_qs << u"2"_qs << u"short_factor"_qs;
        // transformers' LlamaConfig docstring: {"type": "dynamic", "factor": 2.0}; Llama 2's
        // 4096 as max_position_embeddings.
        QTest::addRow("dynamic") << u"dynamic"_qs
                                 << QStringList{u"factor=2"_qs, u"max_position_embeddings=4096"_qs}
                                 << u"max_position_embeddings"_qs << u"8192"_qs << u"factor"_qs;
        QTest::addRow("linear") << u"linear"_qs << QStringList{u"factor=2"_qs} << u"factor"_qs
                                << u"4"_qs << u"factor"_qs;
    }

    void ropeTypeTypedIn()
    {
        QFETCH(QString, type);
        QFETCH(QStringList, filled);
        QFETCH(QString, editKey);
        QFETCH(QString, editText);
        QFETCH(QString, requiredKey);
        auto window = openWindow();
        QUndoStack *undo = window->undoStack();
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), u"rope"_qs));
        QCOMPARE(window->state()->spec().schemeId(), u"rope"_qs);
        const int afterScheme = undo->index();
        QVERIFY(pickWithKeys(comboOf(*window, u"rope_type"_qs), type));
        // One step: the type and what it needs.
        QCOMPARE(ropeText(*window, u"rope_type"_qs), type);
        QCOMPARE(undo->index(), afterScheme + 1);
        QVERIFY2(specForm(*window)->messages().isEmpty(),
                 qPrintable(specForm(*window)->messages().join(u'|')));
        for (const QString &pair : filled) {
            const QString key = pair.section(u'=', 0, 0), value = pair.section(u'=', 1);
            QCOMPARE(ropeText(*window, key), value);
            auto *edit = qobject_cast<QLineEdit *>(specForm(*window)->editor(key));
            QVERIFY2(edit && edit->isVisibleTo(window.get()), qPrintable(key));
            QCOMPARE(edit->text(), value); // the form shows what the state holds
        }
        // One field typed afterwards: applied alone, one more step.
        auto *edit = qobject_cast<QLineEdit *>(specForm(*window)->editor(editKey));
        QVERIFY(edit);
        typeInto(edit, editText);
        QVERIFY2(specForm(*window)->messages().isEmpty(),
                 qPrintable(specForm(*window)->messages().join(u'|')));
        QCOMPARE(ropeText(*window, editKey), editText);
        QCOMPARE(undo->index(), afterScheme + 2);
        // A value the type needs, emptied: refused, explained, the state kept.
        const QString kept = ropeText(*window, requiredKey);
        auto *required = qobject_cast<QLineEdit *>(specForm(*window)->editor(requiredKey));
        QVERIFY(required);
        typeInto(required, QString());
        QVERIFY(!specForm(*window)->messages().isEmpty());
        QCOMPARE(ropeText(*window, requiredKey), kept);
        QCOMPARE(undo->index(), afterScheme + 2);
        // Undo twice: back to RoPE's default type, in one step from the type's.
        undo->undo();
        QCOMPARE(ropeText(*window, u"rope_type"_qs), type);
        undo->undo();
        QCOMPARE(ropeText(*window, u"rope_type"_qs), u"default"_qs);
        QCOMPARE(undo->index(), afterScheme);
    }

    // Values typed for one type carry over to the next that reads them: the last ones used.
    void lastValuesCarryOver()
    {
        auto window = openWindow();
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), u"rope"_qs));
        QVERIFY(pickWithKeys(comboOf(*window, u"rope_type"_qs), u"llama3"_qs));
        typeInto(specForm(*window)->editor(u"original_max_position_embeddings"_qs), u"16384"_qs);
        QCOMPARE(ropeText(*window, u"original_max_position_embeddings"_qs), u"16384"_qs);
        QVERIFY(pickWithKeys(comboOf(*window, u"rope_type"_qs), u"yarn"_qs));
        QCOMPARE(ropeText(*window, u"original_max_position_embeddings"_qs), u"16384"_qs);
        QCOMPARE(ropeText(*window, u"factor"_qs), u"8"_qs);
        QVERIFY2(specForm(*window)->messages().isEmpty(),
                 qPrintable(specForm(*window)->messages().join(u'|')));
    }

    // Defaults → ALiBi → Sinusoidal leaves Dims as they were (issue 38, item 5).
    void schemeRoundTripKeepsDims()
    {
        auto window = openWindow();
        const qint64 dims = window->state()->spec().dims;
        const qint64 positions = window->state()->spec().positions;
        QVERIFY(dims != positions); // else the test proves nothing
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), u"alibi"_qs));
        QCOMPARE(window->state()->spec().schemeId(), u"alibi"_qs);
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), u"t5"_qs));
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), u"sinusoidal"_qs));
        QCOMPARE(window->state()->spec().dims, dims);
        QCOMPARE(window->state()->spec().positions, positions);
        auto *field = qobject_cast<QLineEdit *>(specForm(*window)->editor(u"dims"_qs));
        QVERIFY(field);
        QCOMPARE(field->text(), QString::number(dims));
    }

    // ALiBi and T5 on the Encoding page name their axes as their legends do (issue 38, item 6):
    // key positions, not dimensions, and the bias or bucket, not PE(p, i).
    void alibiAndT5AxesNamed_data()
    {
        QTest::addColumn<QString>("scheme");
        QTest::addColumn<QString>("values");
        QTest::addRow("alibi") << u"alibi"_qs << u"bias"_qs;
        QTest::addRow("t5") << u"t5"_qs << u"bucket"_qs;
    }
    void alibiAndT5AxesNamed()
    {
        QFETCH(QString, scheme);
        QFETCH(QString, values);
        auto window = openWindow();
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), scheme));
        QTRY_VERIFY_WITH_TIMEOUT(window->isSettled(), 30000);
        QStringList heat, waves;
        for (QCPAxis *axis : window->heatmapView()->plot()->axisRect()->axes())
            heat.append(axis->label());
        for (QCPAxis *axis : window->wavesView()->plot()->axisRect()->axes())
            waves.append(axis->label());
        QVERIFY2(heat.contains(u"key position j"_qs) && heat.contains(u"query position i"_qs),
                 qPrintable(heat.join(u'|')));
        QVERIFY2(!heat.contains(u"dimension i"_qs), qPrintable(heat.join(u'|')));
        QVERIFY2(waves.contains(values) && waves.contains(u"query position i"_qs),
                 qPrintable(waves.join(u'|')));
        QVERIFY2(!waves.contains(u"PE(p, i)"_qs), qPrintable(waves.join(u'|')));
    }

    // Two edits of one phrase with a pause between are two steps; Ctrl+Z undoes the second
    // alone (issue 38, item 9). Edits in quick succession (a drag) still make one.
    void separateEditsAreSeparateSteps()
    {
        auto window = openWindow();
        window->state()->setPage(Page::Phrases);
        QLineEdit *phrase = window->phraseView()->phraseEdit(0);
        QVERIFY(phrase);
        const QString original = window->state()->phraseSettings().phrases.value(0);
        const int before = window->undoStack()->count();
        // The steps' clock stands still unless the test moves it: the pause is exact, however
        // slowly the machine runs the typing.
        static StateCommand::Clock::time_point fakeNow;
        fakeNow = StateCommand::Clock::now();
        StateCommand::now = [] { return fakeNow; };
        const auto restoreClock =
            qScopeGuard([] { StateCommand::now = &StateCommand::Clock::now; });
        typeInto(phrase, u"the first edit"_qs);
        fakeNow += StateCommand::mergeWindow + std::chrono::milliseconds(1); // something else
        typeInto(phrase, u"the second edit"_qs);
        QCOMPARE(window->undoStack()->count(), before + 2);
        window->undoStack()->undo();
        QCOMPARE(window->state()->phraseSettings().phrases.value(0), u"the first edit"_qs);
        window->undoStack()->undo();
        QCOMPARE(window->state()->phraseSettings().phrases.value(0), original);
        // Within the window: one step, as a slider's drag.
        auto *dims = qobject_cast<QLineEdit *>(specForm(*window)->editor(u"dims"_qs));
        window->state()->setPage(Page::Encoding);
        const int steps = window->undoStack()->index();
        typeInto(dims, u"100"_qs);
        typeInto(dims, u"110"_qs);
        QCOMPARE(window->undoStack()->index(), steps + 1);
        QCOMPARE(window->state()->spec().dims, 110);
    }

    // The export dialog remembers MP4; opened again on a view of odd size, it takes the view's
    // size rounded to even sides, which MP4 accepts (issue 38, item 10).
    void exportRemembersMp4WithEvenSize()
    {
        auto window = openWindow();
        // A window size at which the encoding page's figure has odd sides.
        const auto viewSize = [&] {
            const QSize waves = window->wavesView()->plot()->size();
            const QSize heat = window->heatmapView()->plot()->size();
            return QSize(qMax(waves.width(), heat.width()), waves.height() + heat.height());
        };
        bool odd = false;
        for (int dw = 0; dw < 4 && !odd; ++dw)
            for (int dh = 0; dh < 4 && !odd; ++dh) {
                window->resize(1200 + dw, 700 + dh);
                QTest::qWait(50);
                odd = viewSize().width() % 2 == 1 && viewSize().height() % 2 == 1;
            }
        QVERIFY2(odd, "no window size gave the figure odd sides");
        ExportActions *actions = ExportActions::of(window.get());
        actions->exportFigureAction()->trigger();
        auto *dialog = window->findChild<ExportDialog *>();
        QVERIFY(dialog && dialog->isVisible());
        auto *format = dialog->findChild<QComboBox *>(u"exportFormat"_qs);
        QVERIFY(pickWithKeys(format, u"mp4"_qs));
        dialog->close();
        actions->exportFigureAction()->trigger();
        QVERIFY(dialog->isVisible());
        QCOMPARE(format->currentData().toString(), u"mp4"_qs);
        const QSize view = viewSize();
        QCOMPARE(dialog->options().width, view.width() - 1);
        QCOMPARE(dialog->options().height, view.height() - 1);
        QVERIFY2(!dialog->animationProblem().contains(u"even"_qs),
                 qPrintable(dialog->animationProblem()));
        dialog->close();
    }

    // Ctrl+= zooms the window (its font and the figures built in it), Ctrl+- and Ctrl+0 undo
    // it; exports keep the application's font, and the state (and its history) is untouched.
    void windowZoom()
    {
        auto window = openWindow();
        QCustomPlot *plot = window->heatmapView()->plot();
        QTRY_VERIFY(plot->axisRectCount() > 0 && plot->graphCount() + plot->plottableCount() > 0);
        const auto tickSize = [&] {
            return plot->axisRect()->axis(QCPAxis::atBottom)->tickLabelFont().pointSizeF();
        };
        const double desktop = QApplication::font().pointSizeF();
        const double ticks = tickSize();
        const int steps = window->undoStack()->count();
        window->activateWindow();
        QTest::keyClick(window.get(), Qt::Key_Equal, Qt::ControlModifier);
        QTest::keyClick(window.get(), Qt::Key_Equal, Qt::ControlModifier);
        QCOMPARE(window->zoom(), 1.5);
        QCOMPARE(window->font().pointSizeF(), desktop * 1.5);
        QCOMPARE(specForm(*window)->editor(u"dims"_qs)->font().pointSizeF(), desktop * 1.5);
        QTRY_COMPARE(tickSize(), ticks * 1.5);
        QCOMPARE(QApplication::font("QCustomPlot").pointSizeF(), desktop); // exports' font
        QTest::keyClick(window.get(), Qt::Key_Minus, Qt::ControlModifier);
        QCOMPARE(window->zoom(), 1.25);
        QTest::keyClick(window.get(), Qt::Key_0, Qt::ControlModifier);
        QCOMPARE(window->zoom(), 1.0);
        QTRY_COMPARE(tickSize(), ticks);
        QCOMPARE(window->undoStack()->count(), steps);
    }

    // Every scheme picked in turn: the Scheme combo stays where it was (the label column is as
    // wide as any scheme's widest label), no label is cut, and a cut choice is in its box's
    // tooltip (issue 38, items 7 and 8).
    void schemeComboStaysPut()
    {
        auto window = openWindow();
        QComboBox *scheme = comboOf(*window, u"scheme"_qs);
        QVERIFY(scheme);
        const int x = scheme->mapTo(window.get(), QPoint()).x();
        QStringList schemes;
        for (int i = 0; i < scheme->count(); ++i)
            schemes.append(scheme->itemData(i).toString());
        QVERIFY(schemes.size() >= 4);
        for (const QString &id : std::as_const(schemes)) {
            QVERIFY2(pickWithKeys(comboOf(*window, u"scheme"_qs), id), qPrintable(id));
            QApplication::processEvents();
            QComboBox *now = comboOf(*window, u"scheme"_qs);
            QCOMPARE(now->mapTo(window.get(), QPoint()).x(), x);
            // A combo box is as wide as it asks, and one that cuts its choice (they show a
            // dozen characters, so that the panel leaves the figure its room) gives it whole in
            // its tooltip.
            for (QComboBox *c : specForm(*window)->findChildren<QComboBox *>())
                if (c->isVisibleTo(window.get())) {
                    QVERIFY2(c->width() >= c->sizeHint().width(),
                             qPrintable(id + u": "_qs + c->currentText()));
                    QVERIFY2(!comboTextCut(c) || c->toolTip().contains(c->currentText()),
                             qPrintable(id + u": "_qs + c->currentText()));
                }
            for (QLabel *l : specForm(*window)->findChildren<QLabel *>())
                if (l->isVisibleTo(window.get()) && !l->text().isEmpty() && !l->wordWrap())
                    QVERIFY2(l->width() >= l->sizeHint().width(),
                             qPrintable(id + u": "_qs + l->text()));
        }
    }

    // A three-line refusal has its room in the Encoding box: the View box below stays put
    // (issue 38, item 7).
    void longMessageMovesNothing()
    {
        auto window = openWindow();
        QVERIFY(pickWithKeys(comboOf(*window, u"scheme"_qs), u"rope"_qs));
        QVERIFY(pickWithKeys(comboOf(*window, u"rope_type"_qs), u"llama3"_qs));
        QGroupBox *view = nullptr;
        for (QGroupBox *box : window->parameterPanel()->findChildren<QGroupBox *>())
            if (box->title() == u"View"_qs)
                view = box;
        QVERIFY(view);
        QApplication::processEvents();
        const int y = view->mapTo(window.get(), QPoint()).y();
        // The longest refusal the form has: a value a rope type needs, emptied.
        typeInto(specForm(*window)->editor(u"original_max_position_embeddings"_qs), u"0"_qs);
        QApplication::processEvents();
        const QStringList messages = specForm(*window)->messages();
        QCOMPARE(messages.size(), 1);
        auto *slot =
            specForm(*window)->findChild<QLabel *>(u"original_max_position_embeddingsMessage"_qs);
        QVERIFY(slot);
        const int lines = slot->fontMetrics()
                              .boundingRect(QRect(0, 0, slot->contentsRect().width(), 100000),
                                            Qt::TextWordWrap, messages.first())
                              .height() /
                          slot->fontMetrics().lineSpacing();
        QVERIFY2(lines >= 2, qPrintable(QString::number(lines) + u' ' + messages.first()));
        // Three lines are kept whether or not a message is shown: a narrower panel (a larger
        // font) wraps this one to three without moving the View box.
        QVERIFY(slot->height() >= 3 * slot->fontMetrics().lineSpacing());
        QCOMPARE(view->mapTo(window.get(), QPoint()).y(), y);
    }

    // On the dark theme an empty check box's outline stands out from its fill (issue 38, item 8:
    // Fusion drew it in the fill's own colour).
    void darkCheckBoxesShow()
    {
        auto window = openWindow();
        window->state()->setTheme(Theme::Dark);
        QApplication::processEvents();
        QCheckBox *box = nullptr;
        for (QCheckBox *c : window->parameterPanel()->findChildren<QCheckBox *>())
            if (c->isVisibleTo(window.get()) && !c->isChecked())
                box = c;
        QVERIFY(box);
        QStyleOptionButton option;
        option.initFrom(box);
        const QRect indicator =
            box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
        const QImage image = box->grab().toImage();
        const int y = indicator.center().y();
        const QColor fill = image.pixelColor(indicator.center());
        // The strongest contrast across the indicator's left edge.
        int contrast = 0;
        for (int x = indicator.left(); x <= indicator.left() + 2; ++x)
            contrast = qMax(contrast, qAbs(image.pixelColor(x, y).lightness() - fill.lightness()));
        QVERIFY2(fill.lightness() < 80, qPrintable(fill.name())); // the dark theme's fill
        QVERIFY2(contrast >= 60, qPrintable(QString::number(contrast)));
    }

    // The cosine plot's token labels stay apart when the undo dock narrows the plot (issue 38,
    // item 8): rotated 60°, each needs its line height / sin 60° of axis.
    void similarityLabelsApartWithDockOpen()
    {
        auto window = openWindow();
        window->resize(1280, 720);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        window->activateWindow();
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window->pages()->currentIndex(), 1);
        QCustomPlot *plot = window->phraseView()->similarityPlot();
        QTRY_VERIFY(plot->plottableCount() > 0);
        auto *dock = window->findChild<QDockWidget *>(u"undoHistory"_qs);
        QVERIFY(dock);
        QTRY_VERIFY(plot->isVisible() && plot->width() > 300);
        const int before = plot->width();
        dock->show();
        QTRY_VERIFY(plot->width() < before);
        plot->replot();
        QCPAxis *x = plot->axisRect()->axis(QCPAxis::atBottom);
        const QVector<double> ticks = x->tickVector();
        QVERIFY2(ticks.size() >= 2, qPrintable(QString::number(ticks.size())));
        const double need =
            QFontMetricsF(x->tickLabelFont()).height() / std::sin(std::numbers::pi / 3);
        double closest = 1e9;
        for (qsizetype i = 1; i < ticks.size(); ++i)
            closest = std::min(closest, x->coordToPixel(ticks[i]) - x->coordToPixel(ticks[i - 1]));
        QVERIFY2(closest >= need, qPrintable(QStringLiteral("%1 < %2").arg(closest).arg(need)));
    }

    // Check engine table… with no rotary layer open says so before it asks for a file (issue 38,
    // item 12).
    void engineCheckSaysFirstWhatMustBeOpen()
    {
        auto window = openWindow();
        QVERIFY(!window->state()->spec().get<RopeScheme>());
        auto *action = window->findChild<QAction *>(u"checkEngineTableAction"_qs);
        QVERIFY(action);
        QStringList seen;
        QString text;
        QTimer closer;
        connect(&closer, &QTimer::timeout, this, [&] {
            QWidget *modal = QApplication::activeModalWidget();
            if (auto *box = qobject_cast<QMessageBox *>(modal)) {
                seen.append(u"message"_qs);
                text = box->text();
                box->close();
            } else if (auto *files = qobject_cast<QFileDialog *>(modal)) {
                seen.append(u"file dialog"_qs);
                files->reject();
            }
        });
        closer.start(50);
        action->trigger();
        closer.stop();
        QCOMPARE(seen, QStringList{u"message"_qs});
        QVERIFY2(text.contains(u"no rotary encoding"_qs), qPrintable(text));
    }
};

QTEST_MAIN(TestFirstUse)
#include "tst_firstuse.moc"
