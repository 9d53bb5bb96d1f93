// The field-table machinery (core/fields) on a table of its own: one text syntax, JSON, gates,
// command-line options and --help, and refusals that name the field.
#include "testutil.h"

#include "fields/fieldoptions.h"
#include "fields/helptext.h"
#include "fields/wholenumber.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <cmath>
#include <limits>

using namespace pe;

namespace {

enum class Shape { Circle, Square, Star };
constexpr ChoiceName shapeNames[] = {
    choice(Shape::Circle, "circle", "Circle", "round,disc"),
    choice(Shape::Square, "square", "Square"),
    choice(Shape::Star, "star", "Star"),
};

// A made-up parameter struct with one field of each kind.
struct Sample
{
    Shape shape = Shape::Circle;
    qint64 count = 3;
    double size = 1.5;
    std::optional<double> weight;
    bool filled = false;
    bool outlined = true;
    qint64 points = 5; // stars only, and required when the star is chosen on the command line
    QList<qint64> marks;
    std::vector<double> radii;
    QString title;
    QStringList notes;
    QList<MatrixCell> crosses;
    MatrixCell cell{1, 2};
    quint64 seed = 0;

    static FieldTable<Sample> fields()
    {
        using S = Sample;
        static const Field<S> table[] = {
            {.key = "shape",
             .flag = "shape",
             .label = "Shape",
             .help = "What to draw.",
             .kind = choiceKind<&S::shape>(shapeNames)},
            {.key = "count",
             .flag = "count",
             .label = "Count",
             .help = "How many.",
             .kind = IntegerKind<S>{&S::count, {1, 100}}},
            {.key = "size",
             .flag = "size",
             .label = "Size",
             .help = "How big.",
             .kind = RealKind<S>{&S::size, {0.0, 10.0, true}}},
            {.key = "weight",
             .flag = "weight",
             .label = "Weight",
             .help = "Optional.",
             .kind = OptionalRealKind<S>{&S::weight, {0.0, 1.0}}},
            {.key = "filled",
             .flag = "filled",
             .label = "Filled",
             .help = "Fill it.",
             .kind = BoolKind<S>{&S::filled}},
            {.key = "outlined",
             .flag = "outlined",
             .label = "Outlined",
             .help = "Outline it.",
             .kind = BoolKind<S>{&S::outlined}},
            {.key = "star_points",
             .flag = "points",
             .label = "Points",
             .help = "Star tips.",
             .kind = IntegerKind<S>{&S::points, {3, 12}},
             .gate = {.by = "shape",
                      .applies = bitsOf(Shape::Star),
                      .required = bitsOf(Shape::Star)}},
            {.key = "marks",
             .flag = "marks",
             .label = "Marks",
             .help = "Positions.",
             .kind = IntegerListKind<S>{&S::marks, {0, 9}, 3}},
            {.key = "radii",
             .flag = "radii",
             .label = "Radii",
             .help = "Radii.",
             .kind = RealListKind<S>{&S::radii, {0.0, 1.0}, 4}},
            {.key = "title",
             .flag = "title",
             .label = "Title",
             .help = "A title.",
             .kind = TextKind<S>{&S::title, 8}},
            {.key = "notes",
             .flag = "note",
             .label = "Notes",
             .help = "Notes.",
             .kind = TextListKind<S>{&S::notes, 2, 5}},
            {.key = "crosses",
             .flag = "cross",
             .label = "Crosses",
             .help = "Crosses.",
             .kind = CrossListKind<S>{&S::crosses, 2}},
            {.key = "cell",
             .flag = "cell",
             .label = "Cell",
             .help = "A cell.",
             .kind = CellKind<S>{&S::cell}},
            {.key = "seed",
             .flag = "seed",
             .label = "Seed",
             .help = "A seed.",
             .kind = SeedKind<S>{&S::seed}},
        };
        return table;
    }
    bool operator==(const Sample &) const = default;
};

const Field<Sample> &field(const char *key)
{
    const Field<Sample> *f = findField(Sample::fields(), std::string_view(key));
    Q_ASSERT(f);
    return *f;
}

// Parses `args` (after the program name) with every Sample option; the problem it gives.
FieldProblem parseArgs(const QStringList &args, Sample *out)
{
    OptionSet options;
    options.add(Sample::fields());
    QCommandLineParser parser;
    options.addTo(parser);
    if (!parser.parse(QStringList{QStringLiteral("test")} + args))
        return {QString(), parser.errorText()};
    return readOptions(Sample::fields(), parser, out, QStringLiteral("test"));
}

} // namespace

