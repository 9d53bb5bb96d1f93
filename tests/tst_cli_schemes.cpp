// `pescope data` for the modern schemes, run as a user runs it: RoPE inverse frequencies and
// cos/sin tables, ALiBi slopes and biases, T5 buckets. Files are read back with NumPy and
// compared with the Hugging Face / reference formulas re-derived in Python here.
#include "testutil.h"

#include <QFile>
#include <QTemporaryDir>

using namespace pe;

namespace {

// Python re-derivations of the formulas, shared by the checks below (independent of pescope).
const QString pythonReferences = uR"(import sys, math
import numpy as np

def default_inv(base, dim):
    return np.array([1.0 / base ** (i / dim) for i in range(0, dim, 2)])

def llama3_inv(base, dim, factor=8.0, low=1.0, high=4.0, old=8192):
    out = []
    for f in default_inv(base, dim):
        wl = 2 * math.pi / f
        if wl < old / high:
            out.append(f)
        elif wl > old / low:
            out.append(f / factor)
        else:
            s = (old / wl - low) / (high - low)
            out.append((1 - s) * f / factor + s * f)
    return np.array(out)

def yarn_inv(base, dim, factor, old, beta_fast=32.0, beta_slow=1.0):
    cdim = lambda r: dim * math.log(old / (r * 2 * math.pi)) / (2 * math.log(base))
    lo = max(math.floor(cdim(beta_fast)), 0)
    hi = min(math.ceil(cdim(beta_slow)), dim - 1)
    if lo == hi:
        hi += 0.001
    ramp = np.clip((np.arange(dim // 2) - lo) / (hi - lo), 0, 1)
    keep = 1 - ramp
    f = default_inv(base, dim)
    return f / factor * (1 - keep) + f * keep

def alibi_slopes(n):
    def p2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return p2(n)
    c = 2 ** math.floor(math.log2(n))
    return p2(c) + alibi_slopes(2 * c)[0::2][:n - c]

def t5_bucket(rel, bidirectional=True, num_buckets=32, max_distance=128):
    ret = 0
    n = rel
    if bidirectional:
        num_buckets //= 2
        ret += (n > 0) * num_buckets
        n = abs(n)
    else:
        n = -min(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    # HF evaluates this part on float32 tensors.
    v = np.float32(np.log(np.float32(n) / np.float32(max_exact)))
    v = np.float32(v / np.float32(math.log(max_distance / max_exact)))
    v = np.float32(v * np.float32(num_buckets - max_exact))
    return ret + min(max_exact + int(v), num_buckets - 1)

a = np.load(sys.argv[1]) if sys.argv[1].endswith('.npy') else None
)"_qs;

} // namespace

class TestCliSchemes : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    static void checkWithNumpy(const QString &body, const QStringList &args)
    {
        const QString python = test::pythonWithNumpy();
        if (python.isEmpty())
            PE_SKIP_MISSING(
                "no python3 with NumPy on this machine (.ci/run installs python3-numpy)");
        QProcess check;
        check.start(python, QStringList{u"-c"_qs, pythonReferences + body} + args);
        QVERIFY(check.waitForFinished(120000));
        QVERIFY2(check.exitStatus() == QProcess::NormalExit && check.exitCode() == 0,
                 check.readAllStandardError().constData());
    }

    // Runs `pescope data args --out file` and expects success.
    test::RunResult runData(const QStringList &args, const QString &file)
    {
        const test::RunResult run =
            test::runPescope(QStringList{u"data"_qs} + args + QStringList{u"--out"_qs, file});
        if (run.exitCode != 0)
            qWarning("pescope failed: %s", run.err.constData());
        return run;
    }

private slots:
    void ropeInverseFrequencies_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::addRow("default 128")
            << QStringList{u"--dims"_qs, u"128"_qs, u"--base"_qs, u"10000"_qs}
            << u"default_inv(10000, 128)"_qs;
        QTest::addRow("llama 3.1, 128") << QStringList{u"--dims"_qs,
                                                       u"128"_qs,
                                                       u"--base"_qs,
                                                       u"500000"_qs,
                                                       u"--rope-type"_qs,
                                                       u"llama3"_qs,
                                                       u"--factor"_qs,
                                                       u"8"_qs,
                                                       u"--low-freq-factor"_qs,
                                                       u"1"_qs,
                                                       u"--high-freq-factor"_qs,
                                                       u"4"_qs,
                                                       u"--original-context"_qs,
                                                       u"8192"_qs}
                                        << u"llama3_inv(500000, 128)"_qs;
        QTest::addRow("llama3 explicit, 64") << QStringList{u"--dims"_qs,
                                                            u"64"_qs,
                                                            u"--base"_qs,
                                                            u"500000"_qs,
                                                            u"--rope-type"_qs,
                                                            u"llama3"_qs,
                                                            u"--factor"_qs,
                                                            u"8"_qs,
                                                            u"--low-freq-factor"_qs,
                                                            u"1"_qs,
                                                            u"--high-freq-factor"_qs,
                                                            u"4"_qs,
                                                            u"--original-context"_qs,
                                                            u"8192"_qs}
                                             << u"llama3_inv(500000, 64)"_qs;
        QTest::addRow("llama3 other factors, 96")
            << QStringList{u"--dims"_qs,
                           u"96"_qs,
                           u"--base"_qs,
                           u"10000"_qs,
                           u"--rope-type"_qs,
                           u"llama3"_qs,
                           u"--factor"_qs,
                           u"4"_qs,
                           u"--low-freq-factor"_qs,
                           u"2"_qs,
                           u"--high-freq-factor"_qs,
                           u"8"_qs,
                           u"--original-context"_qs,
                           u"2048"_qs}
            << u"llama3_inv(10000, 96, 4.0, 2.0, 8.0, 2048)"_qs;
        QTest::addRow("qwen 2.5 yarn, 128")
            << QStringList{u"--dims"_qs,   u"128"_qs,         u"--base"_qs,
                           u"1000000"_qs,  u"--rope-type"_qs, u"yarn"_qs,
                           u"--factor"_qs, u"4"_qs,           u"--original-context"_qs,
                           u"32768"_qs}
            << u"yarn_inv(1e6, 128, 4.0, 32768)"_qs;
        QTest::addRow("yarn betas, 64") << QStringList{u"--dims"_qs,
                                                       u"64"_qs,
                                                       u"--base"_qs,
                                                       u"10000"_qs,
                                                       u"--rope-type"_qs,
                                                       u"yarn"_qs,
                                                       u"--factor"_qs,
                                                       u"16"_qs,
                                                       u"--original-context"_qs,
                                                       u"4096"_qs,
                                                       u"--beta-fast"_qs,
                                                       u"24"_qs,
                                                       u"--beta-slow"_qs,
                                                       u"2"_qs}
                                        << u"yarn_inv(10000, 64, 16.0, 4096, 24.0, 2.0)"_qs;
        QTest::addRow("linear") << QStringList{u"--dims"_qs, u"32"_qs,       u"--rope-type"_qs,
                                               u"linear"_qs, u"--factor"_qs, u"4"_qs}
                                << u"default_inv(10000, 32) / 4"_qs;
        QTest::addRow("ntk") << QStringList{u"--dims"_qs, u"32"_qs,       u"--rope-type"_qs,
                                            u"ntk"_qs,    u"--factor"_qs, u"4"_qs}
                             << u"default_inv(10000 * 4 ** (32 / 30), 32)"_qs;
        // Dynamic scales from max_position_embeddings to the sequence length, --positions.
        QTest::addRow("dynamic-ntk at 3x")
            << QStringList{u"--dims"_qs,
                           u"32"_qs,
                           u"--rope-type"_qs,
                           u"dynamic-ntk"_qs,
                           u"--factor"_qs,
                           u"2"_qs,
                           u"--max-position-embeddings"_qs,
                           u"1000"_qs,
                           u"--positions"_qs,
                           u"3000"_qs}
            << u"default_inv(10000 * (2 * 3000 / 1000 - 1) ** (32 / 30), 32)"_qs;
        QTest::addRow("dynamic-ntk within context") << QStringList{u"--dims"_qs,
                                                                   u"32"_qs,
                                                                   u"--rope-type"_qs,
                                                                   u"dynamic"_qs,
                                                                   u"--factor"_qs,
                                                                   u"2"_qs,
                                                                   u"--max-position-embeddings"_qs,
                                                                   u"1000"_qs,
                                                                   u"--positions"_qs,
                                                                   u"1000"_qs}
                                                    << u"default_inv(10000, 32)"_qs;
        QTest::addRow("partial rotary 0.25")
            << QStringList{u"--dims"_qs, u"128"_qs, u"--partial-rotary-factor"_qs, u"0.25"_qs}
            << u"default_inv(10000, 32)"_qs;
    }
    void ropeInverseFrequencies()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const QString file = path(u"inv.npy"_qs);
        const test::RunResult run = runData(
            QStringList{u"--scheme"_qs, u"rope"_qs, u"--what"_qs, u"inv-freq"_qs} + args, file);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("computed on the CPU"), run.err.constData());
        checkWithNumpy(u"e = "_qs + expected + uR"(
assert a.dtype == np.float64 and a.ndim == 1, (a.dtype, a.shape)
assert a.shape == e.shape, (a.shape, e.shape)
err = np.max(np.abs(a / e - 1))
assert err < 1e-13, err
)"_qs,
                       {file});
    }

    // HF multiplies YaRN's cos and sin by 0.1 ln s + 1: its own output.
    void yarnAttentionFactor()
    {
        const QString file = path(u"attention.npy"_qs);
        const test::RunResult run =
            runData({u"--scheme"_qs, u"rope"_qs, u"--what"_qs, u"attention-factor"_qs, u"--dims"_qs,
                     u"128"_qs, u"--base"_qs, u"1000000"_qs, u"--rope-type"_qs, u"yarn"_qs,
                     u"--factor"_qs, u"4"_qs, u"--original-context"_qs, u"32768"_qs},
                    file);
        QCOMPARE(run.exitCode, 0);
        checkWithNumpy(uR"(
import math
assert a.dtype == np.float64 and a.shape == (1,), (a.dtype, a.shape)
assert abs(a[0] - (0.1 * math.log(4) + 1)) < 1e-15, a
)"_qs,
                       {file});
    }

    // The cos/sin table through the streaming path: pair i in columns (2i, 2i+1) or (i, i+d/2).
    void ropeTable_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("theta");
        QTest::addColumn<QString>("pairing");
        QTest::addRow("interleaved")
            << QStringList{} << u"default_inv(10000, 64)"_qs << u"interleaved"_qs;
        QTest::addRow("half") << QStringList{u"--pairing"_qs, u"half"_qs}
                              << u"default_inv(10000, 64)"_qs << u"half"_qs;
        QTest::addRow("half, llama 3.1") << QStringList{u"--pairing"_qs,
                                                        u"half"_qs,
                                                        u"--base"_qs,
                                                        u"500000"_qs,
                                                        u"--rope-type"_qs,
                                                        u"llama3"_qs,
                                                        u"--factor"_qs,
                                                        u"8"_qs,
                                                        u"--low-freq-factor"_qs,
                                                        u"1"_qs,
                                                        u"--high-freq-factor"_qs,
                                                        u"4"_qs,
                                                        u"--original-context"_qs,
                                                        u"8192"_qs}
                                         << u"llama3_inv(500000, 64)"_qs << u"half"_qs;
        QTest::addRow("interleaved, yarn")
            << QStringList{u"--rope-type"_qs,        u"yarn"_qs, u"--factor"_qs, u"8"_qs,
                           u"--original-context"_qs, u"512"_qs}
            << u"yarn_inv(10000, 64, 8.0, 512)"_qs << u"interleaved"_qs;
        // dynamic scales for the table's own length (3000 = 3 x 1000).
        QTest::addRow("dynamic-ntk at --positions")
            << QStringList{u"--rope-type"_qs,
                           u"dynamic"_qs,
                           u"--factor"_qs,
                           u"2"_qs,
                           u"--max-position-embeddings"_qs,
                           u"1000"_qs}
            << u"default_inv(10000 * (2 * 3000 / 1000 - 1) ** (64 / 62), 64)"_qs
            << u"interleaved"_qs;
    }
    void ropeTable()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, theta);
        QFETCH(QString, pairing);
        const QString file = path(u"rope.npy"_qs);
        const test::RunResult run =
            runData(QStringList{u"--scheme"_qs, u"rope"_qs, u"--positions"_qs, u"3000"_qs,
                                u"--dims"_qs, u"64"_qs, u"--backend"_qs, u"cpu"_qs} +
                        args,
                    file);
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("3000 x 64 rope matrix"), run.err.constData());
        checkWithNumpy(u"t = "_qs + theta + u"\npairing = '"_qs + pairing + uR"('
assert a.dtype == np.float32 and a.shape == (3000, 64), (a.dtype, a.shape)
ang = np.arange(3000)[:, None] * t[None, :]
if pairing == 'interleaved':
    c, s = a[:, 0::2], a[:, 1::2]
else:
    c, s = a[:, :32], a[:, 32:]
err = max(np.abs(c - np.cos(ang)).max(), np.abs(s - np.sin(ang)).max())
assert err < 1e-6, err
)"_qs,
                       {file});
    }

    void alibiSlopes()
    {
        for (const int heads : {8, 12, 5, 64}) {
            const QString file = path(u"slopes.npy"_qs);
            const test::RunResult run =
                runData({u"--scheme"_qs, u"alibi"_qs, u"--heads"_qs, QString::number(heads),
                         u"--what"_qs, u"slopes"_qs},
                        file);
            QCOMPARE(run.exitCode, 0);
            checkWithNumpy(u"n = "_qs + QString::number(heads) + uR"(
assert a.dtype == np.float64 and a.shape == (n,), (a.dtype, a.shape)
assert np.allclose(a, alibi_slopes(n), rtol=1e-15, atol=0), a
if n == 8:
    assert (a == [1/2, 1/4, 1/8, 1/16, 1/32, 1/64, 1/128, 1/256]).all()
)"_qs,
                           {file});
        }
    }

    void alibiBiases()
    {
        const QString file = path(u"alibi.npy"_qs);
        QCOMPARE(runData({u"--scheme"_qs, u"alibi"_qs, u"--heads"_qs, u"12"_qs, u"--positions"_qs,
                          u"33"_qs},
                         file)
                     .exitCode,
                 0);
        checkWithNumpy(uR"(
assert a.dtype == np.float32 and a.shape == (12, 33, 33), (a.dtype, a.shape)
m = np.array(alibi_slopes(12))
i = np.arange(33)
e = -m[:, None, None] * np.abs(i[:, None] - i[None, :])[None]
assert (a == e.astype(np.float32)).all()
)"_qs,
                       {file});
        const QString causal = path(u"causal.npy"_qs);
        QCOMPARE(runData({u"--scheme"_qs, u"alibi"_qs, u"--heads"_qs, u"4"_qs, u"--positions"_qs,
                          u"9"_qs, u"--causal"_qs},
                         causal)
                     .exitCode,
                 0);
        checkWithNumpy(uR"(
assert a.shape == (4, 9, 9)
m = np.array(alibi_slopes(4))
i = np.arange(9)
e = -m[:, None, None] * (i[:, None] - i[None, :])[None]
future = (i[None, :] > i[:, None])[None].repeat(4, 0)
assert np.isneginf(a[future]).all()
assert (a[~future] == e.astype(np.float32)[~future]).all()
)"_qs,
                       {causal});
    }

    // Without --positions the window's 200 positions (ALiBi's 8 heads): 200 x 200 per head.
    void biasSchemesWithWindowDefaults()
    {
        const QString alibi = path(u"alibi-default.npy"_qs);
        QCOMPARE(runData({u"--scheme"_qs, u"alibi"_qs}, alibi).exitCode, 0);
        checkWithNumpy(uR"(
assert a.dtype == np.float32 and a.shape == (8, 200, 200), (a.dtype, a.shape)
i = np.arange(200)
e = -np.array(alibi_slopes(8))[:, None, None] * np.abs(i[:, None] - i[None, :])[None]
assert (a == e.astype(np.float32)).all()
)"_qs,
                       {alibi});
        const QString t5 = path(u"t5-default.npy"_qs);
        QCOMPARE(runData({u"--scheme"_qs, u"t5"_qs}, t5).exitCode, 0);
        checkWithNumpy(uR"(
assert a.dtype == np.int32 and a.shape == (200, 200), (a.dtype, a.shape)
e = np.array([[t5_bucket(k - q) for k in range(200)] for q in range(200)])
assert (a == e).all()
)"_qs,
                       {t5});
    }

    void t5Buckets_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("call");
        QTest::addRow("defaults") << QStringList{} << u"t5_bucket(k - q)"_qs;
        QTest::addRow("causal") << QStringList{u"--causal"_qs} << u"t5_bucket(k - q, False)"_qs;
        QTest::addRow("64 buckets, 256")
            << QStringList{u"--buckets"_qs, u"64"_qs, u"--max-distance"_qs, u"256"_qs}
            << u"t5_bucket(k - q, True, 64, 256)"_qs;
        QTest::addRow("causal 8 buckets, 20")
            << QStringList{u"--buckets"_qs, u"8"_qs, u"--max-distance"_qs, u"20"_qs, u"--causal"_qs}
            << u"t5_bucket(k - q, False, 8, 20)"_qs;
    }
    void t5Buckets()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, call);
        const QString file = path(u"t5.npy"_qs);
        const test::RunResult run = runData(
            QStringList{u"--scheme"_qs, u"t5"_qs, u"--positions"_qs, u"300"_qs} + args, file);
        QCOMPARE(run.exitCode, 0);
        checkWithNumpy(u"e = np.array([["_qs + call +
                           uR"( for k in range(300)] for q in range(300)])
assert a.dtype == np.int32 and a.shape == (300, 300), (a.dtype, a.shape)
bad = np.argwhere(a != e)
assert len(bad) == 0, bad[:5]
)"_qs,
                       {file});
    }

    void csvOfEachElementType()
    {
        const QString t5 = path(u"t5.csv"_qs);
        QCOMPARE(runData({u"--scheme"_qs, u"t5"_qs, u"--positions"_qs, u"20"_qs}, t5).exitCode, 0);
        const QString slopes = path(u"slopes.csv"_qs);
        QCOMPARE(runData({u"--scheme"_qs, u"alibi"_qs, u"--heads"_qs, u"12"_qs, u"--what"_qs,
                          u"slopes"_qs},
                         slopes)
                     .exitCode,
                 0);
        checkWithNumpy(uR"(
t = np.loadtxt(sys.argv[1], delimiter=',', dtype=np.int64, ndmin=2)
assert t.shape == (20, 20)
assert (t == [[t5_bucket(k - q) for k in range(20)] for q in range(20)]).all()
s = np.loadtxt(sys.argv[2], delimiter=',', dtype=np.float64, ndmin=1)
assert (s == alibi_slopes(12)).all(), s
)"_qs,
                       {t5, slopes});
    }

    void badUsage_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList rope = {u"--scheme"_qs, u"rope"_qs};
        const QStringList inv = rope + QStringList{u"--what"_qs, u"inv-freq"_qs};
        const QStringList table = rope + QStringList{u"--positions"_qs, u"10"_qs};
        QTest::addRow("odd dims, table")
            << table + QStringList{u"--dims"_qs, u"7"_qs} << u"--dims must be even"_qs;
        QTest::addRow("odd dims, inv-freq")
            << inv + QStringList{u"--dims"_qs, u"9"_qs} << u"--dims must be even"_qs;
        QTest::addRow("factor 0")
            << inv + QStringList{u"--dims"_qs, u"8"_qs,        u"--rope-type"_qs,
                                 u"linear"_qs, u"--factor"_qs, u"0"_qs}
            << u"--factor must be greater than 0 and at most 1e+12 (got 0)"_qs;
        QTest::addRow("factor negative")
            << table + QStringList{u"--dims"_qs,   u"8"_qs,  u"--rope-type"_qs,        u"yarn"_qs,
                                   u"--factor"_qs, u"-4"_qs, u"--original-context"_qs, u"100"_qs}
            << u"--factor must be greater than 0 and at most 1e+12 (got -4)"_qs;
        QTest::addRow("factor text")
            << inv + QStringList{u"--dims"_qs, u"8"_qs,        u"--rope-type"_qs,
                                 u"ntk"_qs,    u"--factor"_qs, u"big"_qs}
            << u"--factor must be a finite number"_qs;
        QTest::addRow("yarn without any context")
            << inv + QStringList{u"--dims"_qs, u"8"_qs,        u"--rope-type"_qs,
                                 u"yarn"_qs,   u"--factor"_qs, u"4"_qs}
            << u"original_max_position_embeddings"_qs;
        QTest::addRow("original context negative")
            << table + QStringList{u"--dims"_qs,
                                   u"8"_qs,
                                   u"--rope-type"_qs,
                                   u"llama3"_qs,
                                   u"--original-context"_qs,
                                   u"-8192"_qs}
            << u"--original-context must be between 0 and"_qs;
        QTest::addRow("llama3 needs factor") << inv + QStringList{u"--dims"_qs,
                                                                  u"8"_qs,
                                                                  u"--rope-type"_qs,
                                                                  u"llama3"_qs,
                                                                  u"--original-context"_qs,
                                                                  u"100"_qs}
                                             << u"--factor is required with --scheme rope "
                                                u"--rope-type llama3"_qs;
        QTest::addRow("longrope needs its factors")
            << inv + QStringList{u"--dims"_qs, u"8"_qs, u"--rope-type"_qs, u"longrope"_qs}
            << u"--short-factor is required with --scheme rope --rope-type longrope"_qs;
        QTest::addRow("factor without scaling")
            << inv + QStringList{u"--dims"_qs, u"8"_qs, u"--factor"_qs, u"4"_qs}
            << u"--factor does not apply to --scheme rope --rope-type default"_qs;
        QTest::addRow("beta with llama3")
            << inv + QStringList{u"--dims"_qs, u"8"_qs,           u"--rope-type"_qs,
                                 u"llama3"_qs, u"--beta-fast"_qs, u"4"_qs}
            << u"--beta-fast does not apply to --scheme rope --rope-type llama3"_qs;
        QTest::addRow("ntk at 2 dims")
            << inv + QStringList{u"--dims"_qs, u"2"_qs,        u"--rope-type"_qs,
                                 u"ntk"_qs,    u"--factor"_qs, u"2"_qs}
            << u"divides by zero at 2 rotary dims"_qs;
        QTest::addRow("unknown rope type")
            << inv + QStringList{u"--dims"_qs, u"8"_qs, u"--rope-type"_qs, u"xpos"_qs}
            << u"--rope-type must be default, linear, dynamic, yarn, longrope, llama3, "
               u"proportional or ntk"_qs;
        QTest::addRow("unknown pairing")
            << table + QStringList{u"--dims"_qs, u"8"_qs, u"--pairing"_qs, u"split"_qs}
            << u"--pairing must be interleaved or half"_qs;
        QTest::addRow("layout with rope")
            << table + QStringList{u"--dims"_qs, u"8"_qs, u"--layout"_qs, u"split"_qs}
            << u"--layout does not apply to --scheme rope"_qs;
        QTest::addRow("partial factor 0")
            << table + QStringList{u"--dims"_qs, u"8"_qs, u"--partial-rotary-factor"_qs, u"0"_qs}
            << u"--partial-rotary-factor must be greater than 0"_qs;
        // The same bounds as a model's rope_parameters (tst_ropetypes' tableAndChecksAgree):
        // transformers 5 divides by low_freq_factor, and reads beta_fast 0 as 32.
        const QStringList llama3 = inv + QStringList{u"--dims"_qs,
                                                     u"8"_qs,
                                                     u"--rope-type"_qs,
                                                     u"llama3"_qs,
                                                     u"--factor"_qs,
                                                     u"8"_qs,
                                                     u"--original-context"_qs,
                                                     u"8192"_qs,
                                                     u"--high-freq-factor"_qs,
                                                     u"4"_qs};
        QTest::addRow("low freq factor 0")
            << llama3 + QStringList{u"--low-freq-factor"_qs, u"0"_qs}
            << u"--low-freq-factor must be between -1e+12 and 1e+12, and not 0 (got 0)"_qs;
        const QStringList yarn =
            inv + QStringList{u"--dims"_qs,   u"8"_qs, u"--rope-type"_qs,        u"yarn"_qs,
                              u"--factor"_qs, u"4"_qs, u"--original-context"_qs, u"512"_qs};
        QTest::addRow("beta fast negative")
            << yarn + QStringList{u"--beta-fast"_qs, u"-1"_qs}
            << u"--beta-fast must be between 0 and 1e+12 (got -1)"_qs;
        QTest::addRow("positions with inv-freq")
            << inv + QStringList{u"--dims"_qs, u"8"_qs, u"--positions"_qs, u"8"_qs}
            << u"--positions does not apply to --what inv-freq"_qs;
        QTest::addRow("rope option on sinusoidal")
            << QStringList{u"--positions"_qs, u"4"_qs,         u"--dims"_qs,
                           u"8"_qs,           u"--pairing"_qs, u"half"_qs}
            << u"--pairing does not apply to --scheme sinusoidal"_qs;
        QTest::addRow("inv-freq on sinusoidal")
            << QStringList{u"--what"_qs, u"inv-freq"_qs, u"--positions"_qs,
                           u"4"_qs,      u"--dims"_qs,   u"8"_qs}
            << u"--what must be matrix for --scheme sinusoidal"_qs;
        QTest::addRow("heads on rope")
            << table + QStringList{u"--dims"_qs, u"8"_qs, u"--heads"_qs, u"8"_qs}
            << u"--heads does not apply to --scheme rope"_qs;
        QTest::addRow("unknown scheme")
            << QStringList{u"--scheme"_qs, u"xpos"_qs,   u"--positions"_qs,
                           u"4"_qs,        u"--dims"_qs, u"8"_qs}
            << u"--scheme must be sinusoidal, learned, rope, alibi"_qs; // the list grows with
                                                                        // schemes
        const QStringList alibi = {u"--scheme"_qs, u"alibi"_qs};
        QTest::addRow("zero heads")
            << alibi + QStringList{u"--heads"_qs, u"0"_qs, u"--what"_qs, u"slopes"_qs}
            << u"--heads must be between 1 and 4096 (got 0)"_qs;
        QTest::addRow("dims on alibi")
            << alibi + QStringList{u"--heads"_qs, u"4"_qs,      u"--positions"_qs,
                                   u"4"_qs,       u"--dims"_qs, u"8"_qs}
            << u"--dims does not apply to --scheme alibi"_qs;
        QTest::addRow("alibi what")
            << alibi + QStringList{u"--heads"_qs, u"4"_qs, u"--what"_qs, u"inv-freq"_qs}
            << u"--what must be matrix or slopes for --scheme alibi"_qs;
        QTest::addRow("alibi on gpu")
            << alibi + QStringList{u"--heads"_qs, u"4"_qs,         u"--what"_qs,
                                   u"slopes"_qs,  u"--backend"_qs, u"gpu"_qs}
            << u"--backend gpu is not available for --what slopes of --scheme alibi"_qs;
        const QStringList t5 = {u"--scheme"_qs, u"t5"_qs, u"--positions"_qs, u"10"_qs};
        QTest::addRow("buckets 1") << t5 + QStringList{u"--buckets"_qs, u"1"_qs, u"--causal"_qs}
                                   << u"--buckets must be between 2 and 65536 (got 1)"_qs;
        QTest::addRow("buckets 0") << t5 + QStringList{u"--buckets"_qs, u"0"_qs}
                                   << u"--buckets must be between 2 and 65536 (got 0)"_qs;
        QTest::addRow("buckets 2 bidirectional")
            << t5 + QStringList{u"--buckets"_qs, u"2"_qs}
            << u"--buckets must be at least 4 unless causal"_qs;
        QTest::addRow("max distance too small")
            << t5 + QStringList{u"--max-distance"_qs, u"8"_qs}
            << u"--max-distance must be greater than the 8 exact buckets (got 8)"_qs;
        QTest::addRow("heads on t5") << t5 + QStringList{u"--heads"_qs, u"4"_qs}
                                     << u"--heads does not apply to --scheme t5"_qs;
    }
    void badUsage()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString file = path(u"bad.npy"_qs);
        const test::RunResult run =
            test::runPescope(QStringList{u"data"_qs} + args + QStringList{u"--out"_qs, file});
        QCOMPARE(run.exitCode, 2);
        const QString err = QString::fromLocal8Bit(run.err);
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(err.count(QLatin1Char('\n')) == 1, qPrintable(err)); // one line
        QVERIFY(!QFile::exists(file));
    }

    // Streamed, so size is bounded by the disk, not memory: a 4096 x 2^24 x 2^24 request fails
    // while working (exit 1) with the disk's answer, and leaves nothing.
    void hugeBiasRequestFailsCleanly()
    {
        const QString file = path(u"huge.npy"_qs);
        const test::RunResult run =
            test::runPescope({u"data"_qs, u"--scheme"_qs, u"alibi"_qs, u"--heads"_qs, u"4096"_qs,
                              u"--positions"_qs, u"16777216"_qs, u"--out"_qs, file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("only") && run.err.contains("is free there"),
                 run.err.constData());
        QVERIFY(!QFile::exists(file));
    }

    void failureWhileWritingExits1()
    {
        const test::RunResult run =
            test::runPescope({u"data"_qs, u"--scheme"_qs, u"t5"_qs, u"--positions"_qs, u"10"_qs,
                              u"--out"_qs, u"/nonexistent-pescope/t5.npy"_qs});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("does not exist"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliSchemes)
#include "tst_cli_schemes.moc"
