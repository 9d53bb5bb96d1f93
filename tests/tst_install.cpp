// `cmake --install` into a temporary prefix (cmake/Install.cmake): every file a desktop expects
// is there, the desktop entry and the AppStream metainfo pass their validators (when installed),
// the MIME type compiles, the man page covers every subcommand and every option the live --help
// output lists, the bash completion completes subcommands, options and presets, and the Python
// module imports from the install tree.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QImageReader>
#include <QRegularExpression>
#include <QTemporaryDir>

using namespace pe;

namespace {

test::RunResult runTool(const QString &program, const QStringList &args,
                        const QString &workingDirectory = {}, const QString &dataDir = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    if (!dataDir.isEmpty()) // where XDG tools look for the installed share/ folder
        env.insert(QStringLiteral("XDG_DATA_DIRS"), dataDir + QStringLiteral(":/usr/share"));
    process.setProcessEnvironment(env);
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start(program, args);
    if (!process.waitForFinished(300000) || process.exitStatus() != QProcess::NormalExit)
        return {-1, {}, process.readAllStandardError()};
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The long options of one `--help` text, read here independently of the man page generator.
QStringList helpOptions(const QByteArray &help)
{
    QStringList options;
    bool inOptions = false;
    static const QRegularExpression entry(QStringLiteral("^  (-\\S.*?)(?:\\s{2,}|$)"));
    static const QRegularExpression flag(QStringLiteral("--[A-Za-z0-9][A-Za-z0-9.-]*"));
    for (const QByteArray &raw : help.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (line == QLatin1String("Options:") || line == QLatin1String("Arguments:")) {
            inOptions = line == QLatin1String("Options:");
            continue;
        }
        const auto m = entry.match(line);
        if (!inOptions || !m.hasMatch() || line.startsWith(QLatin1String("   ")))
            continue;
        for (auto it = flag.globalMatch(m.captured(1)); it.hasNext();)
            options.append(it.next().captured());
    }
    return options;
}

} // namespace

class TestInstall : public QObject
{
    Q_OBJECT

    QTemporaryDir m_prefix;
    QString m_share;

    QString installed(const QString &relative) const { return m_prefix.filePath(relative); }

    // Runs the installed bash completion for a command line whose last word is being completed.
    QStringList complete(const QStringList &words) const
    {
        QStringList quoted;
        for (const QString &w : words)
            quoted.append(QLatin1Char('\'') + w + QLatin1Char('\''));
        const QString script =
            QStringLiteral("source '%1'; COMP_WORDS=(%2); COMP_CWORD=%3; _pescope; "
                           "printf '%s\\n' \"${COMPREPLY[@]}\"")
                .arg(installed(QStringLiteral("share/bash-completion/completions/pescope")),
                     quoted.join(QLatin1Char(' ')))
                .arg(words.size() - 1);
        const test::RunResult r =
            runTool(QStringLiteral("bash"), {QStringLiteral("-c"), script}, m_prefix.path());
        return QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_prefix.isValid());
        const test::RunResult r =
            runTool(QStringLiteral(PE_CMAKE_COMMAND),
                    {QStringLiteral("--install"), QStringLiteral(PE_BUILD_DIR),
                     QStringLiteral("--prefix"), m_prefix.path()});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_share = installed(QStringLiteral("share"));
    }

    void everyFileIsInstalled_data()
    {
        QTest::addColumn<QString>("path");
        const QString id = QStringLiteral(PE_APP_ID);
        for (const QString &path : {QStringLiteral("bin/pescope"),
                                    QStringLiteral("lib/pescope/libpe_media.so"), // animations
                                    QStringLiteral("share/applications/%1.desktop").arg(id),
                                    QStringLiteral("share/metainfo/%1.metainfo.xml").arg(id),
                                    QStringLiteral("share/mime/packages/pescope.xml"),
                                    QStringLiteral("share/icons/hicolor/scalable/apps/pescope.svg"),
                                    QStringLiteral("share/man/man1/pescope.1"),
                                    QStringLiteral("share/bash-completion/completions/pescope")})
            QTest::addRow("%s", qPrintable(path)) << path;
    }

