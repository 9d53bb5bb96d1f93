// The Debian package: `cpack -G DEB` builds pescope_<version>_<arch>.deb, read back with
// dpkg-deb: its version is the CMake project's, Depends names the shared libraries the binary
// links (from dpkg-shlibdeps) and Qt's platform plugins, it holds every installed file, and the
// Python module imports from it.
// A separate suite because it builds the package (tens of seconds).
#include "testutil.h"

#include <QDir>
#include <QTemporaryDir>

using namespace pe;

namespace {

test::RunResult runTool(const QString &program, const QStringList &args,
                        const QString &workingDirectory = {})
{
    QProcess process;
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start(program, args);
    if (!process.waitForFinished(600000) || process.exitStatus() != QProcess::NormalExit)
        return {-1, {}, process.readAllStandardError()};
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

bool isPythonModule(const QByteArray &path)
{
#ifdef PE_PYTHON_MODULE
    return path == "./usr/" PE_PYTHON_INSTALL_DIR "/" PE_PYTHON_MODULE;
#else
    Q_UNUSED(path);
    return false;
#endif
}

} // namespace

class TestPackage : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_deb;
    QString m_dpkgDeb;

    QString field(const QString &name) const
    {
        const test::RunResult r = runTool(m_dpkgDeb, {QStringLiteral("-f"), m_deb, name});
        return QString::fromUtf8(r.out).simplified();
    }

private slots:
    void initTestCase()
    {
        m_dpkgDeb = QStandardPaths::findExecutable(QStringLiteral("dpkg-deb"));
        if (m_dpkgDeb.isEmpty() ||
            QStandardPaths::findExecutable(QStringLiteral("dpkg-shlibdeps")).isEmpty())
            PE_SKIP_MISSING(
                "dpkg-deb and dpkg-shlibdeps (Debian: dpkg-dev) are needed to build the package");
        QVERIFY(m_dir.isValid());
        const test::RunResult r = runTool(
            QStringLiteral(PE_CPACK_COMMAND),
            {QStringLiteral("--config"), QStringLiteral(PE_BUILD_DIR "/CPackConfig.cmake"),
             QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("-B"), m_dir.path()},
            m_dir.path());
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        const QStringList debs = QDir(m_dir.path()).entryList({QStringLiteral("*.deb")});
        QCOMPARE(debs.size(), 1);
        m_deb = m_dir.filePath(debs.constFirst());
        QVERIFY2(debs.constFirst().startsWith(QLatin1String("pescope_" PE_VERSION "_")),
                 qPrintable(debs.constFirst()));
    }

    void control()
    {
        QCOMPARE(field(QStringLiteral("Package")), QStringLiteral("pescope"));
        QCOMPARE(field(QStringLiteral("Version")), QStringLiteral(PE_VERSION));
        const test::RunResult arch =
            runTool(QStringLiteral("dpkg"), {QStringLiteral("--print-architecture")});
        if (arch.exitCode == 0)
            QCOMPARE(field(QStringLiteral("Architecture")), QString::fromUtf8(arch.out).trimmed());
        QVERIFY(!field(QStringLiteral("Maintainer")).isEmpty());
        QVERIFY(!field(QStringLiteral("Description")).isEmpty());
    }

    // Each shared library the binary needs, by its Debian package, and the platform plugins
    // Qt loads at run time (no library dependency names them).
    void depends_data()
    {
        QTest::addColumn<QString>("package");
        for (const char *package :
             {"libc6", "libstdc++6", "libqt6core6", "libqt6gui6", "libqt6widgets6", "libqt6opengl6",
              "libqt6svg6", "libqcustomplot2.1-qt6", "libisal2", "libgcc-s1", "qt6-qpa-plugins"})
            QTest::addRow("%s", package) << QString::fromLatin1(package);
    }

    void depends()
    {
        QFETCH(QString, package);
        const QStringList depends =
            field(QStringLiteral("Depends")).split(QStringLiteral(", "), Qt::SkipEmptyParts);
        bool found = false;
        for (const QString &d : depends)
            found = found || d == package || d.startsWith(package + QStringLiteral(" ("));
        QVERIFY2(found,
                 qPrintable(QStringLiteral("Depends: ") + depends.join(QStringLiteral(", "))));
    }

