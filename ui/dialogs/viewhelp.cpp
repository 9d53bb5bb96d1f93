#include "dialogs/viewhelp.h"

#include <QStringList>

namespace pe {

QString encodingFormula(const EncodingSpec &spec)
{
    return spec.formula();
}

namespace {

// The formula of a view's entry with the window's parameters filled in (HTML).
QString viewFormula(FigureView view, const ExplorerState &state)
{
    const ViewEntry &entry = viewEntry(view);
    const EncodingSpec &spec = state.spec();
    QString formula = QString::fromUtf8(entry.formula);
    switch (entry.parameters) {
    case ViewFormula::None:
        break;
    case ViewFormula::Encoding:
        formula += encodingFormula(spec);
        break;
    case ViewFormula::RopeA:
        formula += encodingFormula(ropeSpecA(spec));
        break;
    case ViewFormula::RopeAB:
        formula += QStringLiteral("A: ") + encodingFormula(ropeSpecA(spec)) +
                   QStringLiteral("<br>B: ") +
                   encodingFormula(ropeSpecB(spec, state.schemeSettings()));
        break;
    case ViewFormula::Scheme: {
        const QStringList keys = schemeKeysReadBy(view);
        const SchemeSettings &settings = state.schemeSettings();
        forEachSchemePart([&](const auto &part) {
            if (keys.contains(QString::fromUtf8(part.key)))
                formula += (settings.*part.member).formula({});
        });
        break;
    }
    }
    return formula;
}

} // namespace

ViewHelp viewHelp(FigureView view, const ExplorerState &state)
{
    const ViewEntry &entry = viewEntry(view);
    return {QString::fromUtf8(entry.helpTitle ? entry.helpTitle : entry.label),
            QString::fromUtf8(entry.help), viewFormula(view, state)};
}

QString viewHelpHtml(const QList<FigureView> &views, const ExplorerState &state)
{
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
