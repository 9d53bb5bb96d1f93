#include "dialogs/viewhelp.h"

#include "rope/ropetables.h"

#include <QStringList>

#include <cmath>
#include <numbers>

namespace pe {

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 6);
}

// A parameter as people write it: 500000, not the forms' shortest 5e+05.
QString parameter(double v)
{
    return QString::number(v, 'g', 12);
}

// The angular frequency of a phase column (radians per position): the plan's own fixed-point
// step, so the text shows what the backends computed with.
double columnOmega(const EncodingSpec &spec, qint64 column)
{
    const MatrixPlan plan = spec.plan();
    const auto *phases = std::get_if<PhaseColumnsPlan>(&plan);
    if (!phases || column < 0 || column >= qint64(phases->columns.size()))
        return 0.0;
    return 2.0 * std::numbers::pi *
           std::ldexp(double(phases->columns[std::size_t(column)].step), -64);
}

QString sinusoidalFormula(const SinusoidalScheme &s, qint64 dims)
{
    const QString base = parameter(s.base);
    const QString angle =
        QStringLiteral("<i>p</i> / %1<sup>2<i>i</i>/%2</sup>").arg(base).arg(dims);
    if (s.layout == Layout::Interleaved)
        return QStringLiteral("PE(<i>p</i>, 2<i>i</i>) = sin(%1), PE(<i>p</i>, 2<i>i</i> + 1) = "
                              "cos(%1)<br>(Vaswani et al.; base %2, <i>d</i> = %3)")
            .arg(angle, base)
            .arg(dims);
    return QStringLiteral("PE(<i>p</i>, <i>i</i>) = sin(%1), PE(<i>p</i>, %2 + <i>i</i>) = "
                          "cos(%1) for <i>i</i> &lt; %2 (the split layout: all sines, then all "
                          "cosines; base %3)")
        .arg(angle)
        .arg(dims / 2)
        .arg(base);
}

QString sinusoidalCell(const EncodingSpec &spec, const SinusoidalScheme &s, qint64 p, qint64 j,
                       double value)
{
    const qint64 d = spec.dims;
    const qint64 half = d / 2;
    const bool interleaved = s.layout == Layout::Interleaved;
    if (!interleaved && j >= 2 * half)
        return QStringLiteral("PE(%1, %2) = 0: the padding column of an odd d").arg(p).arg(j);
    const qint64 pair = interleaved ? j / 2 : (j < half ? j : j - half);
    const bool cosine = interleaved ? j % 2 == 1 : j >= half;
    return QStringLiteral("PE(%1, %2) = %3(%1 / %4^(%5/%6)) = %3(%1 × %7) = %8")
        .arg(p)
        .arg(j)
        .arg(cosine ? QStringLiteral("cos") : QStringLiteral("sin"), parameter(s.base))
        .arg(2 * pair)
        .arg(d)
        .arg(number(columnOmega(spec, j)), number(value));
}

QString ropeFormula(const RopeScheme &s, const EncodingSpec &spec)
{
    const qint64 rotary = ropeTableColumns(spec.dims, s.config(spec.shape()));
    const QString pairs = s.pairing == RopePairing::Interleaved
                              ? QStringLiteral("(2<i>i</i>, 2<i>i</i> + 1)")
                              : QStringLiteral("(<i>i</i>, <i>i</i> + %1)").arg(rotary / 2);
    return QStringLiteral("Pair <i>i</i> of columns %1 turns by <i>p</i>·θ<sub><i>i</i></sub>: "
                          "cos(<i>p</i>·θ<sub><i>i</i></sub>) in its first column, "
                          "sin(<i>p</i>·θ<sub><i>i</i></sub>) in its second (Su et al., "
                          "RoFormer).<br>%2")
        .arg(pairs, ropeScalingRule(s.config(spec.shape()), rotary));
}

QString ropeCell(const EncodingSpec &spec, const RopeScheme &s, qint64 p, qint64 j, double value)
{
    const RopeConfig config = s.config(spec.shape());
    const std::vector<double> theta = ropeInverseFrequencies(spec.dims, config).inverseFrequencies;
    const qint64 count = qint64(theta.size());
    if (j >= 2 * count)
        return QStringLiteral("RoPE(%1, %2) = %3: a column that does not rotate (partial rotary "
                              "factor %4)")
            .arg(p)
            .arg(j)
            .arg(number(value))
            .arg(s.partialRotaryFactor);
    const RopeColumn c = ropeTableColumn(RopeTableKind::CosSin, s.pairing, count, j);
    const QString type = config.ropeType == RopeType::Default
                             ? QString()
                             : QStringLiteral(", %1 scaling").arg(ropeTypeName(config.ropeType));
    return QStringLiteral("RoPE(%1, %2) = %3(%1·θ_%4) with θ_%4 = %5 (base %6%7) = %8")
        .arg(p)
        .arg(j)
        .arg(c.cosine ? QStringLiteral("cos") : QStringLiteral("sin"))
        .arg(c.pair)
        .arg(number(theta[std::size_t(c.pair)]), parameter(s.ropeTheta), type, number(value));
}

