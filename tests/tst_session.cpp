// Sessions and the window's File menu: save / open round trips, bad session files that leave
// the window's state alone, Recent sessions, Export figure (Ctrl+E) equal to `pescope export`,
// Copy figure, Export data, and `pescope --session FILE`.
#include "modelfilewriter.h"
#include "testutil.h"

#include "compute/computescheduler.h"
#include "dialogs/exportdialog.h"
#include "state/presets.h"
#include "state/sessionfile.h"
#include "views/exportactions.h"
#include "views/fileactions.h"
#include "views/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QMenu>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace pe;
using namespace pe::test;

class TestSession : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    QString path(const QString &name) const { return m_dir.filePath(name); }
    FileActions *files() const { return FileActions::of(m_window.get()); }
    ExportActions *exports() const { return ExportActions::of(m_window.get()); }
    QByteArray stateBytes() const
    {
        return QJsonDocument(m_window->state()->toJson()).toJson(QJsonDocument::Compact);
    }
    void write(const QString &name, const QByteArray &bytes)
    {
        QFile file(path(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Recent sessions live in QSettings: keep this suite's apart and empty.
        QCoreApplication::setOrganizationName(QStringLiteral("pescope-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_session"));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        clearRecentSessions();
        MainWindowOptions options;
        options.persistent = false;
        m_window = std::make_unique<MainWindow>(options);
        m_window->resize(1300, 850);
        m_window->show();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(files());
        QString error;
        QVERIFY2(m_window->applyPreset(QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
    }

    void cleanupTestCase() { m_window.reset(); }

    // File > Open model: a GPT-2-like folder shows its learned table; a missing model leaves the
    // window's state alone and says why.
    void openModelShowsItsTable()
    {
        const QString folder = path(u"tiny-gpt2"_qs);
        QVERIFY(QDir().mkpath(folder));
        write(u"tiny-gpt2/config.json"_qs, R"({"model_type": "gpt2", "n_embd": 4, "n_head": 1,
              "n_layer": 2, "n_positions": 12})");
        std::vector<float> values;
        for (int i = 0; i < 12 * 4; ++i)
            values.push_back(float(i % 7) / 7.0f);
        write(u"tiny-gpt2/model.safetensors"_qs,
              safetensorsBytes({{u"wpe.weight"_qs, u"F32"_qs, {12, 4}, f32Bytes(values)}}));
        const QByteArray before = stateBytes();
        QSignalSpy opened(files(), &FileActions::modelOpened);
        files()->openModel(path(u"absent-model"_qs));
        QVERIFY(opened.wait(20000));
        QVERIFY2(opened.at(0).at(0).toString().contains(u"absent-model"_qs),
                 qPrintable(opened.at(0).at(0).toString()));
        QCOMPARE(stateBytes(), before);

        files()->openModel(folder);
        QVERIFY(opened.wait(20000));
        QCOMPARE(opened.at(1).at(0).toString(), QString());
        const EncodingSpec spec = m_window->state()->spec();
        const TableScheme *table = spec.get<TableScheme>();
        QVERIFY(table && table->table);
        QCOMPARE(table->table->tensor, u"wpe.weight"_qs);
        QCOMPARE(spec.positions, qint64(12));
        QCOMPARE(spec.dims, qint64(4));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);

        // A session naming the model reads its table again, on the scheduler's worker (issue
        // 30): the window's state is the saved one, the table's values the file's.
        QString error;
        const QString session = path(u"with-model.json"_qs);
        QVERIFY2(files()->saveSession(session, &error), qPrintable(error));
        const QByteArray saved = stateBytes();
        QVERIFY2(m_window->applyPreset(QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QSignalSpy reads(m_window->scheduler(), &ComputeScheduler::modelReadReady);
        QVERIFY2(files()->openSession(session, &error), qPrintable(error));
        QCOMPARE(reads.size(), 1);
        const auto read = reads.at(0).at(1).value<std::shared_ptr<const ModelRead>>();
        QCOMPARE(read->kind, ModelReadRequest::Kind::Spec);
        QCOMPARE(stateBytes(), saved);
        const TableScheme *reread = m_window->state()->spec().get<TableScheme>();
        QVERIFY(reread && reread->table);
        QCOMPARE(reread->table->values, values);
        // The model gone: the session is refused, naming the file, and nothing changes.
        QVERIFY(QDir(folder).removeRecursively());
        QVERIFY2(m_window->applyPreset(QStringLiteral("geron-16-9"), &error), qPrintable(error));
        const QByteArray before2 = stateBytes();
        QVERIFY(!files()->openSession(session, &error));
        QVERIFY2(error.contains(u"with-model.json"_qs) && error.contains(u"tiny-gpt2"_qs),
                 qPrintable(error));
        QCOMPARE(stateBytes(), before2);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
        // Back to the preset the other tests expect.
        QVERIFY2(m_window->applyPreset(QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
    }

    void fileMenuHasTheActions()
    {
        for (const char *name : {"openSessionAction", "saveSessionAction", "saveSessionAsAction",
                                 "exportFigureAction", "copyFigureAction", "exportDataAction"})
            QVERIFY2(m_window->findChild<QAction *>(QLatin1String(name)), name);
        QCOMPARE(exports()->exportFigureAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
        QVERIFY(files()->recentMenu());
    }

    void saveAndOpenRoundTrip()
    {
        ExplorerState *state = m_window->state();
        state->setColormap(Colormap::Magma);
        state->setTransposed(false);
        QString error;
        QVERIFY2(state->setMarkers({5, 17, 60}, &error), qPrintable(error));
        PhraseSettings phrases = state->phraseSettings();
        phrases.phrases = QStringList{QStringLiteral("the cat sat"), QStringLiteral("on the mat")};
        phrases.titles = QStringList{QStringLiteral("A"), QStringLiteral("B")};
        phrases.seed = 12345678901234ull;
        QVERIFY2(state->setPhraseSettings(phrases, &error), qPrintable(error));
        // The layer-attention view's ablation: a YaRN rule with its own beta_fast.
        LayerAblation ablation;
        ablation.kind = AblationKind::Rule;
        ablation.rule.ropeType = RopeType::Yarn;
        ablation.rule.factor = 4.0;
        ablation.rule.originalMaxPositionEmbeddings = 64;
        ablation.rule.betaFast = 16.0;
        QVERIFY2(state->setLayerAblation(ablation, &error), qPrintable(error));
        const QByteArray saved = stateBytes();

        const QString file = path(QStringLiteral("lesson.json"));
        QVERIFY2(files()->saveSession(file, &error), qPrintable(error));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(root.value(QStringLiteral("format_version")).toInt(), sessionFormatVersion);
        QVERIFY(root.value(QStringLiteral("state")).isObject());
        // Written as the command line's --rope-scaling takes it.
        QCOMPARE(root.value(QStringLiteral("state"))
                     .toObject()
                     .value(QStringLiteral("ablation"))
                     .toObject()
                     .value(QStringLiteral("rope_scaling"))
                     .toObject(),
                 QJsonDocument::fromJson(R"({"rope_type": "yarn", "factor": 4,
                     "original_max_position_embeddings": 64, "beta_fast": 16})")
                     .object());

        state->resetToDefaults();
        QVERIFY(stateBytes() != saved);
        QVERIFY(state->layerAblation() == LayerAblation{});
        QVERIFY2(files()->openSession(file, &error), qPrintable(error));
        QCOMPARE(stateBytes(), saved);
        QVERIFY(state->layerAblation() == ablation);
        QCOMPARE(files()->sessionPath(), QFileInfo(file).absoluteFilePath());
        QCOMPARE(recentSessions().value(0), QFileInfo(file).absoluteFilePath());
        // The Recent sessions menu lists it.
        emit files()->recentMenu()->aboutToShow();
        bool listed = false;
        for (QAction *action : files()->recentMenu()->actions())
            listed = listed || action->data().toString() == QFileInfo(file).absoluteFilePath();
        QVERIFY(listed);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
    }

    void badSessionKeepsState_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        ExplorerState fresh;
        const QByteArray good = sessionBytes(fresh);
        QTest::addRow("malformed") << QByteArray("{\"format_version\": 1,, \"state\": {}}")
                                   << QStringLiteral("is not valid JSON");
        QTest::addRow("truncated")
            << good.left(good.size() * 2 / 3) << QStringLiteral("looks truncated");
        // Issue 37: a raw U+FEFF in a phrase (3 bytes, passed to Qt's parser as a 6-byte escape)
        // does not move the error's byte offset: the same as with 3 ASCII bytes in its place.
        const auto malformedAfter = [](const QByteArray &fill) -> QByteArray {
            return "{\"format_version\": 2, \"state\": {\"phrases\": [\"" + fill + fill +
                   "\"],, \"colormap\": \"gray\"}}";
        };
        QJsonParseError asciiError;
        QJsonDocument::fromJson(malformedAfter("abc"), &asciiError);
        QTest::addRow("malformed after U+FEFF")
            << malformedAfter("\xEF\xBB\xBF")
            << QStringLiteral("is not valid JSON: %1 at byte %2")
                   .arg(asciiError.errorString())
                   .arg(asciiError.offset);
        QTest::addRow("empty") << QByteArray("  \n") << QStringLiteral("is empty");
        QTest::addRow("newer format")
            << QByteArray("{\"format_version\": 3, \"state\": {}}")
            << QStringLiteral("saved by a newer pescope (session format 3)");
        QTest::addRow("no format version")
            << QByteArray("{\"state\": {}}") << QStringLiteral("has no \"format_version\"");
        // Issue 35: fuzz_session's finding (tests/fuzz/findings/session): a version no integer
        // type holds reached qint64(v), undefined behaviour, to say "saved by a newer pescope".
        // Every such number gets the range, under the sanitizers too.
        const QString versionRange =
            QStringLiteral("\"format_version\" must be a whole number from 1 to 9007199254740992");
        QTest::addRow("format version 3.3e56 (the fuzzer's)")
            << QByteArray("{\"format_version\": 333333333333333333333333333333333333333333333333"
                          "333333331, \"state\": {}}")
            << versionRange + QStringLiteral(" (got 3.33333333333e+56)");
        QTest::addRow("format version -3.3e56")
            << QByteArray("{\"format_version\": -3.3e56, \"state\": {}}")
            << versionRange + QStringLiteral(" (got -3.3e+56)");
        QTest::addRow("format version 2^63")
            << QByteArray("{\"format_version\": 9223372036854775808, \"state\": {}}")
            << versionRange + QStringLiteral(" (got 9.22337203685e+18)");
        QTest::addRow("format version 1e308")
            << QByteArray("{\"format_version\": 1e308, \"state\": {}}")
            << versionRange + QStringLiteral(" (got 1e+308)");
        QTest::addRow("format version -1") << QByteArray("{\"format_version\": -1, \"state\": {}}")
                                           << versionRange + QStringLiteral(" (got -1)");
        QTest::addRow("format version 1.5")
            << QByteArray("{\"format_version\": 1.5, \"state\": {}}")
            << versionRange + QStringLiteral(" (got 1.5)");
        QTest::addRow("format version as text")
            << QByteArray("{\"format_version\": \"2\", \"state\": {}}")
            << versionRange + QStringLiteral(" (got \"2\")");
        // JSON has no NaN or infinity, and Qt refuses a number beyond a double's range.
        QTest::addRow("format version 1e400")
            << QByteArray("{\"format_version\": 1e400, \"state\": {}}")
            << QStringLiteral("is not valid JSON");
        QTest::addRow("format version NaN")
            << QByteArray("{\"format_version\": NaN, \"state\": {}}")
            << QStringLiteral("is not valid JSON");
        QTest::addRow("format version 2^53 (a future one)")
            << QByteArray("{\"format_version\": 9007199254740992, \"state\": {}}")
            << QStringLiteral("saved by a newer pescope (session format 9007199254740992)");
        QTest::addRow("positions out of range")
            << QByteArray("{\"format_version\": 1, \"state\": {\"spec\": {\"positions\": 0, "
                          "\"dims\": 8}}}")
            << QStringLiteral("positions");
        QTest::addRow("base out of range")
            << QByteArray("{\"format_version\": 1, \"state\": {\"spec\": {\"positions\": 10, "
                          "\"dims\": 8, \"base\": 0.5}}}")
            << QStringLiteral("base");
        QTest::addRow("unknown colormap")
            << QByteArray("{\"format_version\": 1, \"state\": {\"colormap\": \"jet\"}}")
            << QStringLiteral("\"colormap\" must be viridis, viridis_r, plasma, plasma_r, inferno, "
                              "inferno_r, magma, magma_r, cividis, cividis_r, gray, gray_r, "
                              "Greys, Greys_r, RdBu, RdBu_r, coolwarm, coolwarm_r, twilight or "
                              "twilight_r (got \"jet\")");
        // Issue 32: Qt's parser keeps the last of repeated keys, so appending "state": {} to a
        // saved session loaded the defaults with no word. Repeated keys are refused, named.
        QByteArray appended = good.trimmed();
        appended.chop(1);
        appended += ", \"state\": {}}";
        QTest::addRow("state twice, appended")
            << appended << QStringLiteral("duplicate key \"state\" in a JSON object (byte");
        QTest::addRow("a key twice inside the state")
            << QByteArray("{\"format_version\": 2, \"state\": {\"colormap\": \"gray\", "
                          "\"colormap\": \"magma\"}}")
            << QStringLiteral("duplicate key \"colormap\"");
        QTest::addRow("format_version twice, one escaped")
            << QByteArray("{\"format_version\": 2, \"format\\u005fversion\": 1, \"state\": {}}")
            << QStringLiteral("duplicate key \"format_version\"");
        // Issue 45: format 1's migration dropped keys it did not know, so a typo rendered the
        // defaults (200 x 64) with exit 0 where format 2 refuses it; "spec": [] became {} and a
        // selection position of 1e308 became 0. Each is refused by name now.
        QTest::addRow("format 1 typo in spec")
            << QByteArray("{\"format_version\": 1, \"state\": {\"spec\": {\"positons\": 300, "
                          "\"dims\": 8}}}")
            << QStringLiteral("spec: \"positons\" is not a key of a spec in session format 1 "
                              "(scheme, positions, dims, base, layout, seed, rope)");
        QTest::addRow("format 1 typo in rope")
            << QByteArray("{\"format_version\": 1, \"state\": {\"spec\": {\"scheme\": \"rope\", "
                          "\"rope\": {\"scalling\": \"yarn\"}}}}")
            << QStringLiteral("spec.rope: \"scalling\" is not a key of a RoPE object");
        QTest::addRow("format 1 typo in schemes")
            << QByteArray("{\"format_version\": 1, \"state\": {\"schemes\": {\"alibiHaeds\": 4}}}")
            << QStringLiteral("schemes: \"alibiHaeds\" is not a key of \"schemes\"");
        QTest::addRow("format 1 spec a list")
            << QByteArray("{\"format_version\": 1, \"state\": {\"spec\": []}}")
            << QStringLiteral("\"spec\" must be an object (got a list)");
        QTest::addRow("format 2 spec a list")
            << QByteArray("{\"format_version\": 2, \"state\": {\"spec\": []}}")
            << QStringLiteral("\"spec\" must be an object");
        QTest::addRow("format 1 selection at 1e308")
            << QByteArray("{\"format_version\": 1, \"state\": {\"selection\": {\"position\": "
                          "1e308, \"dim\": 3}}}")
            << QStringLiteral("selection: \"position\" must be a whole number from 0 to "
                              "9007199254740992 (got 1e+308)");
        QTest::addRow("format 1 cross without a dim")
            << QByteArray("{\"format_version\": 1, \"state\": {\"crosses\": [{\"position\": 2}]}}")
            << QStringLiteral("crosses[0]: \"dim\" must be a whole number from 0 to "
                              "9007199254740992 (got nothing)");
        QTest::addRow("format 2 selection at 1e308")
            << QByteArray("{\"format_version\": 2, \"state\": {\"selection\": \"1e308@3\"}}")
            << QStringLiteral("\"selection\" must be a cell written P@D");
        // The layer-attention view's ablation: each hostile value named by its field.
        QTest::addRow("ablation kind unknown")
            << QByteArray(R"({"format_version": 2, "state": {"ablation": {"kind": "teleport"}}})")
            << QStringLiteral("ablation: \"kind\" must be none, removed, shift, scale, theta or "
                              "rope-scaling (got \"teleport\")");
        QTest::addRow("ablation shift negative")
            << QByteArray(
                   R"({"format_version": 2, "state": {"ablation": {"kind": "shift", "shift": -5}}})")
            << QStringLiteral("ablation: \"shift\" must be between 0 and 2147483648 (got -5)");
        QTest::addRow("ablation scale of another kind")
            << QByteArray(
                   R"({"format_version": 2, "state": {"ablation": {"kind": "shift", "scale": 2}}})")
            << QStringLiteral("ablation: \"scale\" does not apply with kind shift");
        QTest::addRow("ablation rope_theta 1e400")
            << QByteArray(R"({"format_version": 2, "state": {"ablation": {"kind": "theta", )"
                          R"("rope_theta": "1e400"}}})")
            << QStringLiteral("ablation: \"rope_theta\" must be a finite number (got \"1e400\")");
        QTest::addRow("ablation rule longrope")
            << QByteArray(R"({"format_version": 2, "state": {"ablation": {"kind": "rope-scaling", )"
                          R"("rope_scaling": {"rope_type": "longrope", "factor": 2}}}})")
            << QStringLiteral("ablation: rope_scaling: \"rope_type\" must be linear, dynamic, "
                              "yarn or llama3 (got \"longrope\")");
        QTest::addRow("ablation rule with rope_theta")
            << QByteArray(R"({"format_version": 2, "state": {"ablation": {"kind": "rope-scaling", )"
                          R"("rope_scaling": {"rope_type": "yarn", "factor": 4, )"
                          R"("rope_theta": 5}}}})")
            << QStringLiteral("ablation: rope_scaling: \"rope_theta\" is not a known setting "
                              "here");
        QTest::addRow("ablation llama3 without factor")
            << QByteArray(R"({"format_version": 2, "state": {"ablation": {"kind": "rope-scaling", )"
                          R"("rope_scaling": {"rope_type": "llama3", "low_freq_factor": 1, )"
                          R"("high_freq_factor": 4}}}})")
            << QStringLiteral("ablation: rope_scaling: \"factor\" is required by rope_type "
                              "llama3");
        QTest::addRow("marker beyond the matrix")
            << QByteArray("{\"format_version\": 1, \"state\": {\"spec\": {\"positions\": 10, "
                          "\"dims\": 8}, \"markers\": [50]}}")
            << QStringLiteral("\"markers\" holds position 50, outside the matrix");
    }

    void badSessionKeepsState()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        write(QStringLiteral("bad.json"), content);
        const QByteArray before = stateBytes();
        const QString sessionBefore = files()->sessionPath();
        QString error;
        QVERIFY(!files()->openSession(path(QStringLiteral("bad.json")), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(error.startsWith(path(QStringLiteral("bad.json"))), qPrintable(error));
        QVERIFY(!error.contains(QLatin1Char('\n')));
        QCOMPARE(stateBytes(), before);
        QCOMPARE(files()->sessionPath(), sessionBefore);
    }

    void missingSession()
    {
        const QByteArray before = stateBytes();
        QString error;
        QVERIFY(!files()->openSession(path(QStringLiteral("absent.json")), &error));
        QVERIFY2(error.endsWith(QLatin1String("does not exist")), qPrintable(error));
        QVERIFY(!files()->openSession(m_dir.path(), &error));
        QVERIFY2(error.contains(QLatin1String("is a folder")), qPrintable(error));
        QCOMPARE(stateBytes(), before);
    }

    void saveSessionToMissingFolder()
    {
        QString error;
        const QString target = path(QStringLiteral("nope/s.json"));
        QVERIFY(!files()->saveSession(target, &error));
        QVERIFY2(error.contains(QLatin1String("does not exist")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(target));
    }

    // Ctrl+E opens the dialog on the window's view at its size; what it exports equals
    // `pescope export --session` of the same state.
    void exportDialogMatchesCommandLine()
    {
        QString error;
        QVERIFY2(m_window->applyPreset(QStringLiteral("geron-16-9"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key_E, Qt::ControlModifier);
        ExportDialog *dialog = m_window->findChild<ExportDialog *>();
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QCOMPARE(figureViewsName(dialog->options().views), QStringLiteral("waves+heatmap"));
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->previewImage().isNull(), 20000);

        FigureOptions options = dialog->options();
        options.width = 1000;
        options.height = 800;
        options.dpi = 96;
        options.title = QStringLiteral("Fig 16-9");
        dialog->setOptions(options);
        const QString file = path(QStringLiteral("dialog.png"));
        dialog->setPath(file);
        QVERIFY2(dialog->exportFigure(&error), qPrintable(error));
        QFile exported(file);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QByteArray fromWindow = exported.readAll();
        QImage image;
        QVERIFY(image.loadFromData(fromWindow, "PNG"));
        QCOMPARE(image.size(), QSize(1000, 800));

        const QString session = path(QStringLiteral("dialog.json"));
        QVERIFY2(saveSession(*m_window->state(), session, &error), qPrintable(error));
        const QString cliFile = path(QStringLiteral("cli.png"));
        const RunResult r = runPescope(
            {QStringLiteral("export"), QStringLiteral("--session"), session,
             QStringLiteral("--view"), QStringLiteral("waves+heatmap"), QStringLiteral("--width"),
             QStringLiteral("1000"), QStringLiteral("--height"), QStringLiteral("800"),
             QStringLiteral("--title"), QStringLiteral("Fig 16-9"), QStringLiteral("--out"),
             cliFile});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QImage cli(cliFile);
        QCOMPARE(cli.size(), image.size());
        // The same builders and the same state: the same picture, pixel for pixel (the window
        // lays out at the screen's DPI, 96 under Xvfb as on the offscreen platform).
        qint64 differing = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                differing += image.pixel(x, y) != cli.pixel(x, y);
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 pixels differ").arg(differing)));
        dialog->close();
    }

    void exportDialogRefusesBadSize()
    {
        ExportDialog *dialog = exports()->exportDialog();
        FigureOptions options = dialog->options();
        options.width = 5;
        dialog->setOptions(options);
        const QString file = path(QStringLiteral("tiny.png"));
        dialog->setPath(file);
        QString error;
        QVERIFY(!dialog->exportFigure(&error));
        QVERIFY2(error.contains(QLatin1String("width must be between")), qPrintable(error));
        QCOMPARE(dialog->message(), error);
        QVERIFY(!QFileInfo::exists(file));
        // (.gif, .mp4 and .webm choose an animation: tst_playbar writes those.)
        dialog->setPath(path(QStringLiteral("fig.jpeg")));
        options.width = 800;
        dialog->setOptions(options);
        QVERIFY(!dialog->exportFigure(&error));
        QVERIFY2(error.contains(QLatin1String(".png, .svg or .pdf")), qPrintable(error));
    }

    void copyFigure()
    {
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
        QString error;
        QVERIFY2(exports()->copyFigure(&error), qPrintable(error));
        const QImage copied = QApplication::clipboard()->image();
        QCOMPARE(copied.size(), m_window->viewPages().current().figureSize());
    }

    void exportData()
    {
        QTRY_VERIFY_WITH_TIMEOUT(m_window->isSettled(), 60000);
        m_window->state()->setPage(Page::Encoding);
        const QString file = path(QStringLiteral("heatmap.npy"));
        QString error;
        QVERIFY2(exports()->exportCurrentData(file, &error), qPrintable(error));
        QFile npy(file);
        QVERIFY(npy.open(QIODevice::ReadOnly));
        const QByteArray bytes = npy.readAll();
        // The preset shows the first 150 dims of 201 positions, transposed.
        QVERIFY2(bytes.contains("'shape': (150, 201)"), bytes.left(120).constData());
        QCOMPARE(bytes.size(), 128 + 150 * 201 * 4);
        QVERIFY(!exports()->exportCurrentData(path(QStringLiteral("heatmap.txt")), &error));
        QVERIFY2(error.contains(QLatin1String(".npy or .csv")), qPrintable(error));
    }

    // `pescope --session FILE` opens the window on it; a bad file stops with one line.
    void commandLineSession()
    {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        write(QStringLiteral("newer.json"), "{\"format_version\": 7, \"state\": {}}");
        const QString shot = path(QStringLiteral("shot.png"));
        RunResult r = runPescope({QStringLiteral("--session"), path(QStringLiteral("newer.json")),
                                  QStringLiteral("--screenshot"), shot});
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromLocal8Bit(r.err).trimmed();
        QVERIFY2(err.contains(QLatin1String("--session:")) && err.contains(QLatin1String("newer")),
                 qPrintable(err));
        QVERIFY(!QFileInfo::exists(shot));

        ExplorerState state;
        QString error;
        QVERIFY(applyPreset(state, QStringLiteral("keras-phrases"), &error));
        QVERIFY(saveSession(state, path(QStringLiteral("phrases.json")), &error));
        r = runPescope({QStringLiteral("--session"), path(QStringLiteral("phrases.json")),
                        QStringLiteral("--screenshot"), shot, QStringLiteral("--size"),
                        QStringLiteral("1000x700")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QImage(shot).size(), QSize(1000, 700));
        qunsetenv("QT_QPA_PLATFORM");
    }

    // The window's arguments are decoded as the commands' are (issue 37): a relative --session
    // path starting with U+FEFF names that file (QString::fromLocal8Bit dropped the U+FEFF, and
    // the window then looked for "newest.json").
    void commandLineSessionKeepsByteOrderMark()
    {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        const QString name = QStringLiteral("\uFEFFnewest.json");
        write(name, "{\"format_version\": 9, \"state\": {}}");
        QProcess process;
        process.setWorkingDirectory(m_dir.path());
        process.start(QStringLiteral(PE_EXECUTABLE),
                      {QStringLiteral("--session"), name, QStringLiteral("--screenshot"),
                       path(QStringLiteral("bomshot.png"))});
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError()).trimmed();
        QCOMPARE(process.exitCode(), 2);
        QVERIFY2(err.contains(QLatin1String("saved by a newer pescope (session format 9)")),
                 qPrintable(err));
        qunsetenv("QT_QPA_PLATFORM");
    }

    // A phrase starting with U+FEFF comes back from a session as it was (Qt's JSON parser drops
    // a U+FEFF at a string's start; issue 37).
    void byteOrderMarkInPhrases()
    {
        ExplorerState state;
        PhraseSettings phrases = state.phraseSettings();
        phrases.phrases = {QStringLiteral("\uFEFFthe cat"), QStringLiteral("a\uFEFFdog")};
        QString error;
        QVERIFY2(state.setPhraseSettings(phrases, &error), qPrintable(error));
        const QString file = path(QStringLiteral("bom.json"));
        QVERIFY2(saveSession(state, file, &error), qPrintable(error));
        ExplorerState loaded;
        QVERIFY2(loadSession(file, &loaded, &error), qPrintable(error));
        QCOMPARE(loaded.phraseSettings().phrases, phrases.phrases);
    }
};

QTEST_MAIN(TestSession)
#include "tst_session.moc"
