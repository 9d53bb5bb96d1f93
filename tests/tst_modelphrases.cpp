// The Phrases page with the open model's own tokenizer (issue 28 item 4), driven as a user does:
// File > Open model on tests/data/models (transformers' folders), the tokenizer chosen in the
// page's combo box, phrases typed. Known answers: ref/phrases.json's ids and tokens and
// transformers' layer-0 attention arrays (ref/attn0_N.npy); the normalized text from the
// normalizers' documented rules (Llama's Prepend "▁" then Replace " " by "▁"). Also: the choice
// is an undo step and saved in sessions, a long phrase is cut with a notice, and without a model
// the page says how to get one, and a folder without tokenizer.json or an ALiBi model is named
// as such.
#include "testutil.h"
#include "windowtestutil.h"

#include "compute/computescheduler.h"
#include "dialogs/viewhelp.h"
#include "figures/lessonexporter.h"
#include "figures/qcpinclude.h"
#include "formats/npyfile.h"
#include "views/exportactions.h"
#include "views/fileactions.h"
#include "views/modelphraseview.h"
#include "views/phraseview.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

using namespace pe;
using namespace pe::test;

namespace {

constexpr double attentionTolerance = 1e-4; // absolute, as for the command line

QString modelFolder(const char *name)
{
    return QFINDTESTDATA(QStringLiteral("data/models/") + QLatin1String(name));
}

QJsonObject phraseCase(const char *model, int index)
{
    QFile file(modelFolder(model) + QStringLiteral("/ref/phrases.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QLatin1String("cases"))
        .toArray()
        .at(index)
        .toObject();
}

std::vector<float> readNpy(const QString &path)
{
    NpyFile file;
    QString error;
    std::vector<float> values;
    if (!file.open(path, &error) || !file.read(&values, &error))
        qFatal("%s", qPrintable(error));
    return values;
}

bool waitSettled(MainWindow &window, int timeoutMs = 60000)
{
    for (int round = 0; round < 2; ++round) {
        if (!QTest::qWaitFor([&] { return window.isSettled(); }, timeoutMs))
            return false;
        QTest::qWait(30);
    }
    return true;
}

bool openModel(MainWindow *window, const QString &source)
{
    QSignalSpy opened(FileActions::of(window), &FileActions::modelOpened);
    FileActions::of(window)->openModel(source);
    return opened.wait(30000) && opened.at(0).at(0).toString().isEmpty();
}

// Picks `text` in a combo box with the keyboard, as a user does.
void choose(QComboBox *combo, const QString &text)
{
    const int index = combo->findText(text);
    QVERIFY2(index >= 0, qPrintable(text));
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    for (int i = 0; i < index; ++i)
        QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentIndex(), index);
}

// The colour maps of a plot, in the order they were added.
QList<QCPColorMap *> colorMaps(QCustomPlot *plot)
{
    QList<QCPColorMap *> maps;
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto *map = qobject_cast<QCPColorMap *>(plot->plottable(i)))
            maps.append(map);
    return maps;
}

} // namespace

class TestModelPhrases : public QObject
{
    Q_OBJECT

private slots:
    void textVectorizationByDefault();
    void modelTokensShown();
    void specialTokenReadableInBothThemes();
    void byteLevelSpacesShown();
    void settingsFollowTheTokenizer();
    void attentionEqualsTransformers();
    void choiceIsUndoableAndSaved();
    void longPhraseCapped();
    void withoutAModel();
    void modelsItCannotDoSaySo();
    void unappliedTokenizerSettingsSaid();
    void tokenizerAloneShowsItsTokens_data();
    void tokenizerAloneShowsItsTokens();
    void idsOutsideTheRowsStillShowTokens();
    void layerViewExportsFromTheWindow();

private:
    // A window on the Phrases page with llama-tiny open, its tokenizer chosen, and phrases A and
    // B set to `a` and `b` by typing them.
    std::unique_ptr<MainWindow> modelWindow(const char *model, const QString &a, const QString &b);
    static ModelPhraseView *modelView(MainWindow *window)
    {
        return window->findChild<ModelPhraseView *>();
    }
};

