// Generic access to the schemes of schemelist.h: their names, iteration over every scheme type,
// and what a spec's scheme says about itself, without naming any scheme.
#pragma once

#include "schemelist.h"

#include <array>
#include <utility>

namespace pe {

inline constexpr std::size_t schemeCount = std::variant_size_v<SchemeParameters>;

namespace detail {
template <std::size_t... I> constexpr auto makeSchemeNames(std::index_sequence<I...>)
{
    return std::array<ChoiceName, sizeof...(I)>{
        ChoiceName{int(I), std::variant_alternative_t<I, SchemeParameters>::info.id,
                   std::variant_alternative_t<I, SchemeParameters>::info.label,
                   std::variant_alternative_t<I, SchemeParameters>::info.alias}...};
}
template <std::size_t... I> constexpr quint32 makeDimsMask(std::index_sequence<I...>)
{
    return (
        (std::variant_alternative_t<I, SchemeParameters>::info.usesDims ? quint32(1) << I : 0u) |
        ... | 0u);
}
template <std::size_t... I> constexpr quint32 makeFileMask(std::index_sequence<I...>)
{
    return (
        (requires(std::variant_alternative_t<I, SchemeParameters> s, QString * e) { s.resolve(e); }
             ? quint32(1) << I
             : 0u) |
        ... | 0u);
}
template <std::size_t... I>
SchemeParameters makeScheme(std::size_t index, std::index_sequence<I...>)
{
    using Factory = SchemeParameters (*)();
    static constexpr Factory factories[] = {
        [] { return SchemeParameters(std::in_place_index<I>); }...};
    return factories[index]();
}
} // namespace detail

// Names for --scheme, sessions and the scheme menus, in list order (value = variant index).
inline constexpr auto schemeNames =
    detail::makeSchemeNames(std::make_index_sequence<schemeCount>());
// Bit i set when scheme i has a dims axis (the others are positions x positions).
inline constexpr quint32 schemesWithDims =
    detail::makeDimsMask(std::make_index_sequence<schemeCount>());

// Bit i set when scheme i reads its values from a file (it has resolve(): a model's table).
inline constexpr quint32 schemesReadingFiles =
    detail::makeFileMask(std::make_index_sequence<schemeCount>());

// The scheme at `index` of the list with its default parameters.
inline SchemeParameters defaultScheme(std::size_t index)
{
    return detail::makeScheme(index, std::make_index_sequence<schemeCount>());
}

inline const SchemeInfo &schemeInfo(const SchemeParameters &scheme)
{
    return std::visit([](const auto &s) -> const SchemeInfo & { return s.info; }, scheme);
}

inline QString schemeId(const SchemeParameters &scheme)
{
    return QString::fromUtf8(schemeInfo(scheme).id);
}

// Calls f(scheme) with a default-constructed value of every scheme type, in list order.
template <class F> void forEachScheme(F &&f)
{
    [&]<std::size_t... I>(std::index_sequence<I...>)
    {
        (f(std::variant_alternative_t<I, SchemeParameters>{}), ...);
    }
    (std::make_index_sequence<schemeCount>());
}

} // namespace pe
