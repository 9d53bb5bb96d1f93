#include "figures/figurecaption.h"

#include "figures/figurebuilder.h"
#include "state/colormaps.h"

#include <QStringList>

#include <algorithm>
#include <type_traits>

namespace pe {

namespace {

QString joinNumbers(const QList<qint64> &values)
{
    QStringList list;
    for (qint64 v : values)
        list.append(QString::number(v));
    return list.join(QStringLiteral(", "));
}

} // namespace

QString figureCaption(const FigureState &state, const QList<FigureView> &views, bool showSelection)
{
    QStringList parts;
    FigureBuilder builder(state, PlotTheme{});
    builder.setShowSelection(showSelection);
    if (anyViewNeeds(views, ViewJob::Encoding)) {
        const EncodingSpec &s = state.spec();
        const QString spec = s.caption();
        parts.append(spec);
        if (views.contains(FigureView::Heatmap)) {
            QStringList heat;
            const qint64 limit = state.heatmapDimLimit();
            if (limit > 0 && limit < s.dims)
                heat.append(QStringLiteral("first %1 dims").arg(limit));
            if (state.transposed())
                heat.append(QStringLiteral("transposed"));
            heat.append(colormapName(state.colormap()));
            parts.append(QStringLiteral("heatmap: ") + heat.join(QStringLiteral(", ")));
        }
        if (views.contains(FigureView::Waves)) {
            QString waves = QStringLiteral("waves: i = ") + joinNumbers(builder.plottedDims());
            if (!state.markers().isEmpty())
                waves += QStringLiteral(", markers at p = ") + joinNumbers(state.markers());
            parts.append(waves);
        }
    }
    if (anyViewNeeds(views, ViewJob::Phrases)) {
        const PhraseSettings &p = state.phraseSettings();
        parts.append(QStringLiteral("%1 phrases, max_tokens %2, sequence length %3, dims %4, "
                                    "random seed %5")
                         .arg(p.phrases.size())
                         .arg(p.maxTokens)
                         .arg(p.sequenceLength)
                         .arg(p.dims)
                         .arg(p.seed));
    }
    if (anyViewNeeds(views, ViewJob::Schemes)) {
        const SchemeSettings &k = state.schemeSettings();
        const EncodingSpec a = ropeSpecA(state.spec());
        QStringList scheme{QStringLiteral("A: RoPE %1, %2 dims")
                               .arg(a.get<RopeScheme>()->configLabel())
                               .arg(a.dims)};
        // Each scheme part a view shown reads, in its own words: those with dims (configuration
        // B, compared with A) next to A, then the square views' schemes.
        for (const bool withDims : {true, false})
            forEachSchemePart([&](const auto &part) {
                using Scheme = typename std::decay_t<decltype(part)>::Scheme;
                if (Scheme::info.usesDims == withDims && anyViewReads(views, part.key))
                    scheme.append(part.caption(k.*part.member));
            });
        parts.append(scheme.join(QStringLiteral(", ")));
    }
    if (anyViewNeeds(views, ViewJob::Table)) {
        QString table = state.spec().caption();
        if (views.contains(FigureView::SinusoidFit))
            table += QStringLiteral("; sinusoid fit of dimension %1").arg(state.selection().dim);
        parts.append(table);
    }
    return parts.join(QStringLiteral("; "));
}

} // namespace pe
