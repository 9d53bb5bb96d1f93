// .npy / .csv writing: format details NumPy relies on, and atomicity (no partial files).
#include "testutil.h"

#include "backends/cpubackend.h"
#include "io/encodingexport.h"
#include "io/matrixwriter.h"

#include <QFile>
#include <QTemporaryDir>

#include <cstdlib>

using namespace pe;

class TestMatrixWriter : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    static QByteArray readAll(const QString &file)
    {
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private slots:
    void npyHeaderLayout_data()
    {
        QTest::addColumn<QList<qint64>>("shape");
        QTest::addColumn<QByteArray>("tuple");
        QTest::addRow("1-D") << QList<qint64>{7} << QByteArray("(7,)");
        QTest::addRow("2-D") << QList<qint64>{3, 4} << QByteArray("(3, 4)");
        QTest::addRow("3-D") << QList<qint64>{2, 20, 50} << QByteArray("(2, 20, 50)");
    }
    void npyHeaderLayout()
    {
        QFETCH(QList<qint64>, shape);
        QFETCH(QByteArray, tuple);
        const QByteArray header = npyHeader(std::vector<qint64>(shape.begin(), shape.end()));
        QVERIFY(header.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        QCOMPARE(header.size() % 64, 0);
        const int dictLength = quint8(header[8]) | (quint8(header[9]) << 8);
        QCOMPARE(dictLength, header.size() - 10);
        QVERIFY(header.endsWith('\n'));
        QVERIFY(header.contains("'descr': '<f4'"));
        QVERIFY(header.contains("'fortran_order': False"));
        QVERIFY(header.contains(QByteArray(QByteArray("'shape': ") + tuple)));
    }

    void npyDataFollowsTheHeader()
    {
        const QString file = path(u"small.npy"_qs);
        MatrixWriter writer(file, MatrixFormat::Npy, {2, 3});
        const float values[] = {1.0f, -2.5f, 0.125f, 3.0f, 4.0f, 5.0f};
        QString error;
        QVERIFY(writer.open(&error));
        QVERIFY(writer.write(values, 3, &error));
        QVERIFY(writer.write(values + 3, 3, &error));
        QVERIFY2(writer.commit(&error), qPrintable(error));
        const QByteArray bytes = readAll(file);
        const QByteArray header = npyHeader({2, 3});
        QCOMPARE(bytes.size(), header.size() + 24);
        QCOMPARE(bytes.left(header.size()), header);
        QCOMPARE(bytes.mid(header.size()), QByteArray(reinterpret_cast<const char *>(values), 24));
    }

    // NumPy itself reads what we write (shape, dtype, values).
    void numpyLoadsIt()
    {
        const QString python = test::pythonWithNumpy();
        if (python.isEmpty())
            PE_SKIP_MISSING(
                "no python3 with NumPy on this machine (.ci/run installs python3-numpy)");
        EncodingSpec spec;
        spec.positions = 300;
        spec.dims = 17;
        const QString file = path(u"enc.npy"_qs);
        CpuBackend backend;
        MatrixWriter writer(file, MatrixFormat::Npy, {spec.positions, spec.dims});
        QString error;
        QVERIFY2(streamEncoding(backend, spec, writer, &error), qPrintable(error));
        QProcess check;
        check.start(python, {u"-c"_qs,
                             u"import sys, numpy as np\n"
                             "a = np.load(sys.argv[1])\n"
                             "assert a.shape == (300, 17) and a.dtype == np.float32\n"
                             "p = np.arange(300)[:, None]; j = np.arange(17)[None, :]\n"
                             "ang = p / 10000.0 ** (2 * (j // 2) / 17)\n"
                             "ref = np.where(j % 2 == 0, np.sin(ang), np.cos(ang))\n"
                             "assert abs(a - ref).max() < 1e-6, abs(a - ref).max()\n"_qs,
                             file});
        QVERIFY(check.waitForFinished(60000));
        QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
    }

    void csvRoundTripsFloats()
    {
        const QString file = path(u"small.csv"_qs);
        const float values[] = {0.1f, -1e-7f, 3.4028235e38f, 1.0f, 0.0f, -0.33333334f};
        MatrixWriter writer(file, MatrixFormat::Csv, {2, 3});
        QString error;
        QVERIFY(writer.open(&error));
        QVERIFY(writer.write(values, 6, &error));
        QVERIFY(writer.commit(&error));
        const QList<QByteArray> lines = readAll(file).split('\n');
        QCOMPARE(lines.size(), 3); // two rows and the empty tail after the last newline
        QVERIFY(lines[2].isEmpty());
        int i = 0;
        for (int r = 0; r < 2; ++r) {
            const QList<QByteArray> cells = lines[r].split(',');
            QCOMPARE(cells.size(), 3);
            for (const QByteArray &cell : cells)
                QCOMPARE(std::strtof(cell.constData(), nullptr), values[i++]);
        }
    }

    void extensions()
    {
        QCOMPARE(matrixFormatForPath(u"a/b.NPY"_qs), MatrixFormat::Npy);
        QCOMPARE(matrixFormatForPath(u"b.csv"_qs), MatrixFormat::Csv);
        QVERIFY(!matrixFormatForPath(u"b.txt"_qs));
        QVERIFY(!matrixFormatForPath(u"npy"_qs));
    }

    // A failed or cancelled write leaves nothing new, and an existing file untouched.
    void cancelLeavesNoFile()
    {
        const QString file = path(u"cancelled.npy"_qs);
        {
            MatrixWriter writer(file, MatrixFormat::Npy, {10, 10});
            QString error;
            QVERIFY(writer.open(&error));
            const float row[10] = {};
            QVERIFY(writer.write(row, 10, &error));
            writer.cancel();
        }
        QVERIFY(!QFile::exists(file));
    }

    void incompleteWriteIsNotCommitted()
    {
        const QString file = path(u"existing.npy"_qs);
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("precious");
        }
        MatrixWriter writer(file, MatrixFormat::Npy, {10, 10});
        QString error;
        QVERIFY(writer.open(&error));
        const float row[10] = {};
        QVERIFY(writer.write(row, 10, &error));
        QVERIFY(!writer.commit(&error)); // 10 of 100 values
        QVERIFY(error.contains(u"10 of 100"));
        QCOMPARE(readAll(file), QByteArray("precious"));
    }

    void unwritablePlaces_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reason");
        QTest::addRow("missing folder")
            << u"/nonexistent-pescope-dir/x.npy"_qs << u"does not exist"_qs;
        // procfs refuses new files even to root, so this holds whoever runs the tests.
        QTest::addRow("read-only filesystem") << u"/proc/pescope-test.npy"_qs << u"cannot write"_qs;
        QTest::addRow("a folder") << u"/tmp"_qs << u"folder"_qs;
    }
    void unwritablePlaces()
    {
        QFETCH(QString, file);
        QFETCH(QString, reason);
        MatrixWriter writer(file, MatrixFormat::Npy, {1, 1});
        QString error;
        QVERIFY(!writer.open(&error));
        QVERIFY2(error.contains(reason), qPrintable(error));
    }

    // The size check refuses before writing anything when the disk cannot hold the result.
    void refusesWhatTheDiskCannotHold()
    {
        const QString file = path(u"huge.npy"_qs);
        MatrixWriter writer(file, MatrixFormat::Npy, {qint64(1) << 24, 65536});
        QString error;
        QVERIFY(!writer.open(&error));
        QVERIFY2(error.contains(u"needs 4.0 TiB"), qPrintable(error));
        QVERIFY(!QFile::exists(file));
    }
};

QTEST_GUILESS_MAIN(TestMatrixWriter)
#include "tst_matrixwriter.moc"
