// AttentionFigures: the Phrases page's figures of a model's own tokens (compute/phrasemodeldata.h)
// built into a QCustomPlot, for the window and the exporter alike, in the manner of TableFigures:
// a phrase's embedding output with and without the model's positions, the cosine of every token
// pair of two phrases (with and without), and "Positions in attention": layer 0's attention of
// one head with positions, without, and their difference.
#pragma once

#include "compute/phrasemodeldata.h"
#include "figures/plottheme.h"
#include "state/figurestate.h"

#include <QString>

class QCustomPlot;

namespace pe {

class AttentionFigures
{
public:
    // The mean over the heads, in place of one head.
    static constexpr int meanOfHeads = ViewChoices::meanOfHeads;

    AttentionFigures(const FigureState &state, const PlotTheme &theme);

    // Each phrase a row of its tokens, piece over id, as the tokenizer gave them.
    void buildTokens(QCustomPlot *plot, const PhraseModelResult &result) const;
    // Token rows (row 0 at the top) x hidden dims of phrase `phrase`: with positions (left) and
    // without (right), one colour scale.
    void buildEmbeddings(QCustomPlot *plot, const PhraseModelResult &result, int phrase) const;
    // cos(A token i, B token j), A's tokens as rows, with positions (left) and without (right),
    // the whole phrases' cosine in the title.
    void buildTokenCosine(QCustomPlot *plot, const PhraseModelResult &result) const;
    // Layer 0's attention of phrase `phrase`, query rows x key columns, for `head` (or the mean
    // of the heads): with positions, without, and with minus without (RdBu, centred on 0).
    void buildAttention(QCustomPlot *plot, const PhraseModelResult &result, int phrase,
                        int head) const;

    // Token t of a phrase for labels: the token as the tokenizer names it.
    static QString tokenText(const ModelPhrase &phrase, qint64 token);
    // One head's attention (or the mean of the heads), tokens x tokens: core's headAttention
    // (analysis/attentionheads.h) as a grid.
    static ValueGrid headAttention(const LayerZeroArray &attention, int head);

private:
    FigureState m_state; // a copy: builders outlive no state, and need none
    PlotTheme m_theme;
};

} // namespace pe
