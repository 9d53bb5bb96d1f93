// Undo and redo in the explorer window (issue 25): real widgets under Xvfb driven by QTest key
// and mouse events; each committed change is one step on the window's QUndoStack with a readable
// text, Ctrl+Z / Ctrl+Shift+Z restore the saved state exactly (sessions' JSON compared), presets
// keep typed phrases and are one step, a model open is undone back to the previous encoding,
// clicks and page switches are no steps, and the title's "*" follows the stack's clean state.
#include "dialogs/configpastedialog.h"
#include "state/explorerstate.h"
#include "testutil.h"
#include "views/fileactions.h"
#include "views/heatmapview.h"
#include "views/mainwindow.h"
#include "views/phraseview.h"
#include "widgets/fieldform.h"
#include "widgets/parameterpanel.h"
#include "windowtestutil.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace pe;
using pe::test::openWindow;
using pe::test::typeInto;

namespace {

QStringList stepTexts(const QUndoStack *stack)
{
    QStringList texts;
    for (int i = 0; i < stack->count(); ++i)
        texts.append(stack->text(i));
    return texts;
}

// What a session would save: the state's parameters and view choices, compared as text so that
// a failure prints the difference.
QByteArray saved(const ExplorerState *state)
{
    return QJsonDocument(state->toJson()).toJson(QJsonDocument::Indented);
}

// The same without where the user looks (page, selected cell, clicked token, phrase page),
// which undo leaves alone.
QByteArray parameters(const ExplorerState *state)
{
    QJsonObject json = state->toJson();
    json.remove(QStringLiteral("page"));
    json.remove(QStringLiteral("selection"));
    QJsonObject phrases = json.value(QStringLiteral("phrases")).toObject();
    for (const char *key : {"selection", "phrasePage", "tokenPage"})
        phrases.remove(QLatin1String(key));
    json.insert(QStringLiteral("phrases"), phrases);
    return QJsonDocument(json).toJson(QJsonDocument::Indented);
}

QLineEdit *specField(MainWindow &window, const char *key)
{
    return qobject_cast<QLineEdit *>(
        window.parameterPanel()->specForm()->editor(QString::fromLatin1(key)));
}

void pressUndo(QWidget *target)
{
    QTest::keySequence(target, QKeySequence(QKeySequence::Undo));
}

void pressRedo(QWidget *target)
{
    QTest::keySequence(target, QKeySequence(QKeySequence::Redo));
}

QAction *action(MainWindow &window, const QString &name)
{
    return window.findChild<QAction *>(name);
}

// A shown window that has the keyboard: shortcuts reach only the active window.
std::unique_ptr<MainWindow> activeWindow()
{
    auto window = openWindow();
    if (!QTest::qWaitForWindowActive(window.get()))
        qWarning("the window did not become active");
    return window;
}

} // namespace

