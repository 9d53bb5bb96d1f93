// Keras TextVectorization defaults: standardisation, whitespace split, vocabulary order, ids.
#include "testutil.h"

#include "text/textvectorizer.h"

using namespace pe;

class TestTextVectorizer : public QObject
{
    Q_OBJECT

private slots:
    // Seed 001: max_tokens=10, output_sequence_length=5.
    void seed001VocabularyAndIds()
    {
        TextVectorizer vectorizer(10, 5);
        vectorizer.adapt({QStringLiteral("I am a robot"), QStringLiteral("you too robot")});
        const QStringList expected = {QString(),
                                      QStringLiteral("[UNK]"),
                                      QStringLiteral("robot"),
                                      QStringLiteral("you"),
                                      QStringLiteral("too"),
                                      QStringLiteral("i"),
                                      QStringLiteral("am"),
                                      QStringLiteral("a")};
        QCOMPARE(vectorizer.vocabulary(), expected);
        QCOMPARE(vectorizer.vectorize(QStringLiteral("I am a robot")),
                 (std::vector<qint64>{5, 6, 7, 2, 0}));
        QCOMPARE(vectorizer.vectorize(QStringLiteral("you too robot")),
                 (std::vector<qint64>{3, 4, 2, 0, 0}));
    }

    void standardize_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        QTest::addRow("case") << u"Hello WORLD"_qs << u"hello world"_qs;
        QTest::addRow("punctuation")
            << u"Hi, there! (yes) \"no\" it's a-b_c"_qs << u"hi there yes no its abc"_qs;
        QTest::addRow("every stripped char")
            << u"a!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~'b"_qs << u"ab"_qs;
        QTest::addRow("digits kept") << u"GPT-4 has 1.8T"_qs << u"gpt4 has 18t"_qs;
        // tf.strings.lower without an encoding lower-cases ASCII only.
        QTest::addRow("non-ascii kept") << u"ÇA VA? Éte naïve"_qs << u"Ça va Éte naïve"_qs;
    }
    void standardize()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromUtf8(standardizeUtf8(input.toUtf8())), expected);
    }

    void splitsOnAnyAsciiWhitespace()
    {
        QCOMPARE(tokenize(u"  one\ttwo\nthree\r\n  four  "_qs),
                 (QStringList{u"one"_qs, u"two"_qs, u"three"_qs, u"four"_qs}));
        QVERIFY(tokenize(u" \t\n"_qs).isEmpty());
        QVERIFY(tokenize(u"?!..."_qs).isEmpty());
    }

    // Count descending, ties by token descending (byte order), after '' and '[UNK]'.
    void vocabularyOrder()
    {
        TextVectorizer vectorizer(100, 4);
        vectorizer.adapt({u"b a c b"_qs, u"c d a b"_qs});
        // b: 3, a: 2, c: 2, d: 1
        QCOMPARE(vectorizer.vocabulary(),
                 (QStringList{QString(), u"[UNK]"_qs, u"b"_qs, u"c"_qs, u"a"_qs, u"d"_qs}));
    }

    void maxTokensCutsTheVocabulary()
    {
        TextVectorizer vectorizer(4, 6);
        vectorizer.adapt({u"x y y z z z"_qs});
        QCOMPARE(vectorizer.vocabulary(), (QStringList{QString(), u"[UNK]"_qs, u"z"_qs, u"y"_qs}));
        // Words cut from the vocabulary become [UNK] (1).
        QCOMPARE(vectorizer.vectorize(u"x y z w"_qs), (std::vector<qint64>{1, 3, 2, 1, 0, 0}));
    }

    void truncatesLongPhrases()
    {
        TextVectorizer vectorizer(50, 3);
        vectorizer.adapt({u"one two three four five"_qs});
        QCOMPARE(vectorizer.vectorize(u"five four three two one"_qs).size(), std::size_t(3));
        const auto ids = vectorizer.vectorize(u"one two three four five"_qs);
        QCOMPARE(vectorizer.vocabulary().at(int(ids[0])), u"one"_qs);
        QCOMPARE(vectorizer.vocabulary().at(int(ids[2])), u"three"_qs);
    }

    void nonAsciiTokens()
    {
        TextVectorizer vectorizer(20, 4);
        vectorizer.adapt({u"Ça va très bien"_qs, u"très"_qs});
        QCOMPARE(vectorizer.vocabulary().at(2), u"très"_qs);
        QVERIFY(vectorizer.vocabulary().contains(u"Ça"_qs));
        const auto ids = vectorizer.vectorize(u"très ÇA"_qs); // "ÇA" -> "Ça"
        QCOMPARE(ids[0], qint64(2));
        QCOMPARE(vectorizer.vocabulary().at(int(ids[1])), u"Ça"_qs);
    }
};

QTEST_GUILESS_MAIN(TestTextVectorizer)
#include "tst_textvectorizer.moc"
