// Name tables for enums (LabPlot's `nsl_*_name[]` habit): one constant table per enum gives the
// names files and the command line use, the labels forms show and accepted aliases, so nothing
// writes name/parse functions by hand.
#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>
#include <span>

namespace pe {

// One enum value's names. `name` is stable (sessions, presets, the command line); `label` is for
// people; `aliases` is a comma-separated list of other accepted spellings (may be null).
struct ChoiceName
{
    int value = 0;
    const char *name = "";
    const char *label = "";
    const char *aliases = nullptr;
};

using ChoiceNames = std::span<const ChoiceName>;

template <class E>
constexpr ChoiceName choice(E value, const char *name, const char *label,
                            const char *aliases = nullptr)
{
    return {int(value), name, label, aliases};
}

QString choiceName(ChoiceNames names, int value);
QString choiceLabel(ChoiceNames names, int value);
std::optional<int> parseChoice(ChoiceNames names, QStringView text);
// "a, b or c": for messages and --help.
QString choiceList(ChoiceNames names);
QStringList choiceNameList(ChoiceNames names);

template <class E> QString nameOf(ChoiceNames names, E value)
{
    return choiceName(names, int(value));
}

template <class E> QString labelOf(ChoiceNames names, E value)
{
    return choiceLabel(names, int(value));
}

template <class E> std::optional<E> parseAs(ChoiceNames names, QStringView text)
{
    if (const std::optional<int> v = parseChoice(names, text))
        return E(*v);
    return std::nullopt;
}

} // namespace pe