std::unique_ptr<MainWindow> TestModelPhrases::modelWindow(const char *model, const QString &a,
                                                          const QString &b)
{
    auto window = openWindow();
    window->state()->setPage(Page::Phrases);
    if (!openModel(window.get(), modelFolder(model)))
        qFatal("cannot open %s", model);
    auto *combo = window->findChild<QComboBox *>(QStringLiteral("phraseTokenizer"));
    choose(combo, QStringLiteral("The model's own"));
    PhraseView *view = window->phraseView();
    typeInto(view->phraseEdit(window->state()->compareA()), a);
    typeInto(view->phraseEdit(window->state()->compareB()), b);
    if (!waitSettled(*window))
        qFatal("the window did not settle");
    return window;
}

void TestModelPhrases::textVectorizationByDefault()
{
    auto window = openWindow();
    auto *combo = window->findChild<QComboBox *>(QStringLiteral("phraseTokenizer"));
    QVERIFY(combo);
    QCOMPARE(combo->currentText(), QStringLiteral("TextVectorization (the tutorial's)"));
    QCOMPARE(window->state()->phraseSource().tokenizer, PhraseTokenizer::TextVectorization);
    auto *stack = window->findChild<QStackedWidget *>(QStringLiteral("phraseFigureStack"));
    QCOMPARE(stack->currentIndex(), 0); // the tutorial's grid
    QVERIFY(waitSettled(*window));
    QVERIFY(!window->scheduler()->phraseModel()); // nothing of a model is computed
}

void TestModelPhrases::modelTokensShown()
{
    const QJsonObject a = phraseCase("llama-tiny", 0); // "The cat sat on the mat."
    const QJsonObject b = phraseCase("llama-tiny", 2); // "same same same ..."
    auto window = modelWindow("llama-tiny", a.value(QLatin1String("text")).toString(),
                              b.value(QLatin1String("text")).toString());
    auto *stack = window->findChild<QStackedWidget *>(QStringLiteral("phraseFigureStack"));
    QCOMPARE(stack->currentIndex(), 1);
    ModelPhraseView *view = modelView(window.get());
    QVERIFY2(view->info().contains(QLatin1String("LlamaForCausalLM")), qPrintable(view->info()));
    QVERIFY2(view->notice().isEmpty(), qPrintable(view->notice()));
    for (int p = 0; p < 2; ++p) {
        const QJsonObject expected = p == 0 ? a : b;
        const QJsonArray ids = expected.value(QLatin1String("ids")).toArray();
        const QJsonArray tokens = expected.value(QLatin1String("tokens")).toArray();
        QListWidget *list = view->tokenList(p);
        QVERIFY(list->isVisible());
        QCOMPARE(list->count(), ids.size());
        // Hugging Face's tokens, each "▁" drawn as the visible space "␣" (issue 38).
        for (int t = 0; t < list->count(); ++t)
            QCOMPARE(list->item(t)->text(),
                     QStringLiteral("%1\n%2")
                         .arg(tokens[t].toString().replace(QChar(0x2581), QChar(0x2423)))
                         .arg(ids[t].toInteger()));
    }
    // Hover: the BOS is the post-processor's; "The▁" covers "The " and the normalizer
    // (Prepend "▁", Replace " " by "▁") made "▁The▁cat▁sat▁on▁the▁mat.".
    const QString bos = view->tokenList(0)->item(0)->toolTip();
    QVERIFY2(bos.contains(QLatin1String("special token")), qPrintable(bos));
    const QString the = view->tokenList(0)->item(2)->toolTip();
    QVERIFY2(the.contains(QString::fromUtf8("“The␣” (id 808)")), qPrintable(the));
    QVERIFY2(the.contains(QString::fromUtf8("raw token: “The▁”")), qPrintable(the));
    QVERIFY2(the.contains(QString::fromUtf8("offsets [0, 4) of the phrase: “The ”")),
             qPrintable(the));
    QVERIFY2(the.contains(QString::fromUtf8("“▁The▁cat▁sat▁on▁the▁mat.”")), qPrintable(the));
}

