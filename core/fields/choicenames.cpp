#include "choicenames.h"

namespace pe {

QString choiceName(ChoiceNames names, int value)
{
    for (const ChoiceName &n : names)
        if (n.value == value)
            return QString::fromUtf8(n.name);
    return {};
}

QString choiceLabel(ChoiceNames names, int value)
{
    for (const ChoiceName &n : names)
        if (n.value == value)
            return QString::fromUtf8(n.label);
    return {};
}

std::optional<int> parseChoice(ChoiceNames names, QStringView text)
{
    const QStringView wanted = text.trimmed();
    for (const ChoiceName &n : names) {
        if (wanted == QString::fromUtf8(n.name))
            return n.value;
        if (n.aliases)
            for (const QString &alias :
                 QString::fromUtf8(n.aliases).split(QLatin1Char(','), Qt::SkipEmptyParts))
                if (wanted == alias.trimmed())
                    return n.value;
    }
    return std::nullopt;
}

QStringList choiceNameList(ChoiceNames names)
{
    QStringList list;
    for (const ChoiceName &n : names)
        list.append(QString::fromUtf8(n.name));
    return list;
}

QString choiceList(ChoiceNames names)
{
    const QStringList list = choiceNameList(names);
    if (list.size() <= 1)
        return list.join(QString());
    return list.mid(0, list.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") +
           list.constLast();
}

} // namespace pe