QString alibiFormula(const AlibiScheme &s)
{
    return QStringLiteral("bias(<i>i</i>, <i>j</i>) = −<i>m</i>·|<i>i</i> − <i>j</i>| for query "
                          "<i>i</i> and key <i>j</i>; head %1 of %2 has slope <i>m</i> = %3 "
                          "(2<sup>−8(<i>h</i>+1)/<i>n</i></sup> for <i>n</i> a power of two; Press "
                          "et al.)%4")
        .arg(s.head)
        .arg(s.heads)
        .arg(number(s.slope()),
             s.causal ? QStringLiteral("; causal: −∞ for keys after the query") : QString());
}

QString t5Formula(const T5Scheme &s)
{
    return QStringLiteral(
               "bucket(<i>j</i> − <i>i</i>): %1 buckets%2; distances below half of them get a "
               "bucket each, longer ones share logarithmic buckets up to %3, beyond which all "
               "share the last (HF's T5Attention._relative_position_bucket). Each bucket is one "
               "learned bias per head.")
        .arg(s.buckets)
        .arg(s.causal ? QStringLiteral(" (causal: keys before the query only)")
                      : QStringLiteral(", half for each direction"))
        .arg(s.maxDistance);
}

} // namespace

QString ropeScalingRule(const RopeConfig &c, qint64 rotaryDims)
{
    const QString base = parameter(c.ropeTheta);
    const QString d = QString::number(rotaryDims);
    QString plain =
        QStringLiteral("θ<sub><i>i</i></sub> = %1<sup>−2<i>i</i>/%2</sup>").arg(base, d);
    const QString s = number(ropeEffectiveFactor(c).value_or(1.0));
    const QString original =
        QString::number(c.originalMaxPositionEmbeddings > 0 ? c.originalMaxPositionEmbeddings
                                                            : c.maxPositionEmbeddings);
    switch (c.ropeType) {
    case RopeType::Default:
        return plain + QStringLiteral(" (no scaling)");
    case RopeType::Linear:
        return plain + QStringLiteral(" / <i>s</i>, <i>s</i> = %1: linear (position "
                                      "interpolation) divides every frequency")
                           .arg(s);
    case RopeType::Dynamic:
        return QStringLiteral("θ<sub><i>i</i></sub> = <i>b</i>′<sup>−2<i>i</i>/%1</sup> with "
                              "<i>b</i>′ = %2·(<i>s</i>·<i>L</i>/%3 − (<i>s</i> − "
                              "1))<sup>%1/(%1−2)</sup>, <i>s</i> = %4, <i>L</i> the sequence "
                              "length (at least %3): dynamic NTK")
            .arg(d, base)
            .arg(c.maxPositionEmbeddings)
            .arg(s);
    case RopeType::Ntk:
        return QStringLiteral("θ<sub><i>i</i></sub> = (%1·<i>s</i><sup>%2/(%2−2)</sup>)"
                              "<sup>−2<i>i</i>/%2</sup>, <i>s</i> = %3: NTK-aware base")
            .arg(base, d, s);
    case RopeType::Yarn:
        return plain + QStringLiteral(" for fast pairs (more than β<sub>fast</sub> = %1 turns "
                                      "in %2 positions), / <i>s</i> for slow ones (fewer than "
                                      "β<sub>slow</sub> = %3), a linear ramp between; "
                                      "<i>s</i> = %4, cos and sin × the attention factor: YaRN")
                           .arg(number(c.betaFast == 0 ? 32.0 : c.betaFast), original,
                                number(c.betaSlow == 0 ? 1.0 : c.betaSlow), s);
    case RopeType::Longrope:
        return plain + QStringLiteral(" / <i>f</i><sub><i>i</i></sub>, the short factors up to "
                                      "%1 positions and the long ones beyond; cos and sin × "
                                      "the attention factor: LongRoPE")
                           .arg(original);
    case RopeType::Llama3:
        return plain + QStringLiteral(" for wavelengths 2π/θ below %1/%2, / <i>s</i> above "
                                      "%1/%3, blended smoothly between; <i>s</i> = %4: Llama 3")
                           .arg(original, number(c.highFreqFactor), number(c.lowFreqFactor), s);
    case RopeType::Proportional:
        return QStringLiteral("θ<sub><i>i</i></sub> = %1<sup>−2<i>i</i>/%2</sup> / <i>s</i> for "
                              "the first %3 of the pairs, 0 for the rest; <i>s</i> = %4: "
                              "proportional")
            .arg(base, d)
            .arg(c.partialRotaryFactor)
            .arg(s);
    }
    return plain;
}

