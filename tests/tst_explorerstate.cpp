// ExplorerState: setters emit only on real change and refuse bad values, JSON round trip, the
// presets give the parameters of the seed figures (DESIGN.md, seeds 000/001/003), every change is
// one undo step that restores the parameters exactly, and a preview is never saved. The plain
// values (ExplorerValues, what `pescope export` and Python edit) follow the same rules.
#include "modelfilewriter.h"
#include "state/explorerstate.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace pe;

class TestExplorerState : public QObject
{
    Q_OBJECT
private slots:
    void settersEmitOnlyOnChange()
    {
        ExplorerState state;
        QSignalSpy spec(&state, &ExplorerState::specChanged);
        QSignalSpy changed(&state, &ExplorerState::changed);
        EncodingSpec s = state.spec();
        QVERIFY(state.setSpec(s));
        QCOMPARE(spec.count(), 0);
        s.dims = 64;
        QVERIFY(state.setSpec(s));
        QCOMPARE(spec.count(), 1);
        QVERIFY(state.setSpec(s));
        QCOMPARE(spec.count(), 1);

        QSignalSpy map(&state, &ExplorerState::colormapChanged);
        state.setColormap(state.colormap());
        QCOMPARE(map.count(), 0);
        state.setColormap(Colormap::Magma);
        state.setColormap(Colormap::Magma);
        QCOMPARE(map.count(), 1);

        QSignalSpy selection(&state, &ExplorerState::selectionChanged);
        state.setSelection({3, 4});
        state.setSelection({3, 4});
        QCOMPARE(selection.count(), 1);
        QVERIFY(changed.count() >= 3);
    }

    void badValuesAreRefusedAndChangeNothing()
    {
        ExplorerState state;
        const EncodingSpec before = state.spec();
        QSignalSpy changed(&state, &ExplorerState::changed);
        EncodingSpec s = before;
        s.dims = 0;
        QString error;
        QVERIFY(!state.setSpec(s, &error));
        QVERIFY2(error.contains(QLatin1String("dims")), qPrintable(error));
        QCOMPARE(state.spec(), before);
        QVERIFY(!state.setWaveDims({0, before.dims}, &error));
        QVERIFY2(error.contains(QLatin1String("Wave dims holds dim")), qPrintable(error));
        QVERIFY(!state.setMarkers({-1}, &error));
        QVERIFY(!state.setShareTolerance(-0.5, &error));
        PhraseSettings p = state.phraseSettings();
        p.phrases = {QStringLiteral("only one")};
        QVERIFY(!state.setPhraseSettings(p, &error));
        QVERIFY2(error.contains(QLatin1String("two phrases")), qPrintable(error));
        p.phrases = {QStringLiteral("a b"), QStringLiteral("?!")};
        QVERIFY(!state.setPhraseSettings(p, &error));
        QVERIFY2(error.contains(QLatin1String("phrase 2")), qPrintable(error));
        QCOMPARE(changed.count(), 0);
    }

    void selectionFollowsTheMatrix()
    {
        ExplorerState state;
        state.setSelection({150, 100});
        EncodingSpec s = state.spec();
        s.positions = 10;
        s.dims = 8;
        QVERIFY(state.setSpec(s));
        QCOMPARE(state.selection(), (Selection{9, 7}));
    }

    void jsonRoundTrip()
    {
        ExplorerState a;
        EncodingSpec s = a.spec();
        s.scheme = LearnedScheme{18446744073709551557ull}; // above 2^53: stored as a string
        s.positions = 77;
        QVERIFY(a.setSpec(s));
        a.setColormap(Colormap::RdBu);
        a.setTransposed(true);
        QVERIFY(a.setWaveDims({1, 2, 3}));
        QVERIFY(a.setCrosses({{5, 1}}));
        a.setTheme(Theme::Dark);
        a.setPage(Page::Phrases);
        ExplorerState b;
        QString error;
        QVERIFY2(b.applyJson(a.toJson(), &error), qPrintable(error));
        QCOMPARE(b.spec(), a.spec());
        QCOMPARE(b.toJson(), a.toJson());
    }

    void badJsonChangesNothing()
    {
        ExplorerState state;
        const QJsonObject before = state.toJson();
        QString error;
        QVERIFY(!state.applyJson(QJsonObject{{QStringLiteral("colormap"), QStringLiteral("jet")}},
                                 &error));
        QVERIFY2(error.contains(QLatin1String("jet")), qPrintable(error));
        QCOMPARE(state.toJson(), before);
    }

