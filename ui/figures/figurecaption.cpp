#include "figures/figurecaption.h"

#include "figures/figurebuilder.h"
#include "state/colormaps.h"

#include <QStringList>

#include <algorithm>

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
        if (anyViewReads(views, "compare"))
            scheme.append(QStringLiteral("B: ") + ropeSpecB(state.spec(), k).legend());
        if (anyViewReads(views, "alibi"))
            scheme.append(QStringLiteral("ALiBi %1 heads").arg(k.alibi.heads));
        if (anyViewReads(views, "t5"))
            scheme.append(QStringLiteral("T5 %1 buckets, max distance %2")
                              .arg(k.t5.buckets)
                              .arg(k.t5.maxDistance));
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