    void contents_data()
    {
        QTest::addColumn<QString>("path");
        const QString id = QStringLiteral(PE_APP_ID);
        QStringList paths = {
            QStringLiteral("./usr/bin/pescope"),
            QStringLiteral("./usr/lib/pescope/libpe_media.so"), // FFmpeg, loaded for animations
            QStringLiteral("./usr/share/applications/%1.desktop").arg(id),
            QStringLiteral("./usr/share/metainfo/%1.metainfo.xml").arg(id),
            QStringLiteral("./usr/share/mime/packages/pescope.xml"),
            QStringLiteral("./usr/share/icons/hicolor/scalable/apps/pescope.svg"),
            QStringLiteral("./usr/share/man/man1/pescope.1"),
            QStringLiteral("./usr/share/bash-completion/completions/pescope"),
        };
        for (const int size : {16, 22, 24, 32, 48, 64, 128, 256, 512})
            paths.append(
                QStringLiteral("./usr/share/icons/hicolor/%1x%1/apps/pescope.png").arg(size));
#ifdef PE_PYTHON_MODULE
        paths.append(QStringLiteral("./usr/" PE_PYTHON_INSTALL_DIR "/" PE_PYTHON_MODULE));
#endif
        for (const QString &path : paths)
            QTest::addRow("%s", qPrintable(path)) << path;
    }

    void contents()
    {
        QFETCH(QString, path);
        const test::RunResult r = runTool(m_dpkgDeb, {QStringLiteral("-c"), m_deb});
        QCOMPARE(r.exitCode, 0);
        bool found = false;
        for (const QByteArray &line : r.out.split('\n')) {
            // "-rwxr-xr-x root/root 123456 2026-01-01 00:00 ./usr/bin/pescope"
            const QList<QByteArray> columns = line.simplified().split(' ');
            if (columns.size() >= 6 && columns.last() == path.toUtf8()) {
                found = true;
                QVERIFY2(columns.at(1) == "root/root", line.constData());
                if (path.endsWith(QLatin1String("/bin/pescope")))
                    QVERIFY2(columns.at(0) == "-rwxr-xr-x", line.constData());
                else
                    QVERIFY2(columns.at(0) == "-rw-r--r--", line.constData());
            }
        }
        QVERIFY2(found, qPrintable(path + QStringLiteral(" is not in the package")));
    }

    // Nothing from the build tree (tests, benchmarks, tools) goes into the package.
    void onlyTheProgramsFiles()
    {
        const test::RunResult r = runTool(m_dpkgDeb, {QStringLiteral("-c"), m_deb});
        for (const QByteArray &line : r.out.split('\n')) {
            const QByteArray path = line.simplified().split(' ').last();
            if (line.isEmpty() || line.startsWith('d'))
                continue;
            QVERIFY2(path.startsWith("./usr/bin/pescope") || path.startsWith("./usr/share/") ||
                         path == "./usr/lib/pescope/libpe_media.so" || isPythonModule(path),
                     line.constData());
        }
    }

    // The Python module imports from the unpacked package with the interpreter it was built
    // for (Debian's python3, which searches /usr/lib/python3/dist-packages); the package
    // recommends that interpreter and NumPy.
    void pythonModuleImports()
    {
#ifndef PE_PYTHON_MODULE
        PE_SKIP_MISSING("the Python module was not built (python3-dev and pybind11-dev not found)");
#else
        QVERIFY(field(QStringLiteral("Recommends")).contains(QLatin1String("python3-numpy")));
        const QString root = m_dir.filePath(QStringLiteral("unpacked"));
        const test::RunResult unpacked = runTool(m_dpkgDeb, {QStringLiteral("-x"), m_deb, root});
        QVERIFY2(unpacked.exitCode == 0, unpacked.err.constData());
        QProcess python;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const QString folder = root + QStringLiteral("/usr/" PE_PYTHON_INSTALL_DIR);
        env.insert(QStringLiteral("PYTHONPATH"), folder);
        python.setProcessEnvironment(env);
        python.start(QStringLiteral(PE_PYTHON_EXECUTABLE),
                     {QStringLiteral("-c"),
                      QStringLiteral("import pescope; print(pescope.__version__); "
                                     "print(pescope.__file__); "
                                     "print(pescope.encode(positions=3, dims=4).shape)")});
        QVERIFY(python.waitForFinished(120000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QList<QByteArray> lines = python.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.value(0), QByteArray(PE_VERSION));
        QCOMPARE(QString::fromUtf8(lines.value(1)), folder + QStringLiteral("/" PE_PYTHON_MODULE));
        QCOMPARE(lines.value(2), QByteArray("(3, 4)"));
#endif
    }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