    // `pescope export` and Python build no ExplorerState: the plain values must refuse, clamp and
    // read presets and sessions exactly as the window's state does.
    void plainValuesFollowTheStatesRules()
    {
        ExplorerValues values = ExplorerValues::defaults();
        ExplorerState state;
        QCOMPARE(values, state.values());

        QString error;
        EncodingSpec bad = values.spec;
        bad.dims = 0;
        QVERIFY(!values.setSpec(bad, &error));
        QVERIFY2(error.contains(QLatin1String("dims")), qPrintable(error));
        QCOMPARE(values, state.values()); // refused: nothing changed

        // A smaller matrix drops the markers and crosses outside it and clamps the selection.
        ViewOptions view = values.view;
        view.markers = {5, 150};
        view.crosses = {{150, 1}, {2, 3}};
        view.selection = {150, 100};
        QVERIFY2(values.setViewOptions(view, &error), qPrintable(error));
        EncodingSpec small = values.spec;
        small.positions = 10;
        small.dims = 8;
        QVERIFY(values.setSpec(small));
        QCOMPARE(values.view.markers, (QList<qint64>{5}));
        QCOMPARE(values.view.crosses, (QList<CrossMarker>{{2, 3}}));
        QCOMPARE(values.view.selection, (Selection{9, 7}));

        QVERIFY(!values.setCompare(0, 0, &error));
        QVERIFY2(error.contains(QLatin1String("two different phrases")), qPrintable(error));

        // A preset and a session read into plain values equal the state's reading.
        QVERIFY2(applyPreset(values, QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QVERIFY2(applyPreset(state, QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QCOMPARE(values.toJson(), state.toJson());
        QCOMPARE(values.view.markers, (QList<qint64>{22, 60}));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.json"));
        state.setColormap(Colormap::Magma);
        QVERIFY2(saveSession(state, path, &error), qPrintable(error));
        ExplorerValues loaded = ExplorerValues::defaults();
        QVERIFY2(loadSession(path, &loaded, &error), qPrintable(error));
        QCOMPARE(loaded.view.colormap, Colormap::Magma);
        QCOMPARE(loaded.toJson(), state.toJson());
        QVERIFY(!applyPreset(loaded, QStringLiteral("no-such-preset"), &error));
        QVERIFY2(error.contains(QLatin1String("no-such-preset")), qPrintable(error));
        QCOMPARE(loaded.toJson(), state.toJson());
    }

    void geronPreset()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("geron-16-9"), &error), qPrintable(error));
        const EncodingSpec &s = state.spec();
        QVERIFY(s.get<SinusoidalScheme>());
        QCOMPARE(s.get<SinusoidalScheme>()->layout, Layout::Interleaved);
        QCOMPARE(s.positions, 201);
        QCOMPARE(s.dims, 512);
        QCOMPARE(s.get<SinusoidalScheme>()->base, 10000.0);
        QCOMPARE(state.colormap(), Colormap::Gray);
        QVERIFY(state.transposed());
        QCOMPARE(state.heatmapDimLimit(), 150);
        QCOMPARE(state.waveDims(), (QList<qint64>{100, 101}));
        QCOMPARE(state.markers(), (QList<qint64>{22, 60}));
        QCOMPARE(state.crosses(), (QList<CrossMarker>{{35, 100}}));
        QCOMPARE(state.page(), Page::Encoding);
    }

    void kerasPreset()
    {
        ExplorerState state;
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("keras-phrases"), &error), qPrintable(error));
        const PhraseSettings &p = state.phraseSettings();
        // Seed 001's two phrases, as its code concatenates them.
        QCOMPARE(p.phrases,
                 (QStringList{QStringLiteral("to understand machine learning algorithms you need "
                                             "to understand concepts such as gradient of a "
                                             "function Hessians of a matrix and optimization etc"),
                              QStringLiteral("patrick henry said give me liberty or give me death "
                                             "when he addressed the second virginia convention "
                                             "in march")}));
        QCOMPARE(p.maxTokens, 200);
        QCOMPARE(p.sequenceLength, 20);
        QCOMPARE(p.dims, 50);
        QCOMPARE(p.title(0), QStringLiteral("Tech Phrase"));
        QCOMPARE(p.title(1), QStringLiteral("Wise Phrase"));
        QCOMPARE(state.colormap(), Colormap::Viridis);
        QCOMPARE(state.page(), Page::Phrases);
    }

    // Undo restores every parameter as it was; where the user looks (page, selected cell) stays,
    // clamped into the restored matrix.
    void undoRestoresParametersAndKeepsNavigation()
    {
        ExplorerState state;
        QUndoStack stack;
        state.setUndoStack(&stack);
        const QJsonObject first = state.toJson();
        EncodingSpec s = state.spec();
        s.dims = 64;
        s.positions = 100;
        QVERIFY(state.setSpec(s));
        QCOMPARE(stack.count(), 1);
        QCOMPARE(stack.text(0), QStringLiteral("Change Positions and Dims"));
        state.setSelection({90, 60});
        state.setPage(Page::Phrases);
        QCOMPARE(stack.count(), 1); // no steps of their own
        QVERIFY(state.setWaveDims({1, 2}));
        QCOMPARE(stack.text(1), QStringLiteral("Set Wave dims to 1,2"));

        stack.undo();
        QCOMPARE(state.waveDims(), (QList<qint64>{20, 21}));
        stack.undo();
        QCOMPARE(state.spec().dims, 128);
        QCOMPARE(state.page(), Page::Phrases);
        QCOMPARE(state.selection(), (Selection{90, 60}));
        QJsonObject restored = state.toJson();
        restored.insert(QStringLiteral("page"), first.value(QStringLiteral("page")));
        restored.insert(QStringLiteral("selection"), first.value(QStringLiteral("selection")));
        QCOMPARE(restored, first);
        stack.redo();
        QCOMPARE(state.spec().dims, 64);
        QCOMPARE(state.selection(), (Selection{90, 60}));

        // A new change after an undo drops the redo branch, as QUndoStack does.
        state.setColormap(Colormap::Magma);
        QVERIFY(!stack.canRedo());
    }

    // Changes made during a preview are shown but saved nowhere; the first change outside it
    // starts from the saved values.
    void previewIsNeitherSavedNorAStep()
    {
        ExplorerState state;
        QUndoStack stack;
        state.setUndoStack(&stack);
        const QJsonObject saved = state.toJson();
        EncodingSpec s = state.spec();
        std::get<SinusoidalScheme>(s.scheme).base = 40000;
        QVERIFY(state.preview([&] { return state.setSpec(s); }));
        QVERIFY(state.isPreviewing());
        QCOMPARE(state.spec().get<SinusoidalScheme>()->base, 40000.0); // shown
        QCOMPARE(state.toJson(), saved);                               // not saved
        QCOMPARE(stack.count(), 0);
        state.setColormap(Colormap::Magma);
        QVERIFY(!state.isPreviewing());
        QCOMPARE(state.spec().get<SinusoidalScheme>()->base, 10000.0);
        QCOMPARE(stack.count(), 1);
        QCOMPARE(stack.text(0), QStringLiteral("Set Colormap to magma"));
        stack.undo();
        QCOMPARE(state.toJson(), saved);
    }

    // A preset keeps the phrases typed by hand unless it brings its own, and is one step.
    void presetsKeepTypedPhrases()
    {
        ExplorerState state;
        QUndoStack stack;
        state.setUndoStack(&stack);
        PhraseSettings phrases = state.phraseSettings();
        phrases.phrases[0] = QStringLiteral("my own lesson phrase");
        QVERIFY(state.setPhraseSettings(phrases));
        const QJsonObject typed = state.toJson();
        QString error;
        QVERIFY2(applyPreset(state, QStringLiteral("rope-decay"), &error), qPrintable(error));
        QCOMPARE(state.phraseSettings().phrases, phrases.phrases);
        QCOMPARE(stack.count(), 2);
        QCOMPARE(stack.text(1), QStringLiteral("Apply preset rope-decay"));
        QVERIFY2(applyPreset(state, QStringLiteral("keras-phrases"), &error), qPrintable(error));
        QCOMPARE(state.phraseSettings().title(0), QStringLiteral("Tech Phrase"));
        stack.undo();
        stack.undo();
        // Where the user looks (the page, the clicked token) stays where the Keras preset put it.
        QJsonObject back = state.toJson();
        back.insert(QStringLiteral("page"), typed.value(QStringLiteral("page")));
        QJsonObject phrasesBack = back.value(QStringLiteral("phrases")).toObject();
        phrasesBack.insert(
            QStringLiteral("selection"),
            typed.value(QStringLiteral("phrases")).toObject().value(QStringLiteral("selection")));
        back.insert(QStringLiteral("phrases"), phrasesBack);
        QCOMPARE(QJsonDocument(back).toJson(), QJsonDocument(typed).toJson());
    }

    void unknownPreset()
    {
        ExplorerState state;
        QString error;
        QVERIFY(!applyPreset(state, QStringLiteral("nope"), &error));
        QVERIFY2(error.contains(QLatin1String("geron-16-9")), qPrintable(error));
    }

    // A session naming a model's table reads it again; a missing file is refused, state kept.
    void sessionRestoresModelTable()
    {
        QTemporaryDir dir;
        const QString table = dir.filePath(u"wpe.npy"_qs);
        std::vector<float> values;
        for (int i = 0; i < 10 * 3; ++i)
            values.push_back(float(i) / 8.0f);
        QVERIFY(test::writeBytes(table, test::npyBytes("<f4", {10, 3}, test::f32Bytes(values))));
        const QJsonObject spec{
            {u"scheme"_qs, u"table"_qs}, {u"source"_qs, table}, {u"positions"_qs, 8}};
        ExplorerState state;
        QString error;
        QVERIFY2(state.applyJson(QJsonObject{{u"spec"_qs, spec}}, &error), qPrintable(error));
        const TableScheme *t = state.spec().get<TableScheme>();
        QVERIFY(t && t->table);
        QCOMPARE(state.spec().dims, qint64(3)); // the table's columns
        QCOMPARE(t->table->row(7)[2], 23.0f / 8.0f);

        const EncodingSpec before = state.spec();
        QJsonObject missing = spec;
        missing[u"source"_qs] = dir.filePath(u"gone.npy"_qs);
        QVERIFY(!state.applyJson(QJsonObject{{u"spec"_qs, missing}}, &error));
        QVERIFY2(error.contains(u"gone.npy"_qs), qPrintable(error));
        QVERIFY(state.spec() == before);
    }
};

QTEST_GUILESS_MAIN(TestExplorerState)
#include "tst_explorerstate.moc"
