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

void OptionSet::addTo(QCommandLineParser &parser) const
{
    for (const QString &flag : m_order) {
        const Entry &entry = m_entries[flag];
        const QString help = entry.help.join(QLatin1Char('\n'));
        if (entry.isSwitch)
            parser.addOption(QCommandLineOption(flag, help));
        else
            parser.addOption(QCommandLineOption(flag, help, entry.valueName));
    }
    for (const QCommandLineOption &option : m_plain)
        parser.addOption(option);
}

} // namespace pe