class TestFields : public QObject
{
    Q_OBJECT

private slots:
    void choiceNamesParseNamesAndAliases()
    {
        QCOMPARE(parseAs<Shape>(shapeNames, u"square"), Shape::Square);
        QCOMPARE(parseAs<Shape>(shapeNames, u" disc "), Shape::Circle);
        QCOMPARE(parseAs<Shape>(shapeNames, u"round"), Shape::Circle);
        QVERIFY(!parseAs<Shape>(shapeNames, u"Square")); // names are case-sensitive
        QVERIFY(!parseAs<Shape>(shapeNames, u"circ"));
        QCOMPARE(nameOf(shapeNames, Shape::Star), u"star"_qs);
        QCOMPARE(labelOf(shapeNames, Shape::Star), u"Star"_qs);
        QCOMPARE(choiceList(shapeNames), u"circle, square or star"_qs);
    }

    void realsReadBackExactly_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("0.1") << 0.1 << u"0.1"_qs;
        QTest::addRow("1e12") << 1e12 << u"1e+12"_qs;
        QTest::addRow("10000") << 10000.0 << u"10000"_qs;
        // Plain digits where to_chars' shortest would be exponential (issue 38: "5e+05").
        QTest::addRow("500000") << 500000.0 << u"500000"_qs;
        QTest::addRow("1e6") << 1e6 << u"1000000"_qs;
        QTest::addRow("1e-4") << 1e-4 << u"0.0001"_qs;
        QTest::addRow("1e9") << 1e9 << u"1e+09"_qs;
        QTest::addRow("1/3") << 1.0 / 3.0 << u"0.3333333333333333"_qs;
        QTest::addRow("tiny") << 5e-324 << u"5e-324"_qs;
    }
    void realsReadBackExactly()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(formatReal(value), text);
        double back = 0;
        QVERIFY(fieldvalue::parseReal(formatReal(value), {0.0, 1e300}, &back).isEmpty());
        QCOMPARE(back, value); // bit for bit
    }

    void textRefusalsNameTheProblem_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::addRow("count 0") << u"count"_qs << u"0"_qs
                                 << u"must be between 1 and 100 (got 0)"_qs;
        QTest::addRow("count text") << u"count"_qs << u"ten"_qs
                                    << u"must be a whole number between 1 and 100 (got \"ten\")"_qs;
        QTest::addRow("count too long")
            << u"count"_qs << u"99999999999999999999"_qs << u"must be a whole number"_qs;
        QTest::addRow("size open at 0")
            << u"size"_qs << u"0"_qs << u"must be greater than 0 and at most 10 (got 0)"_qs;
        QTest::addRow("size nan") << u"size"_qs << u"nan"_qs << u"must be a finite number"_qs;
        QTest::addRow("size inf") << u"size"_qs << u"inf"_qs << u"must be a finite number"_qs;
        QTest::addRow("weight closed")
            << u"weight"_qs << u"1.5"_qs << u"must be between 0 and 1 (got 1.5)"_qs;
        QTest::addRow("shape") << u"shape"_qs << u"cube"_qs
                               << u"must be circle, square or star (got \"cube\")"_qs;
        QTest::addRow("bool") << u"filled"_qs << u"maybe"_qs << u"must be true or false"_qs;
        QTest::addRow("marks too many")
            << u"marks"_qs << u"1,2,3,4"_qs << u"takes at most 3 values (got 4)"_qs;
        QTest::addRow("marks out of range") << u"marks"_qs << u"1, 10"_qs << u"\"10\""_qs;
        QTest::addRow("title too long")
            << u"title"_qs << u"123456789"_qs << u"at most 8 characters"_qs;
        QTest::addRow("cross") << u"crosses"_qs << u"3@x"_qs << u"must be crosses written P@D"_qs;
        QTest::addRow("cell without dim")
            << u"cell"_qs << u"3"_qs << u"must be a cell written P@D"_qs;
        QTest::addRow("seed negative")
            << u"seed"_qs << u"-1"_qs << u"must be a whole number from 0"_qs;
    }
    void textRefusalsNameTheProblem()
    {
        QFETCH(QString, key);
        QFETCH(QString, text);
        QFETCH(QString, message);
        Sample s;
        const Sample before = s;
        const QString problem = setFieldText(field(qPrintable(key)), s, text);
        QVERIFY2(problem.contains(message), qPrintable(problem));
        QVERIFY(s == before); // a refused value changes nothing
        const QString named = describe(Sample::fields(), {key, problem}, FieldNaming::Flag);
        QVERIFY2(named.startsWith(QStringLiteral("--")), qPrintable(named));
    }

    void oneTextSyntax()
    {
        Sample s;
        QVERIFY(setFieldText(field("marks"), s, u" 1,2 , 9").isEmpty());
        QCOMPARE(s.marks, (QList<qint64>{1, 2, 9}));
        QCOMPARE(fieldText(field("marks"), s), u"1,2,9"_qs);
        QVERIFY(setFieldText(field("crosses"), s, u"35@100, 7").isEmpty());
        QCOMPARE(s.crosses, (QList<MatrixCell>{{35, 100}, {7, -1}}));
        QCOMPARE(fieldText(field("crosses"), s), u"35@100,7"_qs);
        QVERIFY(setFieldText(field("cell"), s, u"22@60").isEmpty());
        QCOMPARE(s.cell, (MatrixCell{22, 60}));
        QVERIFY(setFieldText(field("weight"), s, u"0.25").isEmpty());
        QCOMPARE(s.weight, 0.25);
        QVERIFY(setFieldText(field("weight"), s, u"").isEmpty()); // empty clears an optional
        QVERIFY(!s.weight);
        QVERIFY(setFieldText(field("seed"), s, u"18446744073709551615").isEmpty());
        QCOMPARE(s.seed, std::numeric_limits<quint64>::max());
    }

    void jsonRoundTripAndGates()
    {
        Sample s;
        s.shape = Shape::Star;
        s.points = 7;
        s.weight = 0.5;
        s.marks = {4, 5};
        s.radii = {0.25, 0.5};
        s.notes = {u"a"_qs, u"bb"_qs};
        s.crosses = {{1, 2}};
        s.seed = 18446744073709551557ull;
        const QJsonObject json = toJson(Sample::fields(), s);
        QCOMPARE(json.value(u"seed").toString(), u"18446744073709551557"_qs); // above 2^53
        QCOMPARE(json.value(u"crosses").toArray().first().toString(), u"1@2"_qs);
        QCOMPARE(json.value(u"star_points").toInteger(), 7);
        Sample back;
        const FieldProblem problem = readJson(Sample::fields(), json, &back);
        QVERIFY2(!problem, qPrintable(problem.message));
        QVERIFY(back == s);
        // A circle has no points: they are not written, and a file that gives them is refused.
        s.shape = Shape::Circle;
        QVERIFY(!toJson(Sample::fields(), s).contains(u"star_points"));
        QJsonObject circle = toJson(Sample::fields(), s);
        circle.insert(u"star_points"_qs, 5);
        const FieldProblem refused = readJson(Sample::fields(), circle, &back);
        QCOMPARE(refused.key, u"star_points"_qs);
        QVERIFY2(refused.message.contains(u"does not apply with shape circle"),
                 qPrintable(refused.message));
    }

    // Issue 35: the one conversion of a parsed number to an integer refuses what no integer
    // type holds (a cast of such a double is undefined behaviour) and what is not whole.
    void wholeNumbersAreChecked_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<qint64>("min");
        QTest::addColumn<qint64>("max");
        QTest::addColumn<qint64>("expected"); // -1: refused
        constexpr qint64 lowest = std::numeric_limits<qint64>::min();
        constexpr qint64 highest = std::numeric_limits<qint64>::max();
        const double inf = std::numeric_limits<double>::infinity();
        QTest::addRow("in range") << 12.0 << qint64(0) << qint64(100) << qint64(12);
        QTest::addRow("at the low end") << 0.0 << qint64(0) << qint64(100) << qint64(0);
        QTest::addRow("at the high end") << 100.0 << qint64(0) << qint64(100) << qint64(100);
        QTest::addRow("minus zero") << -0.0 << qint64(0) << qint64(100) << qint64(0);
        QTest::addRow("below") << -1.0 << qint64(0) << qint64(100) << qint64(-1);
        QTest::addRow("above") << 101.0 << qint64(0) << qint64(100) << qint64(-1);
        QTest::addRow("fraction") << 2.5 << qint64(0) << qint64(100) << qint64(-1);
        QTest::addRow("NaN") << std::nan("") << lowest << highest << qint64(-1);
        QTest::addRow("+inf") << inf << lowest << highest << qint64(-1);
        QTest::addRow("-inf") << -inf << lowest << highest << qint64(-1);
        QTest::addRow("3.3e56") << 3.3e56 << lowest << highest << qint64(-1);
        QTest::addRow("-3.3e56") << -3.3e56 << lowest << highest << qint64(-1);
        QTest::addRow("2^63") << 9223372036854775808.0 << lowest << highest << qint64(-1);
        QTest::addRow("-2^63 (the lowest qint64)")
            << -9223372036854775808.0 << lowest << qint64(0) << lowest;
        QTest::addRow("2^62") << 4611686018427387904.0 << qint64(0) << highest
                              << qint64(4611686018427387904);
        QTest::addRow("2^53 + 2 past a 2^53 limit")
            << 9007199254740994.0 << qint64(0) << maxExactJsonInteger << qint64(-1);
    }
    void wholeNumbersAreChecked()
    {
        QFETCH(double, value);
        QFETCH(qint64, min);
        QFETCH(qint64, max);
        QFETCH(qint64, expected);
        const std::optional<qint64> got = wholeNumberIn(value, min, max);
        if (expected == -1)
            QVERIFY2(!got, qPrintable(QString::number(got.value_or(0))));
        else
            QCOMPARE(got, std::optional<qint64>(expected));
    }

    void jsonRefusesWhatItDoesNotKnow_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown key")
            << uR"({"colour": 1})"_qs << u"colour"_qs << u"not a known setting"_qs;
        QTest::addRow("count as text")
            << uR"({"count": "3"})"_qs << u"count"_qs << u"must be a whole number"_qs;
        QTest::addRow("count fraction")
            << uR"({"count": 2.5})"_qs << u"count"_qs << u"must be a whole number"_qs;
        QTest::addRow("count huge")
            << uR"({"count": 1e300})"_qs << u"count"_qs << u"must be a whole number"_qs;
        QTest::addRow("count 3.3e56")
            << uR"({"count": 3.3e56})"_qs << u"count"_qs << u"must be a whole number"_qs;
        QTest::addRow("count -3.3e56")
            << uR"({"count": -3.3e56})"_qs << u"count"_qs << u"must be a whole number"_qs;
        QTest::addRow("count 2^63") << uR"({"count": 9223372036854775808})"_qs << u"count"_qs
                                    << u"must be a whole number"_qs;
        QTest::addRow("count negative")
            << uR"({"count": -4})"_qs << u"count"_qs << u"must be between"_qs;
        QTest::addRow("seed 3.3e56")
            << uR"({"seed": 3.3e56})"_qs << u"seed"_qs << u"must be a whole number from 0"_qs;
        QTest::addRow("seed negative")
            << uR"({"seed": -1})"_qs << u"seed"_qs << u"must be a whole number from 0"_qs;
        QTest::addRow("size bool")
            << uR"({"size": true})"_qs << u"size"_qs << u"must be a finite number (got true)"_qs;
        QTest::addRow("shape number")
            << uR"({"shape": 2})"_qs << u"shape"_qs << u"must be circle, square or star"_qs;
        QTest::addRow("marks object")
            << uR"({"marks": {}})"_qs << u"marks"_qs << u"must be a list of whole numbers"_qs;
        QTest::addRow("cross object") << uR"({"crosses": [{"position": 1}]})"_qs << u"crosses"_qs
                                      << u"such as [\"35@100\"]"_qs;
        QTest::addRow("too many notes")
            << uR"({"notes": ["a", "b", "c"]})"_qs << u"notes"_qs << u"takes at most 2 values"_qs;
    }
    void jsonRefusesWhatItDoesNotKnow()
    {
        QFETCH(QString, json);
        QFETCH(QString, key);
        QFETCH(QString, message);
        Sample s;
        const FieldProblem problem =
            readJson(Sample::fields(), QJsonDocument::fromJson(json.toUtf8()).object(), &s);
        QCOMPARE(problem.key, key);
        QVERIFY2(problem.message.contains(message), qPrintable(problem.message));
    }

    void commandLineOptions()
    {
        Sample s;
        QVERIFY(!parseArgs({u"--shape"_qs, u"square"_qs, u"--count"_qs, u"4"_qs, u"--filled"_qs,
                            u"--outlined"_qs, u"false"_qs, u"--note"_qs, u"a"_qs, u"--note"_qs,
                            u"b"_qs},
                           &s));
        QCOMPARE(s.shape, Shape::Square);
        QCOMPARE(s.count, 4);
        QVERIFY(s.filled);
        QVERIFY(!s.outlined);
        QCOMPARE(s.notes, (QStringList{u"a"_qs, u"b"_qs}));

        // A switch can be turned off again (a session turned it on).
        Sample on;
        on.filled = true;
        QVERIFY(!parseArgs({u"--no-filled"_qs}, &on));
        QVERIFY(!on.filled);
        QCOMPARE(parseArgs({u"--filled"_qs, u"--no-filled"_qs}, &on).message,
                 u"and --no-filled cannot both be given"_qs);

        Sample t;
        FieldProblem p = parseArgs({u"--points"_qs, u"6"_qs}, &t);
        QCOMPARE(describe(Sample::fields(), p, FieldNaming::Flag),
                 u"--points does not apply to test --shape circle"_qs);
        p = parseArgs({u"--shape"_qs, u"star"_qs}, &t);
        QCOMPARE(describe(Sample::fields(), p, FieldNaming::Flag),
                 u"--points is required with test --shape star"_qs);
        // A star that came from a session brings its points: nothing is required of the
        // command line then.
        Sample star;
        star.shape = Shape::Star;
        QVERIFY(!parseArgs({u"--count"_qs, u"2"_qs}, &star));
        QCOMPARE(star.points, 5);
    }

    void helpIsGeneratedFromTheTable()
    {
        OptionSet options;
        options.add(Sample::fields(), u"samples"_qs);
        QCommandLineParser parser;
        options.addTo(parser);
        const QString help = parser.helpText();
        for (const Field<Sample> &f : Sample::fields())
            QVERIFY2(help.contains(QStringLiteral("--") + QString::fromUtf8(f.flag)), f.flag);
        QVERIFY(help.contains(u"samples: How many. Between 1 and 100. Default 3."));
        QVERIFY(help.contains(u"Required with star."));
        QVERIFY(help.contains(u"--no-filled"));
        QVERIFY(!help.contains(u"--no-outlined")); // true by default: it takes a value instead
    }

    void flagRenames()
    {
        const FlagRenames renames = {{u"count"_qs, u"n"_qs}, {u"title"_qs, QString()}};
        OptionSet options;
        options.add(Sample::fields(), QString(), renames);
        QCommandLineParser parser;
        options.addTo(parser);
        QVERIFY(parser.parse({u"test"_qs, u"--n"_qs, u"9"_qs}));
        Sample s;
        QVERIFY(!readOptions(Sample::fields(), parser, &s, QString(), renames));
        QCOMPARE(s.count, 9);
        QVERIFY(!parser.helpText().contains(u"--title"));
        QVERIFY(!parser.parse({u"test"_qs, u"--title"_qs, u"x"_qs}));
    }

    void rangeProblemAndSummary()
    {
        Sample s;
        QVERIFY(!rangeProblem(Sample::fields(), s));
        s.count = 1000; // set in code, bypassing the parser
        const FieldProblem p = rangeProblem(Sample::fields(), s);
        QCOMPARE(p.key, u"count"_qs);
        QCOMPARE(describe(Sample::fields(), p, FieldNaming::Label),
                 u"Count must be between 1 and 100 (got 1000)"_qs);
        s.count = 3;
        s.size = 2.0;
        QCOMPARE(fieldSummary(Sample::fields(), s), u"size 2"_qs);
    }

    // A divisor that may be negative (llama3's low_freq_factor): every number of the range but 0.
    void nonZeroRange()
    {
        constexpr RealRange divisor{-10.0, 10.0, false, false, true};
        QVERIFY(divisor.contains(-10.0));
        QVERIFY(divisor.contains(-1e-300));
        QVERIFY(divisor.contains(10.0));
        QVERIFY(!divisor.contains(0.0));
        QVERIFY(!divisor.contains(-0.0));
        QVERIFY(!divisor.contains(10.5));
        QCOMPARE(divisor.describe(), u"between -10 and 10, and not 0"_qs);
        constexpr RealRange open{0.0, std::numeric_limits<double>::max(), true, false, true};
        QCOMPARE(open.describe(), u"greater than 0"_qs); // 0 is outside already
    }

    // A help sentence quoting a constant (helptext.h) is built at compile time: the digits of
    // the whole number between the two parts, and nothing after the closing text.
    void helpQuotesAConstant()
    {
        static constexpr auto one = helpQuoting("(0: ", 1.0, ").");
        static constexpr auto zero = helpQuoting("", 0.0, "");
        static constexpr auto big = helpQuoting("up to ", 999999999999999.0, " rows");
        static_assert(one[0] == '(' && one[4] == '1' && one[6] == '.' && one[7] == '\0');
        QCOMPARE(QLatin1String(one.data()), QLatin1String("(0: 1)."));
        QCOMPARE(QLatin1String(zero.data()), QLatin1String("0"));
        QCOMPARE(QLatin1String(helpQuoting("ends at ", 32.0, ".").data()),
                 QLatin1String("ends at 32."));
        QCOMPARE(QLatin1String(helpQuoting("", 1048576.0, "").data()), QLatin1String("1048576"));
        QCOMPARE(QLatin1String(big.data()), QLatin1String("up to 999999999999999 rows"));
        // Not a whole number from 0 to 10^15: refused (at compile time where constexpr).
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, helpQuoting("", 2.5, ""));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, helpQuoting("", -1.0, ""));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, helpQuoting("", 1e15, ""));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 helpQuoting("", std::numeric_limits<double>::quiet_NaN(), ""));
    }
};

QTEST_GUILESS_MAIN(TestFields)
#include "tst_fields.moc"