QString encodingFormula(const EncodingSpec &spec)
{
    return std::visit(
        Overloaded{
            [&](const SinusoidalScheme &s) { return sinusoidalFormula(s, spec.dims); },
            [&](const RopeScheme &s) { return ropeFormula(s, spec); },
            [&](const LearnedScheme &s) {
                return QStringLiteral("E[<i>p</i>, <i>i</i>] ~ U[−0.05, 0.05), seed %1: Keras' "
                                      "default Embedding initialiser, what a trainable "
                                      "position table starts as (nothing about order is built "
                                      "in)")
                    .arg(s.seed);
            },
            [&](const TableScheme &s) {
                return QStringLiteral("W[<i>p</i>, <i>i</i>]: the model's learned position table "
                                      "as stored (%1)")
                    .arg(s.legend().toHtmlEscaped());
            },
            [&](const NopeScheme &) {
                return QStringLiteral("0 everywhere: no position information; causal attention "
                                      "alone tells positions apart (Kazemnejad et al.)");
            },
            [&](const AlibiScheme &s) { return alibiFormula(s); },
            [&](const T5Scheme &s) { return t5Formula(s); },
        },
        spec.scheme);
}

QString cellFormula(const EncodingSpec &spec, qint64 position, qint64 column, double value)
{
    const qint64 p = position;
    const qint64 j = column;
    return std::visit(
        Overloaded{
            [&](const SinusoidalScheme &s) { return sinusoidalCell(spec, s, p, j, value); },
            [&](const RopeScheme &s) { return ropeCell(spec, s, p, j, value); },
            [&](const LearnedScheme &s) {
                return QStringLiteral("E[%1, %2] = %3, drawn from U[−0.05, 0.05) with seed %4")
                    .arg(p)
                    .arg(j)
                    .arg(number(value))
                    .arg(s.seed);
            },
            [&](const TableScheme &s) {
                return QStringLiteral("W[%1, %2] = %3 (%4)")
                    .arg(p)
                    .arg(j)
                    .arg(number(value), s.legend());
            },
            [&](const NopeScheme &) {
                return QStringLiteral("NoPE(%1, %2) = 0: no position information").arg(p).arg(j);
            },
            [&](const AlibiScheme &s) {
                if (std::isinf(value))
                    return QStringLiteral("bias(%1, %2) = −∞: key %2 comes after query %1 "
                                          "(causal mask)")
                        .arg(p)
                        .arg(j);
                return QStringLiteral("bias(%1, %2) = −m·|%1 − %2| = −%3 × %4 = %5")
                    .arg(p)
                    .arg(j)
                    .arg(number(s.slope()))
                    .arg(std::abs(p - j))
                    .arg(number(value));
            },
            [&](const T5Scheme &) {
                return QStringLiteral("bucket(%1 − %2 = %3) = %4")
                    .arg(j)
                    .arg(p)
                    .arg(j - p)
                    .arg(number(value));
            },
        },
        spec.scheme);
}