class TestUndo : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("pescope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_undo"));
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
    }

    // A typed value is one step named after its field; Ctrl+Z in the field it was typed in
    // (nothing typed since) undoes it in the window, Ctrl+Shift+Z redoes it.
    void typedValueIsOneNamedStep()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        QCOMPARE(stack->count(), 0);
        const QByteArray before = saved(window->state());
        QLineEdit *base = specField(*window, "base");
        QVERIFY(base);
        typeInto(base, QStringLiteral("500000"));
        QCOMPARE(window->state()->spec().get<SinusoidalScheme>()->base, 500000.0);
        QCOMPARE(stepTexts(stack), QStringList{QStringLiteral("Set Base to 500000")});
        const QByteArray after = saved(window->state());

        QVERIFY(base->hasFocus());
        pressUndo(base);
        QCOMPARE(window->state()->spec().get<SinusoidalScheme>()->base, 10000.0);
        QCOMPARE(saved(window->state()), before);
        QCOMPARE(base->text().toDouble(), 10000.0); // the field shows the state again
        pressRedo(base);
        QCOMPARE(saved(window->state()), after);
        QCOMPARE(base->text().toDouble(), 500000.0);

        // The Edit menu's actions name the step.
        QCOMPARE(action(*window, QStringLiteral("undoAction"))->text(),
                 QStringLiteral("&Undo Set Base to 500000"));
        QVERIFY(!action(*window, QStringLiteral("redoAction"))->isEnabled());
    }

    // Consecutive changes of one field merge (as a slider drag's many values do); another field
    // starts a new step, and a field dragged back to where it began leaves no step.
    void repeatedChangesOfOneFieldMerge()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        const QByteArray before = saved(window->state());
        auto *slider = window->findChild<QSlider *>(QStringLiteral("positionsSlider"));
        QVERIFY(slider);
        // Steps of the slider: the stream of values a drag sends too.
        slider->setFocus();
        for (int i = 0; i < 5; ++i)
            QTest::keyClick(slider, Qt::Key_PageUp);
        QVERIFY(window->state()->spec().positions != 200);
        QCOMPARE(stack->count(), 1);
        QCOMPARE(stack->text(0),
                 QStringLiteral("Set Positions to %1").arg(window->state()->spec().positions));

        typeInto(specField(*window, "dims"), QStringLiteral("64"));
        typeInto(specField(*window, "dims"), QStringLiteral("96"));
        QCOMPARE(stack->count(), 2);
        QCOMPARE(stack->text(1), QStringLiteral("Set Dims to 96"));
        typeInto(specField(*window, "dims"), QStringLiteral("128")); // back where it started
        QCOMPARE(stack->count(), 1);

        stack->undo();
        QCOMPARE(saved(window->state()), before);
    }

    // Issue 25's steps: type a phrase, press Ctrl+Alt+4 (rope-decay): the phrase is still there,
    // the preset is one step, and Ctrl+Z returns to exactly the state before it.
    void presetAfterTypedPhrasesIsOneUndoableStep()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        PhraseView *phrases = window->phraseView();
        typeInto(phrases->phraseEdit(0), QStringLiteral("my own lesson phrase"));
        QCOMPARE(window->state()->phraseSettings().phrases.value(0),
                 QStringLiteral("my own lesson phrase"));
        QCOMPARE(stepTexts(stack), QStringList{QStringLiteral("Edit Phrase 1")});
        const QByteArray typed = parameters(window->state());

        QTest::keyClick(window.get(), Qt::Key_4, Qt::ControlModifier | Qt::AltModifier);
        QCOMPARE(window->state()->page(), Page::Schemes);
        QCOMPARE(window->state()->spec().schemeId(), QStringLiteral("rope"));
        QCOMPARE(window->state()->phraseSettings().phrases.value(0),
                 QStringLiteral("my own lesson phrase"));
        QCOMPARE(stack->count(), 2);
        QCOMPARE(stack->text(1), QStringLiteral("Apply preset rope-decay"));

        // The Keras preset brings its own phrases, and still can be undone.
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier | Qt::AltModifier);
        QVERIFY(window->state()->phraseSettings().phrases.value(0) !=
                QStringLiteral("my own lesson phrase"));
        QCOMPARE(stack->text(2), QStringLiteral("Apply preset keras-phrases"));
        pressUndo(window.get());
        pressUndo(window.get());
        // The page is where the user looks, not a parameter: it stays where the Keras preset
        // went (the Phrases page); every parameter is as it was.
        QCOMPARE(window->state()->page(), Page::Phrases);
        QCOMPARE(parameters(window->state()), typed);
        QCOMPARE(phrases->phraseEdit(0)->text(), QStringLiteral("my own lesson phrase"));
        pressRedo(window.get());
        QCOMPARE(window->state()->spec().schemeId(), QStringLiteral("rope"));
    }

    // Undo of a model open restores the encoding the window showed before, exactly.
    void modelOpenIsUndone()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        typeInto(specField(*window, "dims"), QStringLiteral("64"));
        const QByteArray before = saved(window->state());
        const QString folder = m_dir.filePath(QStringLiteral("llama-tiny"));
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(QFINDTESTDATA("data/configs/llama-3.1-8b.json"),
                            folder + QStringLiteral("/config.json")));
        QSignalSpy opened(FileActions::of(window.get()), &FileActions::modelOpened);
        FileActions::of(window.get())->openModel(folder);
        QVERIFY(opened.wait(30000));
        QCOMPARE(opened.at(0).at(0).toString(), QString());
        QCOMPARE(window->state()->spec().schemeId(), QStringLiteral("rope"));
        QCOMPARE(stack->count(), 2);
        QCOMPARE(stack->text(1), QStringLiteral("Open model llama-tiny"));
        const QByteArray model = saved(window->state());
        pressUndo(window.get());
        QCOMPARE(saved(window->state()), before);
        pressRedo(window.get());
        QCOMPARE(saved(window->state()), model);

        // File > Paste config.json is a step too.
        QFile config(QFINDTESTDATA("data/configs/gemma-3-4b-it.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        QString error;
        QVERIFY2(applyModelConfigText(window.get(), config.readAll(), &error), qPrintable(error));
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Paste config.json"));
        pressUndo(window.get());
        QCOMPARE(saved(window->state()), model);
    }

    // Where the user looks is no step: a click on a cell and a page switch leave the stack as it
    // was, and undo does not move them back.
    void selectionAndPageAreNotSteps()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        QTest::keyClick(window.get(), Qt::Key_M, Qt::ControlModifier); // next colormap
        QCOMPARE(stepTexts(stack), QStringList{QStringLiteral("Set Colormap to plasma")});
        QVERIFY(QTest::qWaitFor([&] { return window->heatmapView()->grid() != nullptr; }, 30000));
        QTest::qWait(100);
        HeatmapView *heatmap = window->heatmapView();
        const QPoint cell = heatmap->cellCentre(30, 7);
        QTest::mouseClick(heatmap->plot(), Qt::LeftButton, {}, cell);
        QCOMPARE(window->state()->selection(), (Selection{30, 7}));
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(window->state()->page(), Page::Phrases);
        QCOMPARE(stack->count(), 1);

        pressUndo(window.get());
        QCOMPARE(window->state()->colormap(), Colormap::Viridis);
        QCOMPARE(window->state()->page(), Page::Phrases);
        QCOMPARE(window->state()->selection(), (Selection{30, 7}));
    }

    // The title says "*" from the stack's clean state: a session opened or saved is clean; its
    // opening is one step that undoes back to what the window showed before.
    void sessionsAndTheModifiedMark()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        QVERIFY(!window->isWindowModified());
        QVERIFY(window->windowTitle().startsWith(QLatin1String("pescope")));
        QTest::keyClick(window.get(), Qt::Key_T, Qt::ControlModifier);
        QVERIFY(window->isWindowModified());
        FileActions *files = FileActions::of(window.get());
        const QString path = m_dir.filePath(QStringLiteral("lesson.pescope.json"));
        QString error;
        QVERIFY2(files->saveSession(path, &error), qPrintable(error));
        QVERIFY(!window->isWindowModified());
        QVERIFY(window->windowTitle().startsWith(QLatin1String("lesson.pescope.json")));
        const QByteArray lesson = saved(window->state());
        pressUndo(window.get());
        QVERIFY(window->isWindowModified()); // not what the file holds any more
        const QByteArray untransposed = saved(window->state());

        QVERIFY2(files->openSession(path, &error), qPrintable(error));
        QCOMPARE(saved(window->state()), lesson);
        QVERIFY(!window->isWindowModified());
        QCOMPARE(stack->text(stack->index() - 1),
                 QStringLiteral("Open session lesson.pescope.json"));
        pressUndo(window.get());
        QCOMPARE(saved(window->state()), untransposed);
        QVERIFY(window->isWindowModified());
    }

    // Every kind of change has words of its own.
    void everyKindOfChangeHasItsWords()
    {
        auto window = activeWindow();
        QUndoStack *stack = window->undoStack();
        ExplorerState *state = window->state();
        QTest::keyClick(window.get(), Qt::Key_2, Qt::ControlModifier);
        PhraseSettings phrases = state->phraseSettings();
        const int count = int(phrases.phrases.size());
        phrases.phrases.append(QStringLiteral("a new phrase"));
        QVERIFY(state->setPhraseSettings(phrases));
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Add Phrase %1").arg(count + 1));
        phrases.phrases.removeAt(0);
        QVERIFY(state->setPhraseSettings(phrases));
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Remove Phrase 1"));
        QVERIFY(state->setCompare(1, 0));
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Compare Phrase 2 with Phrase 1"));
        QTest::keyClick(window.get(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Set Theme to dark"));
        QTest::keyClick(window.get(), Qt::Key_T, Qt::ControlModifier);
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Turn on Transpose"));
        SchemeSettings schemes = state->schemeSettings();
        schemes.compare.ropeTheta = 250000;
        QVERIFY(state->setSchemeSettings(schemes));
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Set Base θ (B) to 250000"));
        state->resetToDefaults();
        QCOMPARE(stack->text(stack->count() - 1), QStringLiteral("Reset to defaults"));
        // Undo all of it: back to the first state.
        while (stack->canUndo())
            stack->undo();
        QCOMPARE(state->phraseSettings().phrases.size(), count);
        QCOMPARE(state->theme(), Theme::Light);
    }
};

QTEST_MAIN(TestUndo)
#include "tst_undo.moc"