namespace {

// WCAG's relative luminance and contrast ratio, from sRGB.
double luminance(const QColor &c)
{
    const auto channel = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

// Issue 46: in the dark theme the special token's cell (the BOS) was near-white under the dark
// theme's near-white text. In either theme, and after switching, its text reads against it
// (WCAG's 4.5:1) and the cell stands out from the list's background.
void TestModelPhrases::specialTokenReadableInBothThemes()
{
    auto window = modelWindow("llama-tiny", QStringLiteral("The cat sat on the mat."),
                              QStringLiteral("the mat"));
    QListWidget *list = modelView(window.get())->tokenList(0);
    QVERIFY(list->count() > 1);
    QVERIFY(list->item(0)->toolTip().contains(QLatin1String("special token")));
    for (Theme theme : {Theme::Dark, Theme::Light, Theme::Dark}) {
        window->state()->setTheme(theme);
        QCoreApplication::processEvents();
        const QListWidgetItem *bos = list->item(0);
        QVERIFY(bos->background().style() != Qt::NoBrush);
        const QColor cell = bos->background().color();
        const QColor text = bos->foreground().style() != Qt::NoBrush
                                ? bos->foreground().color()
                                : list->palette().color(QPalette::Text);
        const QColor page = list->palette().color(QPalette::Base);
        QVERIFY2(contrast(cell, text) >= 4.5, qPrintable(QStringLiteral("%1 on %2: %3")
                                                             .arg(text.name(), cell.name())
                                                             .arg(contrast(cell, text))));
        QVERIFY2(
            contrast(cell, page) >= 1.3,
            qPrintable(QStringLiteral("cell %1 on the list's %2").arg(cell.name(), page.name())));
    }
}

// GPT-2's "Ġ" reads as a visible space, not as a faint "G" (issue 38): in the token strip, its
// tooltip (with the raw token) and the attention figure's axis labels.
void TestModelPhrases::byteLevelSpacesShown()
{
    const QJsonObject a = phraseCase("gpt2-tiny", 0); // "The cat sat on the mat."
    const QJsonObject b = phraseCase("gpt2-tiny", 1);
    auto window = modelWindow("gpt2-tiny", a.value(QLatin1String("text")).toString(),
                              b.value(QLatin1String("text")).toString());
    ModelPhraseView *view = modelView(window.get());
    const QJsonArray tokens = a.value(QLatin1String("tokens")).toArray();
    QListWidget *list = view->tokenList(0);
    QCOMPARE(list->count(), tokens.size());
    QStringList expected;
    for (int t = 0; t < list->count(); ++t) {
        // bytes_to_unicode: "Ġ" (U+0120) is the byte 0x20, a space.
        expected.append(tokens[t].toString().replace(QChar(0x0120), QChar(0x2423)));
        QCOMPARE(list->item(t)->text().section(QLatin1Char('\n'), 0, 0), expected.last());
    }
    QVERIFY(expected.contains(QString::fromUtf8("␣mat")));
    const QString mat = list->item(int(expected.indexOf(QString::fromUtf8("␣mat"))))->toolTip();
    QVERIFY2(mat.contains(QString::fromUtf8("“␣mat”")), qPrintable(mat));
    QVERIFY2(mat.contains(QString::fromUtf8("raw token: “Ġmat”")), qPrintable(mat));
    QStringList labels;
    QCustomPlot *plot = view->attentionPlot();
    for (int r = 0; r < plot->axisRectCount(); ++r)
        for (QCPAxis *axis : plot->axisRect(r)->axes())
            if (auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>())
                for (const QString &label : ticker->ticks())
                    labels.append(label);
    // Labels may be thinned to fit: some of them show the mark, none the byte-level letter.
    QVERIFY2(labels.join(QString()).contains(QChar(0x2423)), qPrintable(labels.join(u' ')));
    for (const QString &label : std::as_const(labels))
        QVERIFY2(!label.contains(QChar(0x0120)), qPrintable(label));
}

// The page shows only what applies to the tokenizer chosen (issue 38): TextVectorization's
// settings, seed, pages and vocabulary go with the model's own tokenizer and come back.
void TestModelPhrases::settingsFollowTheTokenizer()
{
    auto window = openWindow();
    window->state()->setPage(Page::Phrases);
    auto *combo = window->findChild<QComboBox *>(QStringLiteral("phraseTokenizer"));
    QVERIFY(combo);
    const QStringList tutorialOnly{
        QStringLiteral("phraseMaxTokens"), QStringLiteral("phraseSequenceLength"),
        QStringLiteral("phraseDims"),      QStringLiteral("phraseSeed"),
        QStringLiteral("reseed"),          QStringLiteral("vocabulary"),
        QStringLiteral("tokenIds")};
    const auto shown = [&](const QString &name) {
        auto *w = window->findChild<QWidget *>(name);
        return w && w->isVisibleTo(window.get());
    };
    for (const QString &name : tutorialOnly)
        QVERIFY2(shown(name), qPrintable(name));
    choose(combo, QStringLiteral("The model's own"));
    for (const QString &name : tutorialOnly)
        QVERIFY2(!shown(name), qPrintable(name));
    QVERIFY(shown(QStringLiteral("compareA")) && shown(QStringLiteral("compareB")));
    // F1 explains what is on screen: tokens, embeddings and attention, not TextVectorization.
    const QString help =
        viewHelpHtml(window->viewPages().current().viewsOnScreen(), *window->state());
    QVERIFY2(help.contains(QStringLiteral("Positions in attention")) &&
                 help.contains(QStringLiteral("hidden_states[0]")) &&
                 !help.contains(QStringLiteral("TextVectorization")),
             qPrintable(help));
    choose(combo, QStringLiteral("TextVectorization (the tutorial's)"));
    for (const QString &name : tutorialOnly)
        QVERIFY2(shown(name), qPrintable(name));
}

void TestModelPhrases::attentionEqualsTransformers()
{
    const QJsonObject a = phraseCase("llama-tiny", 1); // "I love positional encodings!"
    const QJsonObject b = phraseCase("llama-tiny", 7); // "the the the"
    auto window = modelWindow("llama-tiny", a.value(QLatin1String("text")).toString(),
                              b.value(QLatin1String("text")).toString());
    ModelPhraseView *view = modelView(window.get());
    const std::vector<float> ref = readNpy(modelFolder("llama-tiny") + QStringLiteral("/ref/") +
                                           a.value(QLatin1String("attn0")).toString());
    const qint64 n = a.value(QLatin1String("ids")).toArray().size();
    QCOMPARE(qint64(ref.size()), 4 * n * n);
    for (int head = 0; head < 4; ++head) {
        QSignalSpy updated(view, &ModelPhraseView::figuresUpdated);
        choose(view->headChoice(), QStringLiteral("head %1").arg(head));
        QVERIFY(updated.count() >= 1);
        const QList<QCPColorMap *> maps = colorMaps(view->attentionPlot());
        QCOMPARE(maps.size(), 3); // with positions, without, their difference
        for (qint64 i = 0; i < n; ++i)
            for (qint64 j = 0; j < n; ++j) {
                const double with = maps[0]->data()->cell(int(j), int(i));
                const double expected = ref[std::size_t((head * n + i) * n + j)];
                PE_COMPARE_NEAR(with, expected, attentionTolerance);
                // Without positions: a causal softmax row all the same, and the difference map
                // is the two subtracted.
                const double without = maps[1]->data()->cell(int(j), int(i));
                PE_COMPARE_NEAR(maps[2]->data()->cell(int(j), int(i)), with - without, 1e-6);
                if (j > i)
                    PE_COMPARE_NEAR(without, 0.0, 0.0);
            }
    }
    // Phrase B, with the mean of the heads: transformers' four heads averaged.
    choose(view->phraseChoice(), QStringLiteral("B"));
    choose(view->headChoice(), QStringLiteral("mean"));
    const std::vector<float> refB = readNpy(modelFolder("llama-tiny") + QStringLiteral("/ref/") +
                                            b.value(QLatin1String("attn0")).toString());
    const qint64 m = b.value(QLatin1String("ids")).toArray().size();
    const QList<QCPColorMap *> maps = colorMaps(view->attentionPlot());
    QCOMPARE(maps.at(0)->data()->keySize(), int(m));
    for (qint64 i = 0; i < m; ++i)
        for (qint64 j = 0; j < m; ++j) {
            double mean = 0;
            for (qint64 h = 0; h < 4; ++h)
                mean += refB[std::size_t((h * m + i) * m + j)] / 4.0;
            PE_COMPARE_NEAR(maps[0]->data()->cell(int(j), int(i)), mean, attentionTolerance);
        }
}

void TestModelPhrases::choiceIsUndoableAndSaved()
{
    auto window = openWindow();
    QVERIFY(openModel(window.get(), modelFolder("llama-tiny")));
    window->undoStack()->clear();
    auto *combo = window->findChild<QComboBox *>(QStringLiteral("phraseTokenizer"));
    choose(combo, QStringLiteral("The model's own"));
    QCOMPARE(window->state()->phraseSource().tokenizer, PhraseTokenizer::Model);
    QCOMPARE(window->undoStack()->count(), 1);
    QVERIFY2(window->undoStack()->text(0).contains(QLatin1String("Tokenizer")),
             qPrintable(window->undoStack()->text(0)));
    const QJsonObject phrases =
        window->state()->toJson().value(QLatin1String("phrases")).toObject();
    QCOMPARE(phrases.value(QLatin1String("tokenizer")).toString(), QStringLiteral("model"));
    QCOMPARE(phrases.value(QLatin1String("model")).toString(),
             QFileInfo(modelFolder("llama-tiny")).absoluteFilePath());
    window->undoStack()->undo();
    QCOMPARE(window->state()->phraseSource().tokenizer, PhraseTokenizer::TextVectorization);
    QCOMPARE(combo->currentIndex(), 0);
    // A session brings it back.
    ExplorerState restored;
    QString error;
    QJsonObject session = window->state()->toJson();
    session.insert(QStringLiteral("phrases"), phrases);
    QVERIFY2(restored.applyJson(session, &error), qPrintable(error));
    QCOMPARE(restored.phraseSource().tokenizer, PhraseTokenizer::Model);
    QCOMPARE(restored.phraseSource().model, phrases.value(QLatin1String("model")).toString());
    // A bad value is refused, naming it.
    QJsonObject bad = phrases;
    bad.insert(QStringLiteral("tokenizer"), QStringLiteral("sentencepiece"));
    session.insert(QStringLiteral("phrases"), bad);
    QVERIFY(!restored.applyJson(session, &error));
    QVERIFY2(error.contains(QLatin1String("tokenizer")), qPrintable(error));
}

// GPT-2's table holds 256 positions; the window cuts a phrase of more at 256 and says so.
void TestModelPhrases::longPhraseCapped()
{
    QStringList words;
    for (int i = 0; i < 300; ++i)
        words << QStringLiteral("cat");
    auto window =
        modelWindow("gpt2-tiny", words.join(QLatin1Char(' ')), QStringLiteral("the the the"));
    ModelPhraseView *view = modelView(window.get());
    QVERIFY2(view->notice().contains(QLatin1String("the first 256 are shown")),
             qPrintable(view->notice()));
    QCOMPARE(view->tokenList(0)->count(), 256);
    QCOMPARE(colorMaps(view->attentionPlot()).at(0)->data()->keySize(), 256);
}

void TestModelPhrases::withoutAModel()
{
    auto window = openWindow();
    window->state()->setPage(Page::Phrases);
    auto *combo = window->findChild<QComboBox *>(QStringLiteral("phraseTokenizer"));
    choose(combo, QStringLiteral("The model's own"));
    QVERIFY(waitSettled(*window));
    ModelPhraseView *view = modelView(window.get());
    QVERIFY2(view->notice().contains(QLatin1String("File > Open model")),
             qPrintable(view->notice()));
}

// gpt2-tiny copied twice: without its tokenizer.json, and with config.json's model_type made
// "bloom" (an ALiBi model, which layer 0 here does not compute). Each gets its message alone: the
// tokens and figures of the model before it are gone.
void TestModelPhrases::modelsItCannotDoSaySo()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = modelFolder("gpt2-tiny");
    const QString noTokenizer = dir.filePath(QStringLiteral("no-tokenizer"));
    const QString bloom = dir.filePath(QStringLiteral("bloom"));
    for (const QString &folder : {noTokenizer, bloom}) {
        QVERIFY(QDir().mkpath(folder));
        for (const char *name : {"config.json", "model.safetensors", "tokenizer.json"})
            if (folder != noTokenizer || QLatin1String(name) != QLatin1String("tokenizer.json"))
                QVERIFY(QFile::copy(source + QLatin1Char('/') + QLatin1String(name),
                                    folder + QLatin1Char('/') + QLatin1String(name)));
    }
    QFile config(bloom + QStringLiteral("/config.json"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QJsonObject json = QJsonDocument::fromJson(config.readAll()).object();
    config.close();
    json.insert(QStringLiteral("model_type"), QStringLiteral("bloom"));
    QVERIFY(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
    config.write(QJsonDocument(json).toJson());
    config.close();

    auto window = modelWindow("gpt2-tiny", QStringLiteral("the cat"), QStringLiteral("a dog"));
    ModelPhraseView *view = modelView(window.get());
    QVERIFY(view->figureTabs()->isVisible());
    const struct
    {
        QString folder;
        QString says;
    } cases[] = {{noTokenizer, QStringLiteral("has no tokenizer.json")},
                 {bloom, QStringLiteral("ALiBi")}};
    for (const auto &c : cases) {
        setPhraseModel(window->state(), c.folder);
        QVERIFY(waitSettled(*window));
        QVERIFY2(view->notice().contains(c.says), qPrintable(view->notice()));
        QVERIFY(!view->figureTabs()->isVisible());
        QVERIFY(!view->tokenList(0)->isVisible());
        QVERIFY(view->info().isEmpty());
    }
    // Back to a model it computes: the figures return.
    setPhraseModel(window->state(), source);
    QVERIFY(waitSettled(*window));
    QVERIFY2(view->notice().isEmpty(), qPrintable(view->notice()));
    QVERIFY(view->figureTabs()->isVisible());
    QVERIFY(view->tokenList(0)->count() > 0);
}

// A tokenizer.json that sets padding (as sentence-transformers' files do): the tokens are made
// without it, as transformers' tokenizer(text) makes them, and the view says so (issue 37).
void TestModelPhrases::unappliedTokenizerSettingsSaid()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString source = modelFolder("gpt2-tiny");
    const QString padded = dir.filePath(QStringLiteral("padded"));
    QVERIFY(QDir().mkpath(padded));
    for (const char *name : {"config.json", "model.safetensors"})
        QVERIFY(QFile::copy(source + QLatin1Char('/') + QLatin1String(name),
                            padded + QLatin1Char('/') + QLatin1String(name)));
    QFile tokenizer(source + QStringLiteral("/tokenizer.json"));
    QVERIFY(tokenizer.open(QIODevice::ReadOnly));
    QJsonObject json = QJsonDocument::fromJson(tokenizer.readAll()).object();
    // Fixed padding to 64 tokens: applied, it would lengthen every phrase (BatchLongest pads a
    // single phrase by nothing, so could not show it was left out).
    json.insert(QStringLiteral("padding"), QJsonObject{{QStringLiteral("strategy"),
                                                        QJsonObject{{QStringLiteral("Fixed"), 64}}},
                                                       {QStringLiteral("pad_id"), 0}});
    QFile out(padded + QStringLiteral("/tokenizer.json"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(json).toJson());
    out.close();

    auto window = modelWindow("gpt2-tiny", QStringLiteral("the cat"), QStringLiteral("a dog"));
    ModelPhraseView *view = modelView(window.get());
    QVERIFY2(!view->info().contains(QLatin1String("not applied")), qPrintable(view->info()));
    const int tokens = view->tokenList(0)->count();
    QVERIFY(tokens > 0 && tokens < 64);
    setPhraseModel(window->state(), padded);
    QVERIFY(waitSettled(*window));
    QVERIFY2(view->info().contains(QLatin1String("padding settings are not applied")),
             qPrintable(view->info()));
    QCOMPARE(view->tokenList(0)->count(), tokens); // the same tokens: no padding
}

namespace {

// Hugging Face's answers for GPT-2's published tokenizer (tests/data/tokenizers-real).
QJsonObject gpt2Case(int index)
{
    QFile file(QFINDTESTDATA(QStringLiteral("data/tokenizers-real/gpt2/cases.json")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QLatin1String("cases"))
        .toArray()
        .at(index)
        .toObject();
}

// The list shows the case's tokens ("Ġ" drawn "␣") over its ids, with special tokens.
void compareTokens(QListWidget *list, const QJsonObject &expected)
{
    const QJsonArray ids = expected.value(QLatin1String("ids_special")).toArray();
    const QJsonArray tokens = expected.value(QLatin1String("tokens_special")).toArray();
    QVERIFY(list->isVisible());
    QCOMPARE(list->count(), ids.size());
    for (int t = 0; t < list->count(); ++t)
        QCOMPARE(list->item(t)->text(),
                 QStringLiteral("%1\n%2")
                     .arg(tokens[t].toString().replace(QChar(0x120), QChar(0x2423)))
                     .arg(ids[t].toInteger()));
}

} // namespace

void TestModelPhrases::tokenizerAloneShowsItsTokens_data()
{
    QTest::addColumn<bool>("folder");
    QTest::newRow("tokenizer.json") << false;
    QTest::newRow("folder with tokenizer.json only") << true;
}

// Issue 46: File > Open model on a published tokenizer.json said it "has no layer map". Opened
// as a user does (openModelInWindow, the entry of Open model, drops and --model), it is the
// Phrases page's tokenizer: its tokens are Hugging Face's, a notice says what needs the weights,
// and no figure is drawn empty.
void TestModelPhrases::tokenizerAloneShowsItsTokens()
{
    QFETCH(bool, folder);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString published =
        QFINDTESTDATA(QStringLiteral("data/tokenizers-real/gpt2/tokenizer.json"));
    QVERIFY(QFile::copy(published, dir.filePath(QStringLiteral("tokenizer.json"))));
    const QString source = folder ? dir.path() : dir.filePath(QStringLiteral("tokenizer.json"));
    auto window = openWindow();
    const EncodingSpec spec = window->state()->spec();
    QString error;
    QVERIFY2(openModelInWindow(window.get(), source, &error), qPrintable(error));
    QCOMPARE(window->state()->page(), Page::Phrases);
    QCOMPARE(window->state()->phraseSource().tokenizer, PhraseTokenizer::Model);
    QVERIFY(window->state()->spec() == spec); // no layer map: the encoding is as it was
    const QJsonObject a = gpt2Case(0), b = gpt2Case(1);
    PhraseView *view = window->phraseView();
    typeInto(view->phraseEdit(window->state()->compareA()),
             a.value(QLatin1String("text")).toString());
    typeInto(view->phraseEdit(window->state()->compareB()),
             b.value(QLatin1String("text")).toString());
    QVERIFY(waitSettled(*window));
    ModelPhraseView *model = modelView(window.get());
    QVERIFY(model->isVisible());
    compareTokens(model->tokenList(0), a);
    compareTokens(model->tokenList(1), b);
    QVERIFY2(model->notice().contains(QLatin1String("Tokens only")) &&
                 model->notice().contains(QLatin1String("config.json")) &&
                 model->notice().contains(QLatin1String("safetensors")),
             qPrintable(model->notice()));
    QVERIFY2(!model->notice().contains(QLatin1String("layer map")), qPrintable(model->notice()));
    QVERIFY2(model->info().contains(QLatin1String("without weights")), qPrintable(model->info()));
    QVERIFY(!model->figureTabs()->isVisible());
    QVERIFY(!model->phraseChoice()->isVisible());
    // The page's view is the tokens': what Export and Copy take, drawn and exported.
    QCOMPARE(model->currentView(), FigureView::ModelTokens);
    ExportActions *actions = ExportActions::of(window.get());
    QString figureError;
    QVERIFY2(!actions->currentFigure(&figureError).isNull(), qPrintable(figureError));
    const QString npy = dir.filePath(QStringLiteral("tokens.npy"));
    QVERIFY2(actions->exportCurrentData(npy, &figureError), qPrintable(figureError));
    QCOMPARE(readNpy(npy), (std::vector<float>{15496.0F, 995.0F}));
    // A lesson step of this state: the tokens view passes the step check, a view that needs
    // the weights is named with why.
    Lesson lesson;
    for (const char *name : {"tokens", "embeddings"})
        lesson.steps.append(LessonStep{.title = QLatin1String(name),
                                       .caption = {},
                                       .view = QLatin1String(name),
                                       .animation = std::nullopt,
                                       .state = window->state()->toJson()});
    QCOMPARE(lessonStepProblem(lesson, 0), QString());
    const QString refused = lessonStepProblem(lesson, 1);
    QVERIFY2(refused.contains(QLatin1String("the embeddings view")) &&
                 refused.contains(QLatin1String("config.json")),
             qPrintable(refused));
}

// A layer view's tab (issue 48 item 4): the pass runs when it is shown, and File > Export and
// Export data take that view, its figure and its numbers (every layer's attention of phrase A).
void TestModelPhrases::layerViewExportsFromTheWindow()
{
    QTemporaryDir dir;
    auto window = modelWindow("llama-tiny", QStringLiteral("The cat sat on the mat."),
                              QStringLiteral("On the mat the cat sat."));
    ModelPhraseView *model = modelView(window.get());
    QSignalSpy ready(window->scheduler(), &ComputeScheduler::forwardReady);
    model->figureTabs()->setCurrentIndex(3);
    QCOMPARE(model->currentView(), FigureView::LayerAttention);
    QVERIFY(ready.wait(60000));
    QVERIFY(waitSettled(*window));
    QCOMPARE(window->viewPages().current().figureViews(),
             QList<FigureView>{FigureView::LayerAttention});
    ExportActions *actions = ExportActions::of(window.get());
    QString error;
    QVERIFY2(!actions->currentFigure(&error).isNull(), qPrintable(error));
    const QString npy = dir.filePath(QStringLiteral("grid.npy"));
    QVERIFY2(actions->exportCurrentData(npy, &error), qPrintable(error));
    const std::shared_ptr<const ForwardViewResult> forward = model->forward();
    QVERIFY(forward);
    QCOMPARE(readNpy(npy), forward->attentions.values);
    QCOMPARE(qint64(forward->attentions.values.size()), forward->layers * forward->heads *
                                                            forward->phrase.tokens.size() *
                                                            forward->phrase.tokens.size());
}

// GPT-2's published tokenizer beside gpt2-tiny's config and weights (3,000 rows): the ids past
// the rows are named, and the tokens are still shown.
void TestModelPhrases::idsOutsideTheRowsStillShowTokens()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char *name : {"config.json", "model.safetensors"})
        QVERIFY(QFile::copy(modelFolder("gpt2-tiny") + QLatin1Char('/') + QLatin1String(name),
                            dir.filePath(QLatin1String(name))));
    QVERIFY(QFile::copy(QFINDTESTDATA(QStringLiteral("data/tokenizers-real/gpt2/tokenizer.json")),
                        dir.filePath(QStringLiteral("tokenizer.json"))));
    auto window = modelWindow("gpt2-tiny", gpt2Case(0).value(QLatin1String("text")).toString(),
                              gpt2Case(1).value(QLatin1String("text")).toString());
    ModelPhraseView *view = modelView(window.get());
    QVERIFY(view->figureTabs()->isVisible());
    QString error;
    QVERIFY2(openModelInWindow(window.get(), dir.path(), &error), qPrintable(error));
    QVERIFY(waitSettled(*window));
    QVERIFY2(view->notice().contains(QLatin1String("outside the model's 3000 token rows")),
             qPrintable(view->notice()));
    compareTokens(view->tokenList(0), gpt2Case(0));
    compareTokens(view->tokenList(1), gpt2Case(1));
    QVERIFY(!view->figureTabs()->isVisible());
}

QTEST_MAIN(TestModelPhrases)
#include "tst_modelphrases.moc"