namespace {

// What each view shows, in one table: its title and how to read it (HTML).
struct ViewText
{
    FigureView view;
    const char *title;
    const char *text;
};

constexpr ViewText viewTexts[] = {
    {FigureView::Heatmap, "Heatmap",
     "The whole encoding matrix: one row per position <i>p</i>, one column per dimension <i>i</i> "
     "(dims across the rows when transposed, as in Géron's Fig 16-9), coloured by value. Hover a "
     "cell for its numbers (the status bar shows its formula); click to select it."},
    {FigureView::Waves, "Waves",
     "Chosen columns of the matrix against the position: each curve is one dimension <i>i</i>. "
     "Markers put dots on every curve at their positions; the readout lists the positions whose "
     "values in every plotted dim lie within the tolerance of the selected position's (Fig "
     "16-9's p = 22 and p = 60)."},
    {FigureView::Phrases, "Phrases",
     "Each phrase as its model sees it (MachineLearningMastery, Keras): lower-cased, punctuation "
     "stripped, split on spaces, each word an id (by frequency; 1 for unknown words, 0 for "
     "padding), padded or cut to the sequence length. Each row is one token's vector; "
     "<i>random</i> draws both tables, <i>fixed</i> makes both sinusoidal."},
    {FigureView::PhraseDifference, "Phrase difference",
     "Phrase B minus phrase A, token by token: where both have the same word at the same "
     "position the difference is zero, since the same word at the same position embeds the "
     "same."},
    {FigureView::TokenSimilarity, "Token similarity",
     "How alike the clicked token of one phrase is to every token of the other: the cosine of "
     "their embedding vectors."},
    {FigureView::Spectrum, "Spectrum",
     "Each rotary pair's wavelength, the positions one full turn takes, for configuration A (the "
     "window's encoding) and B, against the original context: scaling rules stretch the long "
     "wavelengths."},
    {FigureView::Rotation, "Rotation",
     "The vector of a few pairs as the position advances: pair <i>i</i> turns by "
     "θ<sub><i>i</i></sub> per position, so fast pairs circle many times while slow ones barely "
     "move."},
    {FigureView::Decay, "Decay",
     "RoFormer §3.4.3: the score of an all-ones query and key at relative distance <i>n</i>, "
     "over the score at 0. It falls with distance; scaling moves where."},
    {FigureView::Similarity, "Position similarity",
     "How alike two positions' vectors are: near the diagonal alike, far from it less so, for a "
     "good encoding."},
    {FigureView::Alibi, "ALiBi",
     "No position vectors at all: attention scores get a penalty growing linearly with the "
     "distance between query and key."},
    {FigureView::T5, "T5 buckets",
     "T5's relative positions: each query-key distance falls in a bucket, and each bucket has a "
     "learned bias."},
    {FigureView::Compare, "Compare A/B",
     "Two RoPE configurations side by side: A is the window's encoding, B the Schemes page's "
     "configuration B."},
    {FigureView::TableSimilarity, "Table: position similarity",
     "The cosine of every pair of rows of the model's learned position table: a band along the "
     "diagonal means nearby positions look alike."},
    {FigureView::Pca, "Table: PCA",
     "Each position's row projected on the table's first principal components, coloured by "
     "position: GPT-2's table draws a helix."},
    {FigureView::SinusoidFit, "Table: sinusoid fit",
     "For one dimension of the learned table, its values against the position and the sinusoid "
     "that fits them best (R² says how well): how close training came to the formula."},
    {FigureView::EngineCheck, "Engine check",
     "An inference engine's RoPE table against Hugging Face's for the model's config: the error "
     "per position and pair, the verdict, and the known mistake the difference matches."},
};

// Each view's formula, with the window's parameters where it has any (HTML).
QString viewFormula(FigureView view, const ExplorerState &state)
{
    const EncodingSpec &spec = state.spec();
    switch (view) {
    case FigureView::Heatmap:
    case FigureView::Waves:
        return encodingFormula(spec);
    case FigureView::Phrases:
        return QStringLiteral("out[<i>t</i>] = word_table[id<sub><i>t</i></sub>] + "
                              "position_table[<i>t</i>]");
    case FigureView::PhraseDifference:
        return QStringLiteral("diff[<i>t</i>, <i>i</i>] = out<sub>B</sub>[<i>t</i>, <i>i</i>] − "
                              "out<sub>A</sub>[<i>t</i>, <i>i</i>]");
    case FigureView::TokenSimilarity:
        return QStringLiteral("cos(<i>u</i>, <i>v</i>) = <i>u</i>·<i>v</i> / "
                              "(|<i>u</i>| |<i>v</i>|)");
    case FigureView::Spectrum:
        return QStringLiteral("λ<sub><i>i</i></sub> = 2π / θ<sub><i>i</i></sub>; A: ") +
               encodingFormula(ropeSpecA(spec));
    case FigureView::Rotation:
        return QStringLiteral("(x′, y′) = (x cos <i>p</i>θ<sub><i>i</i></sub> − y sin "
                              "<i>p</i>θ<sub><i>i</i></sub>, x sin <i>p</i>θ<sub><i>i</i></sub> + "
                              "y cos <i>p</i>θ<sub><i>i</i></sub>); ") +
               encodingFormula(ropeSpecA(spec));
    case FigureView::Decay:
        return QStringLiteral("score(<i>n</i>) = [(<i>d</i> − <i>r</i>) + 2 Σ<sub><i>i</i></sub> "
                              "cos(<i>n</i>θ<sub><i>i</i></sub>)] / <i>d</i>, <i>r</i> rotated "
                              "dims; ") +
               encodingFormula(ropeSpecA(spec));
    case FigureView::Similarity:
        return QStringLiteral("sim(<i>p</i>, <i>q</i>) = PE(<i>p</i>)·PE(<i>q</i>) or its "
                              "cosine; ") +
               encodingFormula(spec);
    case FigureView::Alibi:
        return alibiFormula(state.schemeSettings().alibi);
    case FigureView::T5:
        return t5Formula(state.schemeSettings().t5);
    case FigureView::Compare:
        return QStringLiteral("A: ") + encodingFormula(ropeSpecA(spec)) +
               QStringLiteral("<br>B: ") + encodingFormula(ropeSpecB(spec, state.schemeSettings()));
    case FigureView::TableSimilarity:
        return QStringLiteral("sim(<i>p</i>, <i>q</i>) = cos(W[<i>p</i>], W[<i>q</i>])");
    case FigureView::Pca:
        return QStringLiteral("x<sub><i>p</i></sub> = (W[<i>p</i>] − mean)·<i>v</i><sub>k</sub>, "
                              "<i>v</i><sub>k</sub> the covariance's top eigenvectors");
    case FigureView::SinusoidFit:
        return QStringLiteral("W[<i>p</i>, <i>i</i>] ≈ <i>a</i> sin(ω<i>p</i> + φ) + <i>c</i>, "
                              "least squares");
    case FigureView::EngineCheck:
        return QStringLiteral("err(<i>p</i>, <i>i</i>) = max |table − HF| over pair <i>i</i>'s "
                              "columns at position <i>p</i>; HF: cos / sin(<i>p</i>θ<sub><i>i</i>"
                              "</sub>) × attention factor");
    }
    return {};
}

} // namespace

