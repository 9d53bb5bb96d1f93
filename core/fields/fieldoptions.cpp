#include "fieldoptions.h"

namespace pe {

void OptionSet::add(const QString &flag, bool isSwitch, const QString &valueName,
                    const QString &help, const QString &context)
{
    if (!m_entries.contains(flag))
        m_order.append(flag);
    Entry &entry = m_entries[flag];
    entry.isSwitch = isSwitch;
    entry.valueName = valueName;
    const QString line = context.isEmpty() ? help : context + QStringLiteral(": ") + help;
    if (!entry.help.contains(line))
        entry.help.append(line);
}

void OptionSet::addPlain(const QCommandLineOption &option)
{
    m_plain.append(option);
}

QCommandLineOption OptionSet::tableOption(const QString &flag) const
{
    const Entry &entry = m_entries[flag];
    const QString help = entry.help.join(QLatin1Char('\n'));
    if (entry.isSwitch)
        return {flag, help};
    return {flag, help, entry.valueName};
}

void OptionSet::addTo(QCommandLineParser &parser) const
{
    for (const QString &flag : m_order)
        parser.addOption(tableOption(flag));
    for (const QCommandLineOption &option : m_plain)
        parser.addOption(option);
}

std::optional<QCommandLineOption> OptionSet::option(const QString &flag) const
{
    if (m_entries.contains(flag))
        return tableOption(flag);
    for (const QCommandLineOption &option : m_plain)
        if (option.names().contains(flag))
            return option;
    return std::nullopt;
}

} // namespace pe
