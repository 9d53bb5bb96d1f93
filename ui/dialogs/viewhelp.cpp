#include "dialogs/viewhelp.h"

#include <QStringList>

namespace pe {

QString encodingFormula(const EncodingSpec &spec)
{
    return spec.formula();
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
        return state.schemeSettings().alibi.formula({});
    case FigureView::T5:
        return state.schemeSettings().t5.formula({});
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