ViewHelp viewHelp(FigureView view, const ExplorerState &state)
{
    for (const ViewText &t : viewTexts)
        if (t.view == view)
            return {QString::fromUtf8(t.title), QString::fromUtf8(t.text),
                    viewFormula(view, state)};
    return {figureViewName(view), QString(), viewFormula(view, state)};
}

namespace {

// The Phrases page with the model's own tokenizer: what its strip and three figures show.
QString modelPhrasesHtml()
{
    return QStringLiteral(
        "<h3>The model's own tokens, embeddings and attention</h3>"
        "<p>Each phrase goes through the open model's tokenizer.json as Hugging Face's "
        "<i>tokenizers</i> splits it: the strips show its tokens with their ids. "
        "<b>\u2423</b> marks the space a token starts or ends with (byte-level BPE writes it "
        "\u0120, SentencePiece \u2581); a token's tooltip gives the raw token, the text it "
        "covers and the normalized phrase.</p>"
        "<p><b>Positions in attention</b>: layer 0's attention weights softmax(q\u00b7k / "
        "\u221ad) of phrase A or B, for one head or the mean of the heads, computed with the "
        "model's position encoding and without it, and the difference: what positions change "
        "in who attends to whom.</p>"
        "<p><b>Embeddings</b>: hidden_states[0], the vectors layer 0 receives (token embeddings, "
        "plus the position table for models that add one at the input), with and without "
        "positions.</p>"
        "<p><b>Token similarity</b>: the cosine of every token of A with every token of B, and of "
        "the two phrases' mean vectors, with and without positions.</p>");
}

} // namespace

QString viewHelpHtml(const QList<FigureView> &views, const ExplorerState &state)
{
    // The model's phrase figures are no figure views (they are not exported as such).
    if (views.isEmpty() && state.page() == Page::Phrases &&
        state.phraseSource().tokenizer == PhraseTokenizer::Model)
        return modelPhrasesHtml();
    QString html;
    QStringList shown; // views of one matrix (waves, heatmap) share its formula: written once
    for (FigureView view : views) {
        const ViewHelp help = viewHelp(view, state);
        html += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(help.title.toHtmlEscaped(), help.text);
        if (!help.formula.isEmpty() && !shown.contains(help.formula))
            html += QStringLiteral("<p style=\"margin-left:1em\">%1</p>").arg(help.formula);
        shown.append(help.formula);
    }
    return html;
}

} // namespace pe