    void everyFileIsInstalled()
    {
        QFETCH(QString, path);
        const QFileInfo info(installed(path));
        QVERIFY2(info.isFile() && info.size() > 0, qPrintable(path + QStringLiteral(" missing")));
        if (path.startsWith(QLatin1String("bin/")))
            QVERIFY(info.isExecutable());
    }

    void iconsHaveTheirSizes()
    {
        for (const int size : {16, 22, 24, 32, 48, 64, 128, 256, 512}) {
            const QString path =
                installed(QStringLiteral("share/icons/hicolor/%1x%1/apps/pescope.png").arg(size));
            QImageReader reader(path);
            const QImage image = reader.read();
            QVERIFY2(!image.isNull(),
                     qPrintable(path + QStringLiteral(": ") + reader.errorString()));
            QCOMPARE(image.size(), QSize(size, size));
            QVERIFY(image.hasAlphaChannel());
            // Opaque in the middle, transparent in a corner (rounded), and not one flat colour.
            QCOMPARE(qAlpha(image.pixel(size / 2, size / 2)), 255);
            QCOMPARE(qAlpha(image.pixel(0, 0)), 0);
            QSet<QRgb> colours;
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x)
                    colours.insert(image.pixel(x, y));
            QVERIFY(colours.size() >= 4);
        }
    }

    void installedProgramRuns()
    {
        const test::RunResult r =
            runTool(installed(QStringLiteral("bin/pescope")), {QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("pescope " PE_VERSION "\n"), r.out.constData());
    }

    // The Python module (python/): in lib/python3/dist-packages, importable from there with
    // the interpreter it was built for; a pescope.pth in that Python's site folder under the
    // prefix names the folder (the prefix is not /usr), so `import pescope` works without
    // PYTHONPATH.
    void pythonModule()
    {
#ifndef PE_PYTHON_MODULE
        PE_SKIP_MISSING("the Python module was not built (python3-dev and pybind11-dev not found)");
#else
        const QString folder = installed(QStringLiteral(PE_PYTHON_INSTALL_DIR));
        const QFileInfo module(folder + QStringLiteral("/" PE_PYTHON_MODULE));
        QVERIFY2(module.isFile() && module.size() > 0, qPrintable(module.filePath()));
        QVERIFY(!module.isExecutable());
        const QString script =
            QStringLiteral("import math, pescope\n"
                           "table = pescope.encode(positions=2, dims=2)\n"
                           "assert abs(table[1, 0] - math.sin(1)) < 1e-6, table\n"
                           "print(pescope.__version__)\n"
                           "print(pescope.__file__)\n");
        QProcess python;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTHONPATH"), folder);
        python.setProcessEnvironment(env);
        python.start(QStringLiteral(PE_PYTHON_EXECUTABLE), {QStringLiteral("-c"), script});
        QVERIFY(python.waitForFinished(120000));
        const QByteArray err = python.readAllStandardError();
        QVERIFY2(python.exitCode() == 0, err.constData());
        const QList<QByteArray> lines = python.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.value(0), QByteArray(PE_VERSION));
        QCOMPARE(QString::fromUtf8(lines.value(1)), module.filePath());

        // Without PYTHONPATH: the site folder's .pth (site.addsitedir reads .pth files as the
        // interpreter does for its own site folders).
        const QString site = installed(QStringLiteral(PE_PYTHON_SITE_DIR));
        QCOMPARE(readAll(site + QStringLiteral("/pescope.pth")).trimmed(), folder.toUtf8());
        env.remove(QStringLiteral("PYTHONPATH"));
        python.setProcessEnvironment(env);
        python.start(QStringLiteral(PE_PYTHON_EXECUTABLE),
                     {QStringLiteral("-c"),
                      QStringLiteral("import site; site.addsitedir(%1); import pescope; "
                                     "print(pescope.__file__)")
                          .arg(QLatin1Char('\'') + site + QLatin1Char('\''))});
        QVERIFY(python.waitForFinished(120000));
        QCOMPARE(QString::fromUtf8(python.readAllStandardOutput().trimmed()), module.filePath());
#endif
    }

    void desktopEntry()
    {
        const QString path = installed(QStringLiteral("share/applications/" PE_APP_ID ".desktop"));
        const QString text = QString::fromUtf8(readAll(path));
        for (const QString &line :
             {QStringLiteral("Exec=pescope %f"), QStringLiteral("Icon=pescope"),
              QStringLiteral("Type=Application"), QStringLiteral("Terminal=false")})
            QVERIFY2(text.contains(QLatin1Char('\n') + line + QLatin1Char('\n')), qPrintable(line));
        QVERIFY(text.contains(QLatin1String("\nCategories=Education;Science;")));
        QVERIFY(text.contains(QLatin1String("\nMimeType=" PE_SESSION_MIME_TYPE ";")));

        const QString validator =
            QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
        if (validator.isEmpty())
            PE_SKIP_MISSING("desktop-file-validate (Debian: desktop-file-utils) is not installed");
        const test::RunResult r = runTool(validator, {path});
        const QByteArray output = r.out + r.err;
        QVERIFY2(r.exitCode == 0 && !output.contains("error:") && !output.contains("warning:"),
                 output.constData());
    }

    void metainfo()
    {
        const QString path = installed(QStringLiteral("share/metainfo/" PE_APP_ID ".metainfo.xml"));
        const QString text = QString::fromUtf8(readAll(path));
        QVERIFY(text.contains(QLatin1String("<release version=\"" PE_VERSION "\" date=\"")));
        QVERIFY(text.contains(
            QLatin1String("<launchable type=\"desktop-id\">" PE_APP_ID ".desktop</launchable>")));
        QVERIFY(text.contains(QLatin1String("<content_rating type=\"oars-1.1\"")));
        // The screenshots are the README's.
        const QString readme =
            QString::fromUtf8(readAll(QStringLiteral(PE_SOURCE_DIR "/README.md")));
        static const QRegularExpression image(QStringLiteral("<image>[^<]*/([^/<]+)</image>"));
        int screenshots = 0;
        for (auto it = image.globalMatch(text); it.hasNext(); ++screenshots) {
            const QString name = it.next().captured(1);
            QVERIFY2(readme.contains(QStringLiteral("docs/screenshots/") + name), qPrintable(name));
        }
        QVERIFY(screenshots >= 2);

        const QString validator = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
        if (validator.isEmpty())
            PE_SKIP_MISSING("appstreamcli (Debian: appstream) is not installed");
        const test::RunResult r =
            runTool(validator, {QStringLiteral("validate"), QStringLiteral("--no-net"), path});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
    }

    // update-mime-database compiles the package file; a session file name then maps to the type.
    void mimeType()
    {
        const QString tool = QStandardPaths::findExecutable(QStringLiteral("update-mime-database"));
        if (tool.isEmpty())
            PE_SKIP_MISSING("update-mime-database (Debian: shared-mime-info) is not installed");
        const test::RunResult r =
            runTool(tool, {installed(QStringLiteral("share/mime"))}, {}, m_share);
        QVERIFY2(r.exitCode == 0 && r.err.isEmpty(), r.err.constData());
        const QByteArray globs = readAll(installed(QStringLiteral("share/mime/globs2")));
        QVERIFY2(globs.contains(PE_SESSION_MIME_TYPE ":*.pescope.json"), globs.constData());
        QVERIFY(QFileInfo::exists(
            installed(QStringLiteral("share/mime/" PE_SESSION_MIME_TYPE ".xml"))));
        const QByteArray subclasses = readAll(installed(QStringLiteral("share/mime/subclasses")));
        QVERIFY(subclasses.contains(PE_SESSION_MIME_TYPE " application/json"));
    }

    // Every subcommand of `pescope --help` and every option of every subcommand's live --help
    // (data's included) appears in the man page; groff formats it without a warning.
    void manPageCoversTheHelp()
    {
        const QString man =
            QString::fromUtf8(readAll(installed(QStringLiteral("share/man/man1/pescope.1"))));
        QVERIFY(man.startsWith(QLatin1String(".TH PESCOPE 1 ")));
        const QString roff = man;
        const auto inMan = [&](const QString &option) {
            QString escaped = option;
            return roff.contains(escaped.replace(QLatin1Char('-'), QLatin1String("\\-")));
        };

        const test::RunResult top = test::runPescope({QStringLiteral("--help")});
        QCOMPARE(top.exitCode, 0);
        static const QRegularExpression list(QStringLiteral("^Subcommands[^:]*:\\s*(.+?)\\.?$"),
                                             QRegularExpression::MultilineOption);
        const auto m = list.match(QString::fromUtf8(top.out));
        QVERIFY2(m.hasMatch(), top.out.constData());
        const QStringList commands = m.captured(1).split(QStringLiteral(", "));
        QVERIFY(commands.contains(QStringLiteral("data")));
        for (const QString &option : helpOptions(top.out))
            QVERIFY2(inMan(option), qPrintable(option));
        for (const QString &command : commands) {
            QVERIFY2(man.contains(QStringLiteral(".SS \"pescope %1\"").arg(command)),
                     qPrintable(command));
            const test::RunResult help = test::runPescope({command, QStringLiteral("--help")});
            QCOMPARE(help.exitCode, 0);
            const QStringList options = helpOptions(help.out);
            if (command == QLatin1String("data")) {
                QVERIFY(options.contains(QStringLiteral("--positions")));
                QVERIFY(options.size() >= 20);
            }
            // Within this command's section, so an option of another command does not count.
            const qsizetype start = man.indexOf(QStringLiteral(".SS \"pescope %1\"").arg(command));
            qsizetype end = man.indexOf(QLatin1String("\n.S"), start + 1);
            const QString section = man.mid(start, end < 0 ? -1 : end - start);
            for (QString option : options)
                QVERIFY2(section.contains(option.replace(QLatin1Char('-'), QLatin1String("\\-"))),
                         qPrintable(command + QLatin1Char(' ') + option));
        }

        const QString groff = QStandardPaths::findExecutable(QStringLiteral("groff"));
        if (groff.isEmpty())
            PE_SKIP_MISSING("groff is not installed");
        const test::RunResult r = runTool(
            groff, {QStringLiteral("-man"), QStringLiteral("-Tutf8"), QStringLiteral("-ww"),
                    QStringLiteral("-z"), installed(QStringLiteral("share/man/man1/pescope.1"))});
        QVERIFY2(r.exitCode == 0 && r.err.isEmpty(), r.err.constData());
    }

    void bashCompletion()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
            PE_SKIP_MISSING("no bash");
        QCOMPARE(complete({QStringLiteral("pescope"), QStringLiteral("da")}),
                 QStringList{QStringLiteral("data")});
        QVERIFY(
            complete({QStringLiteral("pescope"), QStringLiteral("data"), QStringLiteral("--pos")})
                .contains(QStringLiteral("--positions")));
        QCOMPARE(complete({QStringLiteral("pescope"), QStringLiteral("--pa")}),
                 QStringList{QStringLiteral("--page")});
        QCOMPARE(
            complete({QStringLiteral("pescope"), QStringLiteral("--page"), QStringLiteral("sc")}),
            QStringList{QStringLiteral("schemes")});
        // Preset names: those `pescope --help` lists.
        const test::RunResult top = test::runPescope({QStringLiteral("--help")});
        QStringList presets;
        bool inPresets = false;
        for (const QByteArray &line : top.out.split('\n')) {
            if (line.startsWith("Presets")) {
                inPresets = true;
                continue;
            }
            if (inPresets && !line.startsWith("  "))
                break;
            if (inPresets)
                presets.append(QString::fromUtf8(line.trimmed().split(' ').constFirst()));
        }
        QVERIFY(presets.contains(QStringLiteral("geron-16-9")));
        QStringList completed =
            complete({QStringLiteral("pescope"), QStringLiteral("--preset"), {}});
        completed.sort();
        presets.sort();
        QCOMPARE(completed, presets);
        QCOMPARE(complete({QStringLiteral("pescope"), QStringLiteral("export"),
                           QStringLiteral("--preset"), QStringLiteral("geron")}),
                 QStringList{QStringLiteral("geron-16-9")});
        // File names after options that take a file, and for the window's bare session file.
        QVERIFY(complete({QStringLiteral("pescope"), QStringLiteral("data"),
                          QStringLiteral("--out"), QStringLiteral("bi")})
                    .contains(QStringLiteral("bin")));
        QVERIFY(complete({QStringLiteral("pescope"), QStringLiteral("sh")})
                    .contains(QStringLiteral("share")));
    }
};

QTEST_GUILESS_MAIN(TestInstall)
#include "tst_install.moc"
